/** The organizations the signed-in admin administers. */
import { Link, pathOf } from '../router';
import { Heading } from '../parts';
import type { Admin } from '../session';

export function Organizations(props: { admin: Admin }) {
  const names = Object.keys(props.admin.organizations).sort((a, b) => a.localeCompare(b));
  return (
    <>
      <Heading>Organizations</Heading>
      <p>The organizations you administer. Open one to see its applications.</p>
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
