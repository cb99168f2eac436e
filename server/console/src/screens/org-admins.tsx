/**
 * The admin users of an organization (docs/api.md#principals): a list, an existing admin user added
 * by username, email or uuid, and one removed after a confirmation (the last one stays: the API
 * refuses, and says why).
 */
import { t } from '../i18n';
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
        {t('nav.admins')} <span class="muted">{t('common.of', { place: org })}</span>
      </Heading>
      <OrgNav org={org} current="admins" />
      <p>{t('admins.intro')}</p>
      {added && (
        <p class="saved" role="status">
          {t('common.added_named', { name: added })}
        </p>
      )}
      <Waiting loading={admins.loading && admins.value === undefined} />
      <Problem error={admins.error} />
      {admins.value !== undefined && admins.value.length > 0 && (
        <ActionTable
          caption={t('nav.admins')}
          columns={[
            { label: t('admins.username'), cell: (admin) => (admin.disabled ? t('admins.deactivated', { name: admin.username }) : admin.username) },
            { label: t('admins.name'), cell: (admin) => admin.name },
            { label: t('admins.email'), cell: (admin) => admin.email, wideOnly: true },
          ]}
          rows={admins.value}
          keyOf={(admin) => admin.uuid}
          actions={[{ label: t('common.remove_ellipsis'), name: (admin) => admin.username, danger: true, onClick: removal.ask }]}
        />
      )}
      <section class="panel" aria-labelledby="add-admin-title">
        <h2 id="add-admin-title">{t('admins.add_title')}</h2>
        <p class="muted">{t('admins.add_hint')}</p>
        <AddForm
          field={{ id: 'admin-name', label: t('admins.add_field'), value: name, onInput: setName }}
          action={t('admins.add')}
          busy={add.busy}
          error={add.error}
          onSubmit={submit}
        />
      </section>
      <Confirm
        open={removal.item !== undefined}
        title={t('common.remove_title', { name: removal.item?.username ?? '' })}
        action={t('common.remove')}
        onCancel={removal.cancel}
        onConfirm={removal.confirm}
      >
        <p>{t('admins.remove_text', { org })}</p>
        <Problem error={removal.error} />
      </Confirm>
    </>
  );
}
