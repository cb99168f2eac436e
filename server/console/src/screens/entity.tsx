/**
 * One entity as JSON: edit and save it (properties merge; one removed here is removed), or delete
 * it after a confirmation. Users, groups and roles show their own panels below it.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { entitiesOf, request, titleOf, type Entity, type EntityParams } from '../api';
import { t } from '../i18n';
import { useLoad } from '../load';
import { Confirm, Heading, JsonField, parseJson, Problem, useAction, Waiting, type JsonObject } from '../parts';
import { navigate, pathOf } from '../router';

// What the server sets itself; an edit of them is not sent (docs/api.md#entities).
const SERVER_FIELDS = ['uuid', 'type', 'created', 'modified', 'metadata'];

/** The body of a PUT that turns `before` into `after`: every property of `after`, and null for each one removed. */
function changesOf(before: Entity, after: JsonObject): JsonObject {
  const body: JsonObject = {};
  for (const key of Object.keys(before)) if (!(key in after)) body[key] = null;
  Object.assign(body, after);
  for (const key of SERVER_FIELDS) delete body[key];
  return body;
}

/** The loaded entity's JSON in a form; a save loads it again (and so shows what the server kept). */
function EntityEditor(props: { entity: Entity; params: EntityParams; onSaved: () => void; onDelete: () => void; saved: boolean }) {
  const [text, setText] = useState(() => JSON.stringify(props.entity, null, 2));
  const save = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void save.run(async () => {
      const edited = parseJson(text) as JsonObject;
      await request('put', '/{orgId}/{appId}/{collection}/{entityId}', { params: props.params, body: changesOf(props.entity, edited) });
      props.onSaved();
    });
  };
  return (
    <form class="panel" onSubmit={submit}>
      <JsonField id="entity-json" label={t('entity.json')} value={text} onInput={setText} rows={16} problem={save.error} />
      {props.saved && save.error === undefined && (
        <p class="saved" role="status">
          {t('common.saved')}
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={save.busy}>
          {t('common.save')}
        </button>
        <button type="button" class="danger" onClick={props.onDelete}>
          {t('common.delete_ellipsis')}
        </button>
      </div>
    </form>
  );
}

export function EntityScreen(props: {
  org: string;
  app: string;
  collection: string;
  id: string;
  /** Where a deletion leads: the collection's entities unless said. */
  back?: string;
  /** More about the entity, below its JSON; `reload` after a change of the entity itself. */
  children?: (entity: Entity, reload: () => void) => ComponentChildren;
}) {
  const { org, app, collection, id } = props;
  const params: EntityParams = { orgId: org, appId: app, collection, entityId: id };
  const entity = useLoad(async () => entitiesOf(await request('get', '/{orgId}/{appId}/{collection}/{entityId}', { params }))[0], [org, app, collection, id]);
  const [saved, setSaved] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const remove = useAction();
  const confirmDelete = () =>
    void remove.run(async () => {
      await request('delete', '/{orgId}/{appId}/{collection}/{entityId}', { params });
      setConfirming(false);
      navigate(props.back ?? pathOf('orgs', org, 'apps', app, 'collections', collection));
    });
  const title = entity.value ? titleOf(entity.value) : id;
  return (
    <>
      <Heading>
        {title} <span class="muted">{t('common.in', { place: collection })}</span>
      </Heading>
      <Waiting loading={entity.loading && entity.value === undefined} />
      <Problem error={entity.error} />
      {entity.value && (
        <EntityEditor
          key={entity.value.modified}
          entity={entity.value}
          params={params}
          saved={saved}
          onSaved={() => {
            setSaved(true);
            entity.reload();
          }}
          onDelete={() => setConfirming(true)}
        />
      )}
      {entity.value && props.children?.(entity.value, entity.reload)}
      <Confirm
        open={confirming}
        title={t('entity.confirm_title', { name: title })}
        action={t('common.delete')}
        onCancel={() => setConfirming(false)}
        onConfirm={confirmDelete}
      >
        <p>{t('entity.confirm_text', { collection })}</p>
        <Problem error={remove.error} />
      </Confirm>
    </>
  );
}
