/**
 * The server: its version (GET /status), whether it can serve (GET /readyz: the database answers
 * and is migrated, the signing keys are loaded), and for a sysadmin the signing keys, which are
 * active, and a rotation after a confirmation (docs/api.md#tokens).
 */
import { t } from '../i18n';
import type { MessageKey } from '../messages';
import { useState } from 'preact/hooks';
import { entitiesOf, request } from '../api';
import { useLoad } from '../load';
import { Confirm, Heading, Problem, useAction, Waiting } from '../parts';
import type { Admin } from '../session';

interface PublishedKey {
  kid: string;
  alg: string;
  kty: string;
  active?: string;
}

const USES: Record<string, MessageKey> = { access_token: 'keys.use.access_token', id_token: 'keys.use.id_token' };

function SigningKeys() {
  const keys = useLoad(async () => entitiesOf(await request('get', '/management/keys', { params: {} })) as unknown as PublishedKey[], []);
  const [confirming, setConfirming] = useState(false);
  const [rotated, setRotated] = useState(false);
  const rotate = useAction();
  const confirmRotate = () =>
    void rotate.run(async () => {
      await request('post', '/management/keys/rotate', { params: {} });
      setConfirming(false);
      setRotated(true);
      keys.reload();
    });
  const sorted = [...(keys.value ?? [])].sort((a, b) => Number(b.active !== undefined) - Number(a.active !== undefined));
  return (
    <section class="panel" aria-labelledby="keys-title">
      <h2 id="keys-title">{t('keys.title')}</h2>
      <Waiting loading={keys.loading && keys.value === undefined} />
      <Problem error={keys.error} />
      {rotated && (
        <p class="saved" role="status">
          {t('keys.rotated')}
        </p>
      )}
      {keys.value && (
        <div class="table-wrap">
          <table>
            <caption>{t('keys.caption')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('keys.kid')}</th>
                <th scope="col">{t('keys.alg')}</th>
                <th scope="col">{t('keys.state')}</th>
              </tr>
            </thead>
            <tbody>
              {sorted.map((key) => (
                <tr key={key.kid}>
                  <td>
                    <code class="mono">{key.kid}</code>
                  </td>
                  <td>{key.alg}</td>
                  <td>
                    {key.active ? <strong>{t('keys.active', { use: key.active in USES ? t(USES[key.active]) : key.active })}</strong> : t('keys.retired')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="actions">
        <button type="button" class="danger" onClick={() => setConfirming(true)}>
          {t('keys.rotate_ellipsis')}
        </button>
      </div>
      <Confirm open={confirming} title={t('keys.rotate_title')} action={t('keys.rotate')} onCancel={() => setConfirming(false)} onConfirm={confirmRotate}>
        <p>{t('keys.rotate_text')}</p>
        <Problem error={rotate.error} />
      </Confirm>
    </section>
  );
}

export function ServerStatus(props: { admin: Admin }) {
  const status = useLoad(async () => (await request('get', '/status', { params: {} })) as unknown as { version: string }, []);
  const ready = useLoad(async () => {
    try {
      await request('get', '/readyz', { params: {} });
      return t('server.ready');
    } catch (error) {
      return (error as Error).message;
    }
  }, []);
  return (
    <>
      <Heading>{t('server.title')}</Heading>
      <Waiting loading={status.loading && status.value === undefined} />
      <Problem error={status.error} />
      <section class="panel">
        <dl class="facts">
          <dt>{t('server.version')}</dt>
          <dd id="server-version">{status.value?.version}</dd>
          <dt>{t('server.readiness')}</dt>
          <dd id="server-ready">{ready.value}</dd>
          <dt>{t('server.address')}</dt>
          <dd class="mono">{location.origin}</dd>
        </dl>
      </section>
      {props.admin.sysadmin ? <SigningKeys /> : <p class="muted">{t('server.sysadmin_only')}</p>}
    </>
  );
}
