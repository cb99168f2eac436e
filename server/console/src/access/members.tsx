/** The users (or groups) of a group or role (docs/api.md#groups): list, add by name or uuid, remove. */
import { useState } from 'preact/hooks';
import { entitiesOf, request, type Entity } from '../api';
import { useLoad } from '../load';
import { Problem, useAction, Waiting } from '../parts';
import { Link, pathOf } from '../router';
import { AddForm, RemovableList } from './parts';

// Members shown at once; more are reached from the user's or group's own screen.
const LIMIT = '100';

export function MembersPanel(props: { org: string; app: string; collection: 'groups' | 'roles'; id: string; relation: 'users' | 'groups' }) {
  const { org, app, collection, id, relation } = props;
  const params = { orgId: org, appId: app, collection, entityId: id };
  const members = useLoad(
    async () =>
      entitiesOf(await request('get', '/{orgId}/{appId}/{collection}/{entityId}/{relation}', { params: { ...params, relation }, query: { limit: LIMIT } })),
    [id, relation],
  );
  const [draft, setDraft] = useState('');
  const change = useAction();
  const connect = (method: 'post' | 'delete', member: string) =>
    change.run(async () => {
      await request(method, '/{orgId}/{appId}/{collection}/{entityId}/{relation}/{entityId2}', { params: { ...params, relation, entityId2: member } });
      if (method === 'post') setDraft('');
      members.reload();
    });
  const noun = relation === 'users' ? 'user' : 'group';
  const label = (member: Entity) => String(member.username ?? member.path ?? member.name ?? member.uuid);
  const titleId = `${relation}-title`;
  return (
    <section class="panel" aria-labelledby={titleId}>
      <h2 id={titleId}>{relation === 'users' ? 'Users' : 'Groups'}</h2>
      <Waiting loading={members.loading && members.value === undefined} />
      <Problem error={members.error} />
      {members.value?.length === 0 && <p>No {noun}.</p>}
      <RemovableList
        items={members.value?.map((member) => ({
          key: member.uuid,
          name: label(member),
          content: <Link to={pathOf('orgs', org, 'apps', app, relation, member.uuid)}>{label(member)}</Link>,
        }))}
        busy={change.busy}
        onRemove={(uuid) => void connect('delete', uuid)}
      />
      <AddForm
        field={{ id: `add-${relation}`, label: `Add a ${noun} (${relation === 'users' ? 'username' : 'path'} or uuid)`, value: draft, onInput: setDraft }}
        action={`Add ${noun}`}
        busy={change.busy}
        error={change.error}
        onSubmit={() => void connect('post', draft.trim())}
      />
    </section>
  );
}
