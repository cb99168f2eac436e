/** The areas of one application, as links under its heading: the one open is marked current, and still leads back to its list. */
import { Link, pathOf } from './router';

const AREAS: [area: string, label: string][] = [
  ['collections', 'Collections'],
  ['users', 'Users'],
  ['groups', 'Groups'],
  ['roles', 'Roles and permission tester'],
  ['clients', 'OAuth clients'],
  ['credentials', 'Credentials'],
  ['devices', 'Devices'],
  ['push', 'Push'],
  ['activity', 'Activity'],
];

export function AppNav(props: { org: string; app: string; current: string }) {
  return (
    <nav aria-label="Application" class="tabs">
      <ul>
        {AREAS.map(([area, label]) => (
          <li key={area}>
            <Link
              to={area === 'collections' ? pathOf('orgs', props.org, 'apps', props.app) : pathOf('orgs', props.org, 'apps', props.app, area)}
              aria-current={area === props.current ? 'page' : undefined}
            >
              {label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
