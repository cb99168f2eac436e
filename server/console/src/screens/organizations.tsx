/**
 * The organizations to open: those the signed-in admin administers, and for a sysadmin every
 * organization on the server (GET /management/orgs, docs/api.md#organizations), a page at a time.
 */
import { entitiesOf, request } from '../api';
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
      <h2 id="every-org-title">Every organization</h2>
      <p class="muted">As a sysadmin you see every organization on this server, by name.</p>
      <Waiting loading={pages.loading} />
      <Problem error={pages.error} />
      {pages.value && names.length === 0 && <p>There is no organization yet.</p>}
      <OrganizationLinks names={names} />
      <Pager pages={pages} />
    </section>
  );
}

export function Organizations(props: { admin: Admin }) {
  const names = Object.keys(props.admin.organizations).sort((a, b) => a.localeCompare(b));
  return (
    <>
      <Heading>Organizations</Heading>
      {names.length > 0 && (
        <>
          <p>The organizations you administer. Open one to see its applications.</p>
          <OrganizationLinks names={names} />
        </>
      )}
      {props.admin.sysadmin && <EveryOrganization />}
    </>
  );
}
