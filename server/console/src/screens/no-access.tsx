/** An admin who administers no organization: say so, and what to do, rather than show an empty console. (A sysadmin sees every organization instead.) */
import { Heading } from '../parts';
import type { Admin } from '../session';

export function NoAccess(props: { admin: Admin }) {
  return (
    <>
      <Heading>No access</Heading>
      <p>
        You are signed in as <strong>{props.admin.username}</strong>, but you administer no organization, so there is nothing to show here yet.
      </p>
      <p>Ask an administrator of an organization to add you to it, then sign in again.</p>
    </>
  );
}
