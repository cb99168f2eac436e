/** The users (or groups) of a group or role (docs/api.md#groups): list, add by name or uuid, remove. */
import { t } from '../i18n';
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
  const label = (member: Entity) => String(member.username ?? member.path ?? member.name ?? member.uuid);
  const titleId = `${relation}-title`;
  return (
    <section class="panel" aria-labelledby={titleId}>
      <h2 id={titleId}>{relation === 'users' ? t('nav.users') : t('nav.groups')}</h2>
      <Waiting loading={members.loading && members.value === undefined} />
      <Problem error={members.error} />
      {members.value?.length === 0 && <p>{relation === 'users' ? t('members.no_users') : t('members.no_groups')}</p>}
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
        field={{
          id: `add-${relation}`,
          label: relation === 'users' ? t('members.add_user_label') : t('members.add_group_label'),
          value: draft,
          onInput: setDraft,
        }}
        action={relation === 'users' ? t('members.add_user') : t('members.add_group')}
        busy={change.busy}
        error={change.error}
        onSubmit={() => void connect('post', draft.trim())}
      />
    </section>
  );
}
