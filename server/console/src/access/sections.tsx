/** The parts of an application a screen may move between: its collections, users, groups and roles. */
import { Link, pathOf } from '../router';

export type AccessCollection = 'users' | 'groups' | 'roles';

export const ACCESS_SECTIONS: readonly AccessCollection[] = ['users', 'groups', 'roles'];

export function AppSections(props: { org: string; app: string }) {
  const base = ['orgs', props.org, 'apps', props.app];
  return (
    <nav aria-label="Application" class="sections">
      <Link to={pathOf(...base)}>Collections</Link>
      <Link to={pathOf(...base, 'users')}>Users</Link>
      <Link to={pathOf(...base, 'groups')}>Groups</Link>
      <Link to={pathOf(...base, 'roles')}>Roles and permission tester</Link>
    </nav>
  );
}
