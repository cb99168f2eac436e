/** An admin who administers no organization: say so, and what to do, rather than show an empty console. (A sysadmin sees every organization instead.) */
import { t } from '../i18n';
import { Heading } from '../parts';
import type { Admin } from '../session';

export function NoAccess(props: { admin: Admin }) {
  return (
    <>
      <Heading>{t('no_access.title')}</Heading>
      <p>
        {t('no_access.signed_in_as')} <strong>{props.admin.username}</strong>
        {t('no_access.nothing')}
      </p>
      <p>{t('no_access.ask')}</p>
    </>
  );
}
