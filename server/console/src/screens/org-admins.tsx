/**
 * The admin users of an organization (docs/api.md#principals): a list, an existing admin user added
 * by username, email or uuid, and one removed after a confirmation (the last one stays: the API
 * refuses, and says why).
 */
import { useState } from 'preact/hooks';
import { ActionTable } from '../action-table';
import { entitiesOf, request } from '../api';
import { OrgNav } from '../app-nav';
import { useLoad } from '../load';
import { Confirm, Heading, Problem, useAction, useRemoval, Waiting } from '../parts';
import { AddForm } from '../access/parts';

interface AdminUser {
  uuid: string;
  username: string;
  name?: string;
  email?: string;
  disabled?: boolean;
}

export function OrgAdmins(props: { org: string }) {
  const { org } = props;
  const admins = useLoad(
    async () => entitiesOf(await request('get', '/management/orgs/{orgId}/users', { params: { orgId: org } })) as unknown as AdminUser[],
    [org],
  );
  const [name, setName] = useState('');
  const [added, setAdded] = useState<string>();
  const add = useAction();
  const submit = () =>
    void add.run(async () => {
      const [user] = entitiesOf(await request('put', '/management/orgs/{orgId}/users/{userId}', { params: { orgId: org, userId: name.trim() } }));
      setAdded(String(user.username));
      setName('');
      admins.reload();
    });
  const removal = useRemoval(async (admin: AdminUser) => {
    await request('delete', '/management/orgs/{orgId}/users/{userId}', { params: { orgId: org, userId: admin.uuid } });
    admins.reload();
  });
  return (
    <>
      <Heading>
        Admins <span class="muted">of {org}</span>
      </Heading>
      <OrgNav org={org} current="admins" />
      <p>Admin users of the organization have full control of it and of its applications.</p>
      {added && (
        <p class="saved" role="status">
          Added {added}.
        </p>
      )}
      <Waiting loading={admins.loading && admins.value === undefined} />
      <Problem error={admins.error} />
      {admins.value !== undefined && admins.value.length > 0 && (
        <ActionTable
          caption="Admins"
          columns={[
            { label: 'Username', cell: (admin) => (admin.disabled ? `${admin.username} (deactivated)` : admin.username) },
            { label: 'Name', cell: (admin) => admin.name },
            { label: 'Email', cell: (admin) => admin.email, wideOnly: true },
          ]}
          rows={admins.value}
          keyOf={(admin) => admin.uuid}
          actions={[{ label: 'Remove…', name: (admin) => admin.username, danger: true, onClick: removal.ask }]}
        />
      )}
      <section class="panel" aria-labelledby="add-admin-title">
        <h2 id="add-admin-title">Add an admin</h2>
        <p class="muted">An admin user who already has an account (made by signing up or with idp admin create): their username, email or uuid.</p>
        <AddForm
          field={{ id: 'admin-name', label: 'Username, email or uuid', value: name, onInput: setName }}
          action="Add admin"
          busy={add.busy}
          error={add.error}
          onSubmit={submit}
        />
      </section>
      <Confirm
        open={removal.item !== undefined}
        title={`Remove ${removal.item?.username ?? ''}?`}
        action="Remove"
        onCancel={removal.cancel}
        onConfirm={removal.confirm}
      >
        <p>They can no longer administer {org} or its applications. Their account stays.</p>
        <Problem error={removal.error} />
      </Confirm>
    </>
  );
}
