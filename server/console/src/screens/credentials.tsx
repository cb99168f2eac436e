/**
 * An application's client credentials (docs/api.md#clients): the client id, the secret on request,
 * and a new secret after a confirmation, when the old one stops working at once.
 */
import { t } from '../i18n';
import { useState } from 'preact/hooks';
import { request, type Envelope } from '../api';
import { AppNav } from '../app-nav';
import { useLoad } from '../load';
import { Confirm, Heading, OnceSecret, Problem, useAction, Waiting } from '../parts';

interface Credentials {
  client_id: string;
  client_secret: string;
}

const credentialsOf = (envelope: Envelope) => (envelope as Envelope & { credentials: Credentials }).credentials;

export function Credentials(props: { org: string; app: string }) {
  const { org, app } = props;
  const params = { orgId: org, appId: app };
  const credentials = useLoad(async () => credentialsOf(await request('get', '/management/orgs/{orgId}/apps/{appId}/credentials', { params })), [org, app]);
  const [shown, setShown] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [rotated, setRotated] = useState<Credentials>();
  const rotate = useAction();
  const confirmRotate = () =>
    void rotate.run(async () => {
      setRotated(credentialsOf(await request('post', '/management/orgs/{orgId}/apps/{appId}/credentials', { params })));
      setConfirming(false);
      setShown(false);
      credentials.reload();
    });
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
      {rotated && <OnceSecret label={t('credentials.new_secret')} value={rotated.client_secret} />}
      <Waiting loading={credentials.loading && credentials.value === undefined} />
      <Problem error={credentials.error} />
      {credentials.value && (
        <section class="panel">
          <dl class="facts">
            <dt>{t('clients.client_id')}</dt>
            <dd class="mono" id="credentials-client-id">
              {credentials.value.client_id}
            </dd>
            <dt>{t('credentials.secret')}</dt>
            <dd class="mono" id="credentials-secret">
              {shown ? credentials.value.client_secret : '••••••••••••'}
            </dd>
          </dl>
          <div class="actions">
            <button type="button" aria-controls="credentials-secret" aria-pressed={shown} onClick={() => setShown(!shown)}>
              {shown ? t('credentials.hide') : t('credentials.show')}
            </button>
            <button type="button" class="danger" onClick={() => setConfirming(true)}>
              {t('credentials.rotate_ellipsis')}
            </button>
          </div>
        </section>
      )}
      <Confirm
        open={confirming}
        title={t('credentials.rotate_title')}
        action={t('credentials.rotate')}
        onCancel={() => setConfirming(false)}
        onConfirm={confirmRotate}
      >
        <p>{t('credentials.rotate_text')}</p>
        <Problem error={rotate.error} />
      </Confirm>
    </>
  );
}
