/**
 * The organizations to open: those the signed-in admin administers, and for a sysadmin every
 * organization on the server (GET /management/orgs, docs/api.md#organizations), a page at a time.
 */
import { entitiesOf, request } from '../api';
import { t } from '../i18n';
import { Pager, usePages } from '../paging';
import { Link, pathOf } from '../router';
import { Heading, Problem, Waiting } from '../parts';
import type { Admin } from '../session';

const PAGE_SIZE = '20';

function OrganizationLinks(props: { names: string[] }) {
  return (
    <ul class="cards">
      {props.names.map((name) => (
        <li key={name}>
          <Link to={pathOf('orgs', name)}>{name}</Link>
        </li>
      ))}
    </ul>
  );
}

function EveryOrganization() {
  const pages = usePages((cursor) => request('get', '/management/orgs', { params: {}, query: { cursor, limit: PAGE_SIZE } }), []);
  const names = pages.value ? entitiesOf(pages.value).map((org) => String(org.name)) : [];
  return (
    <section aria-labelledby="every-org-title">
      <h2 id="every-org-title">{t('orgs.every')}</h2>
      <p class="muted">{t('orgs.every_hint')}</p>
      <Waiting loading={pages.loading} />
      <Problem error={pages.error} />
      {pages.value && names.length === 0 && <p>{t('orgs.none')}</p>}
      <OrganizationLinks names={names} />
      <Pager pages={pages} />
    </section>
  );
}

export function Organizations(props: { admin: Admin }) {
  const names = Object.keys(props.admin.organizations).sort((a, b) => a.localeCompare(b));
  return (
    <>
      <Heading>{t('orgs.title')}</Heading>
      {names.length > 0 && (
        <>
          <p>{t('orgs.intro')}</p>
          <OrganizationLinks names={names} />
        </>
      )}
      {props.admin.sysadmin && <EveryOrganization />}
    </>
  );
}
