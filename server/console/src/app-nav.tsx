/** The areas of an organization or an application, as links under its heading: the one open is marked current, and still leads back to its list. */
import { t } from './i18n';
import type { MessageKey } from './messages';
import { Link, pathOf } from './router';

type Area = [area: string, label: MessageKey];

const APP_AREAS: Area[] = [
  ['collections', 'nav.collections'],
  ['users', 'nav.users'],
  ['groups', 'nav.groups'],
  ['roles', 'nav.roles_tester'],
  ['clients', 'nav.clients'],
  ['identity-providers', 'nav.identity_providers'],
  ['credentials', 'nav.credentials'],
  ['devices', 'nav.devices'],
  ['push', 'nav.push'],
  ['activity', 'nav.activity'],
  ['settings', 'nav.settings'],
];

const ORG_AREAS: Area[] = [
  ['apps', 'nav.applications'],
  ['admins', 'nav.admins'],
  ['credentials', 'nav.credentials'],
  ['activity', 'nav.activity'],
  ['settings', 'nav.settings'],
];

/** `home` is the area whose list is the owner's own address. */
function AreaNav(props: { label: MessageKey; base: string[]; areas: Area[]; home: string; current: string }) {
  return (
    <nav aria-label={t(props.label)} class="tabs">
      <ul>
        {props.areas.map(([area, label]) => (
          <li key={area}>
            <Link to={area === props.home ? pathOf(...props.base) : pathOf(...props.base, area)} aria-current={area === props.current ? 'page' : undefined}>
              {t(label)}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function AppNav(props: { org: string; app: string; current: string }) {
  return <AreaNav label="nav.application" base={['orgs', props.org, 'apps', props.app]} areas={APP_AREAS} home="collections" current={props.current} />;
}

export function OrgNav(props: { org: string; current: string }) {
  return <AreaNav label="nav.organization" base={['orgs', props.org]} areas={ORG_AREAS} home="apps" current={props.current} />;
}
