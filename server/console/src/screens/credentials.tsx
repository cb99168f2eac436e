/** The client credentials of an application and of an organization (docs/api.md#clients), each on its own screen. */
import { request } from '../api';
import { t } from '../i18n';
import { AppNav, OrgNav } from '../app-nav';
import { CredentialsPanel } from '../credentials-panel';
import { Heading } from '../parts';

export function Credentials(props: { org: string; app: string }) {
  const { org, app } = props;
  const params = { orgId: org, appId: app };
  return (
    <>
      <Heading>
        {t('credentials.title')} <span class="muted">{t('common.of', { place: app })}</span>
      </Heading>
      <AppNav org={org} app={app} current="credentials" />
      <p>
        {t('credentials.intro_before')} <code class="mono">grant_type=client_credentials</code> {t('credentials.intro_at')}{' '}
        <code class="mono">/connect/token</code> {t('credentials.intro_after')}
      </p>
      <CredentialsPanel
        read={() => request('get', '/management/orgs/{orgId}/apps/{appId}/credentials', { params })}
        rotate={() => request('post', '/management/orgs/{orgId}/apps/{appId}/credentials', { params })}
        keys={[org, app]}
      />
    </>
  );
}

export function OrgCredentials(props: { org: string }) {
  const params = { orgId: props.org };
  return (
    <>
      <Heading>
        {t('credentials.title')} <span class="muted">{t('common.of', { place: props.org })}</span>
      </Heading>
      <OrgNav org={props.org} current="credentials" />
      <p>
        {t('credentials.org_intro_before')} <code class="mono">grant_type=client_credentials</code> {t('credentials.intro_at')}{' '}
        <code class="mono">/connect/token</code> {t('credentials.org_intro_after')}
      </p>
      <CredentialsPanel
        read={() => request('get', '/management/orgs/{orgId}/credentials', { params })}
        rotate={() => request('post', '/management/orgs/{orgId}/credentials', { params })}
        keys={[props.org]}
      />
    </>
  );
}
