/**
 * The signed-in admin's own account (docs/api.md#sessions-and-consents): the browsers they are
 * signed in with, each ended at once, and the applications they allowed, each revoked. Their
 * password and second factors are on the server's account page (docs/account.md).
 */
import { t } from '../i18n';
import { ConsentsPanel, SessionsPanel } from '../access/sign-ins';
import { Heading } from '../parts';
import type { Admin } from '../session';

export function MyAccount(props: { admin: Admin }) {
  const owner = { adminUserId: props.admin.uuid };
  return (
    <>
      <Heading>{t('account.title')}</Heading>
      <p>{t('account.intro', { username: props.admin.username })}</p>
      <p>
        <a href="/management/account">{t('account.page')}</a>
      </p>
      <SessionsPanel owner={owner} self />
      <ConsentsPanel owner={owner} self />
    </>
  );
}
