/**
 * An application's users, groups and roles (docs/api.md#groups, docs/api.md#permissions): their
 * lists, and one of them with what it holds: a role's permissions and members, a group's
 * permissions and users, a user's password, state, factors, groups and roles, and the permission tester.
 */
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
const created: Column = { label: 'Created', value: (entity) => new Date(entity.created).toLocaleDateString(), wideOnly: true };

/** A group's or role's list: named by `key` (a group's path, a role's name), with a title. */
function holder(props: { org: string; app: string }, collection: 'groups' | 'roles', key: Field): ListProps {
  const noun = collection.slice(0, -1);
  return {
    ...props,
    collection,
    title: collection === 'groups' ? 'Groups' : 'Roles',
    noun,
    columns: [{ label: key.name === 'path' ? 'Path' : 'Name', value: text(key.name) }, { label: 'Title', value: text('title') }, created],
    fields: [
      { ...key, required: true },
      { name: 'title', label: 'Title' },
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
          title="Users"
          noun="user"
          columns={[
            { label: 'Username', value: text('username') },
            { label: 'Name', value: text('name'), wideOnly: true },
            { label: 'Email', value: text('email') },
            { label: 'State', value: (user) => (user.disabled === true ? 'disabled' : user.activated === false ? 'not activated' : 'active') },
          ]}
          fields={[
            { name: 'username', label: 'Username', required: true },
            { name: 'name', label: 'Name' },
            { name: 'email', label: 'Email', type: 'email' },
            { name: 'password', label: 'Password', type: 'password', autocomplete: 'new-password' },
          ]}
        />
      );
    case 'groups':
      return <AccessList {...holder(props, 'groups', { name: 'path', label: 'Path (a/b nests b in a)' })} />;
    case 'roles':
      return (
        <AccessList {...holder(props, 'roles', { name: 'name', label: 'Name' })}>
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
