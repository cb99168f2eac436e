/**
 * An application's users, groups and roles (docs/api.md#groups, docs/api.md#permissions): their
 * lists, and one of them with what it holds: a role's permissions and members, a group's
 * permissions and users, a user's password, state, factors, groups and roles, and the permission tester.
 */
import { locale, t } from '../i18n';
import { AccessList, type Column, type Field, type ListProps } from '../access/list';
import { MembersPanel } from '../access/members';
import { PermissionsPanel, PermissionTester } from '../access/permissions';
import { AppNav } from '../app-nav';
import { type AccessCollection } from '../access/sections';
import { UserPanels } from '../access/user';
import type { Entity } from '../api';
import { pathOf } from '../router';
import { EntityScreen } from './entity';

const text = (name: string) => (entity: Entity) => (typeof entity[name] === 'string' ? (entity[name] as string) : '');
const created = (): Column => ({ label: t('access.created'), value: (entity) => new Date(entity.created).toLocaleDateString(locale()), wideOnly: true });

/** A group's or role's list: named by `key` (a group's path, a role's name), with a title. */
function holder(props: { org: string; app: string }, collection: 'groups' | 'roles', key: Field): ListProps {
  return {
    ...props,
    collection,
    title: collection === 'groups' ? t('nav.groups') : t('nav.roles'),
    columns: [
      { label: key.name === 'path' ? t('access.path') : t('access.name'), value: text(key.name) },
      { label: t('access.title_field'), value: text('title') },
      created(),
    ],
    fields: [
      { ...key, required: true },
      { name: 'title', label: t('access.title_field') },
    ],
  };
}

export function AccessListScreen(props: { org: string; app: string; collection: AccessCollection }) {
  const { org, app } = props;
  switch (props.collection) {
    case 'users':
      return (
        <AccessList
          org={org}
          app={app}
          collection="users"
          title={t('nav.users')}
          columns={[
            { label: t('access.username'), value: text('username') },
            { label: t('access.name'), value: text('name'), wideOnly: true },
            { label: t('access.email'), value: text('email') },
            {
              label: t('access.state'),
              value: (user) => (user.disabled === true ? t('access.disabled') : user.activated === false ? t('access.not_activated') : t('access.active')),
            },
          ]}
          fields={[
            { name: 'username', label: t('access.username'), required: true },
            { name: 'name', label: t('access.name') },
            { name: 'email', label: t('access.email'), type: 'email' },
            { name: 'password', label: t('access.password'), type: 'password', autocomplete: 'new-password' },
          ]}
        />
      );
    case 'groups':
      return <AccessList {...holder(props, 'groups', { name: 'path', label: t('access.group_path') })} />;
    case 'roles':
      return (
        <AccessList {...holder(props, 'roles', { name: 'name', label: t('access.name') })}>
          <PermissionTester org={org} app={app} />
        </AccessList>
      );
  }
}

export function AccessEntityScreen(props: { org: string; app: string; collection: AccessCollection; id: string }) {
  const { org, app, collection, id } = props;
  return (
    <>
      <AppNav org={org} app={app} current={collection} />
      <EntityScreen org={org} app={app} collection={collection} id={id} back={pathOf('orgs', org, 'apps', app, collection)}>
        {(entity, reload) => (
          <>
            {collection === 'users' && <UserPanels org={org} app={app} user={entity} onChange={reload} />}
            {collection !== 'users' && <MembersPanel org={org} app={app} collection={collection} id={entity.uuid} relation="users" />}
            {collection === 'roles' && <MembersPanel org={org} app={app} collection={collection} id={entity.uuid} relation="groups" />}
            <PermissionsPanel org={org} app={app} collection={collection} id={entity.uuid} />
            {collection === 'users' && <PermissionTester org={org} app={app} user={entity.uuid} />}
          </>
        )}
      </EntityScreen>
    </>
  );
}
