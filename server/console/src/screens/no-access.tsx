/** An admin who administers no organization: say so, and what to do, rather than show an empty console. */
import { t } from '../i18n';
import { useState } from 'preact/hooks';
import { Heading } from '../parts';
import { navigate, pathOf } from '../router';
import type { Admin } from '../session';

export function NoAccess(props: { admin: Admin }) {
  const [org, setOrg] = useState('');
  return (
    <>
      <Heading>{t('no_access.title')}</Heading>
      <p>
        {t('no_access.signed_in_as')} <strong>{props.admin.username}</strong>
        {t('no_access.nothing')}
      </p>
      <p>{t('no_access.ask')}</p>
      {props.admin.sysadmin && (
        <form
          class="panel"
          onSubmit={(event) => {
            event.preventDefault();
            navigate(pathOf('orgs', org.trim()));
          }}
        >
          <h2>{t('no_access.open_title')}</h2>
          <p class="muted">{t('no_access.open_hint')}</p>
          <div class="field">
            <label for="org-name">{t('no_access.org')}</label>
            <input id="org-name" required value={org} onInput={(event) => setOrg(event.currentTarget.value)} />
          </div>
          <button type="submit">{t('no_access.open')}</button>
        </form>
      )}
    </>
  );
}
