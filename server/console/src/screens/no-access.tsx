/** An admin who administers no organization: say so, and what to do, rather than show an empty console. */
import { useState } from 'preact/hooks';
import { Heading } from '../parts';
import { navigate, pathOf } from '../router';
import type { Admin } from '../session';

export function NoAccess(props: { admin: Admin }) {
  const [org, setOrg] = useState('');
  return (
    <>
      <Heading>No access</Heading>
      <p>
        You are signed in as <strong>{props.admin.username}</strong>, but you administer no organization, so there is nothing to show here yet.
      </p>
      <p>Ask an administrator of an organization to add you to it, then sign in again.</p>
      {props.admin.sysadmin && (
        <form
          class="panel"
          onSubmit={(event) => {
            event.preventDefault();
            navigate(pathOf('orgs', org.trim()));
          }}
        >
          <h2>Open an organization</h2>
          <p class="muted">As a sysadmin you may open any organization by its name.</p>
          <div class="field">
            <label for="org-name">Organization</label>
            <input id="org-name" required value={org} onInput={(event) => setOrg(event.currentTarget.value)} />
          </div>
          <button type="submit">Open</button>
        </form>
      )}
    </>
  );
}
