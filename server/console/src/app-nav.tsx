/** The areas of one application, as links under its heading: the one open is marked current, and still leads back to its list. */
import { t } from './i18n';
import type { MessageKey } from './messages';
import { Link, pathOf } from './router';

const AREAS: [area: string, label: MessageKey][] = [
  ['collections', 'nav.collections'],
  ['users', 'nav.users'],
  ['groups', 'nav.groups'],
  ['roles', 'nav.roles_tester'],
  ['clients', 'nav.clients'],
  ['credentials', 'nav.credentials'],
];

export function AppNav(props: { org: string; app: string; current: string }) {
  return (
    <nav aria-label={t('nav.application')} class="tabs">
      <ul>
        {AREAS.map(([area, label]) => (
          <li key={area}>
            <Link
              to={area === 'collections' ? pathOf('orgs', props.org, 'apps', props.app) : pathOf('orgs', props.org, 'apps', props.app, area)}
              aria-current={area === props.current ? 'page' : undefined}
            >
              {t(label)}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
