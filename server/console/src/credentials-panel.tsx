/**
 * A pair of client credentials (docs/api.md#clients), an application's or an organization's: the
 * client id, the secret on request, and a new secret after a confirmation, when the old one stops
 * working at once, shown once.
 */
import { useState } from 'preact/hooks';
import { t } from './i18n';
import type { Envelope } from './api';
import { useLoad } from './load';
import { Confirm, OnceSecret, Problem, useAction, Waiting } from './parts';

interface Credentials {
  client_id: string;
  client_secret: string;
}

const credentialsOf = (envelope: Envelope) => (envelope as Envelope & { credentials: Credentials }).credentials;

/** `read` and `rotate` call the owner's `…/credentials` with GET and POST; `keys` say when to read again. */
export function CredentialsPanel(props: { read: () => Promise<Envelope>; rotate: () => Promise<Envelope>; keys: readonly unknown[] }) {
  const credentials = useLoad(async () => credentialsOf(await props.read()), props.keys);
  const [shown, setShown] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [rotated, setRotated] = useState<Credentials>();
  const rotate = useAction();
  const confirmRotate = () =>
    void rotate.run(async () => {
      setRotated(credentialsOf(await props.rotate()));
      setConfirming(false);
      setShown(false);
      credentials.reload();
    });
  return (
    <>
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
