/**
 * An entity's connections both ways (docs/api.md#connections): the entities it connects to, by
 * each relation its metadata names (`…/{id}/connections/{relation}`), and those that connect to
 * it (`…/{id}/connecting/{relation}`), each a link to its own screen. A connection is made by a
 * relation and its target, and removed after a confirmation.
 */
import { useState } from 'preact/hooks';
import { entitiesOf, request, titleOf, type Entity, type EntityParams } from './api';
import { TextField } from './access/parts';
import { t } from './i18n';
import { useLoad } from './load';
import { Confirm, Problem, useAction, Waiting } from './parts';
import { Link, pathOf } from './router';

// The first 100 of each relation: enough to follow one; the API pages the rest.
const LIMIT = '100';

interface Connection {
  relation: string;
  entity: Entity;
}

/** The collection an entity is in, from its path `/dogs/{uuid}`. */
function collectionOf(entity: Entity): string {
  return entity.metadata?.path?.split('/')[1] ?? entity.type;
}

function EntityLink(props: { org: string; app: string; entity: Entity }) {
  const collection = collectionOf(props.entity);
  return (
    <>
      <Link to={pathOf('orgs', props.org, 'apps', props.app, 'collections', collection, props.entity.uuid)}>{titleOf(props.entity)}</Link>{' '}
      <span class="muted">({collection})</span>
    </>
  );
}

interface Props {
  org: string;
  app: string;
  collection: string;
  entity: Entity;
  /** Loads the entity again: its metadata names its relations. */
  reload: () => void;
}

/** The entities this one connects to (each removable) and those that connect to it. */
function ConnectionLists(props: { org: string; app: string; out: Connection[]; into: Connection[]; onRemove: (connection: Connection) => void }) {
  return (
    <>
      <h3>{t('connections.outgoing')}</h3>
      {props.out.length === 0 && <p class="muted">{t('connections.no_outgoing')}</p>}
      <ul class="rules" aria-label={t('connections.outgoing')}>
        {props.out.map((connection) => (
          <li key={`${connection.relation} ${connection.entity.uuid}`}>
            <span>
              <code class="mono">{connection.relation}</code> → <EntityLink org={props.org} app={props.app} entity={connection.entity} />
            </span>
            <button
              type="button"
              class="danger"
              aria-label={t('connections.remove_named', { relation: connection.relation, name: titleOf(connection.entity) })}
              onClick={() => props.onRemove(connection)}
            >
              {t('common.remove')}
            </button>
          </li>
        ))}
      </ul>
      <h3>{t('connections.incoming')}</h3>
      {props.into.length === 0 && <p class="muted">{t('connections.no_incoming')}</p>}
      <ul class="rules" aria-label={t('connections.incoming')}>
        {props.into.map((connection) => (
          <li key={`${connection.relation} ${connection.entity.uuid}`}>
            <span>
              <EntityLink org={props.org} app={props.app} entity={connection.entity} /> → <code class="mono">{connection.relation}</code>
            </span>
          </li>
        ))}
      </ul>
    </>
  );
}

/** A connection from this entity: its relation, and the other entity by collection and name or UUID. */
function ConnectForm(props: { params: EntityParams; onConnected: () => void }) {
  const [relation, setRelation] = useState('');
  const [targetCollection, setTargetCollection] = useState('');
  const [target, setTarget] = useState('');
  const connect = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void connect.run(async () => {
      const path = { ...props.params, relation: relation.trim(), type: targetCollection.trim(), entityId2: target.trim() };
      await request('post', '/{orgId}/{appId}/{collection}/{entityId}/connections/{relation}/{type}/{entityId2}', { params: path });
      setTarget('');
      props.onConnected();
    });
  };
  return (
    <form onSubmit={submit}>
      <h3>{t('connections.new')}</h3>
      <TextField id="connection-relation" label={t('connections.relation')} value={relation} onInput={setRelation} placeholder="likes" code />
      <TextField
        id="connection-collection"
        label={t('connections.target_collection')}
        value={targetCollection}
        onInput={setTargetCollection}
        placeholder="dogs"
        code
      />
      <TextField id="connection-target" label={t('connections.target')} value={target} onInput={setTarget} placeholder="rex" code />
      <Problem error={connect.error} />
      <button type="submit" disabled={connect.busy}>
        {t('connections.connect')}
      </button>
    </form>
  );
}

export function Connections(props: Props) {
  const { org, app, collection, entity } = props;
  const params: EntityParams = { orgId: org, appId: app, collection, entityId: entity.uuid };
  const outgoing = Object.keys(entity.metadata?.connections ?? {}).sort();
  const incoming = Object.keys(entity.metadata?.connecting ?? {}).sort();
  const [round, setRound] = useState(0);
  const lists = useLoad(async () => {
    const read = async (relation: string, way: 'connections' | 'connecting') => {
      const call = { params: { ...params, relation }, query: { limit: LIMIT } };
      const answer =
        way === 'connections'
          ? await request('get', '/{orgId}/{appId}/{collection}/{entityId}/connections/{relation}', call)
          : await request('get', '/{orgId}/{appId}/{collection}/{entityId}/connecting/{relation}', call);
      return entitiesOf(answer).map((other): Connection => ({ relation, entity: other }));
    };
    const [out, into] = await Promise.all([
      Promise.all(outgoing.map((relation) => read(relation, 'connections'))),
      Promise.all(incoming.map((relation) => read(relation, 'connecting'))),
    ]);
    return { out: out.flat(), into: into.flat() };
  }, [org, app, collection, entity.uuid, outgoing.join(' '), incoming.join(' '), round]);

  const [removing, setRemoving] = useState<Connection>();
  const remove = useAction();
  const changed = () => {
    setRound((value) => value + 1);
    props.reload();
  };
  const confirmRemove = () =>
    void remove.run(async () => {
      if (removing === undefined) return;
      const path = { ...params, relation: removing.relation, type: collectionOf(removing.entity), entityId2: removing.entity.uuid };
      await request('delete', '/{orgId}/{appId}/{collection}/{entityId}/connections/{relation}/{type}/{entityId2}', { params: path });
      setRemoving(undefined);
      changed();
    });

  return (
    <section class="panel" aria-labelledby="connections-title">
      <h2 id="connections-title">{t('connections.title')}</h2>
      <Waiting loading={lists.loading && lists.value === undefined} />
      <Problem error={lists.error} />
      {lists.value && (
        <ConnectionLists
          org={org}
          app={app}
          out={lists.value.out}
          into={lists.value.into}
          onRemove={(connection) => {
            remove.clear();
            setRemoving(connection);
          }}
        />
      )}
      <ConnectForm params={params} onConnected={changed} />
      <Confirm
        open={removing !== undefined}
        title={t('connections.confirm_title')}
        action={t('common.remove')}
        onCancel={() => setRemoving(undefined)}
        onConfirm={confirmRemove}
      >
        {removing && <p>{t('connections.confirm_text', { name: titleOf(entity), relation: removing.relation, other: titleOf(removing.entity) })}</p>}
        <Problem error={remove.error} />
      </Confirm>
    </section>
  );
}
