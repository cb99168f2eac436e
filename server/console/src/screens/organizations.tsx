/** The organizations the signed-in admin administers. */
import { t } from '../i18n';
import { Link, pathOf } from '../router';
import { Heading } from '../parts';
import type { Admin } from '../session';

export function Organizations(props: { admin: Admin }) {
  const names = Object.keys(props.admin.organizations).sort((a, b) => a.localeCompare(b));
  return (
    <>
      <Heading>{t('orgs.title')}</Heading>
      <p>{t('orgs.intro')}</p>
      <ul class="cards">
        {names.map((name) => (
          <li key={name}>
            <Link to={pathOf('orgs', name)}>{name}</Link>
          </li>
        ))}
      </ul>
    </>
  );
}
