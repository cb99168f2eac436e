/** The areas of an organization or an application, as links under its heading: the one open is marked current, and still leads back to its list. */
import { Link, pathOf } from './router';

type Area = [area: string, label: string];

const APP_AREAS: Area[] = [
  ['collections', 'Collections'],
  ['users', 'Users'],
  ['groups', 'Groups'],
  ['roles', 'Roles and permission tester'],
  ['clients', 'OAuth clients'],
  ['identity-providers', 'Identity providers'],
  ['credentials', 'Credentials'],
  ['devices', 'Devices'],
  ['push', 'Push'],
  ['activity', 'Activity'],
];

const ORG_AREAS: Area[] = [
  ['apps', 'Applications'],
  ['admins', 'Admins'],
  ['credentials', 'Credentials'],
];

/** `home` is the area whose list is the owner's own address. */
function AreaNav(props: { label: string; base: string[]; areas: Area[]; home: string; current: string }) {
  return (
    <nav aria-label={props.label} class="tabs">
      <ul>
        {props.areas.map(([area, label]) => (
          <li key={area}>
            <Link to={area === props.home ? pathOf(...props.base) : pathOf(...props.base, area)} aria-current={area === props.current ? 'page' : undefined}>
              {label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function AppNav(props: { org: string; app: string; current: string }) {
  return <AreaNav label="Application" base={['orgs', props.org, 'apps', props.app]} areas={APP_AREAS} home="collections" current={props.current} />;
}

export function OrgNav(props: { org: string; current: string }) {
  return <AreaNav label="Organization" base={['orgs', props.org]} areas={ORG_AREAS} home="apps" current={props.current} />;
}
