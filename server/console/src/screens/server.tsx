/**
 * The server: its version (GET /status), whether it can serve (GET /readyz: the database answers
 * and is migrated, the signing keys are loaded), and for a sysadmin the database kind and the
 * uptime (GET /status answers them to a sysadmin only), the signing keys, which are active, and a
 * rotation after a confirmation (docs/api.md#tokens).
 */
import { Fragment } from 'preact';
import { locale, t } from '../i18n';
import type { MessageKey } from '../messages';
import { useState } from 'preact/hooks';
import type { components } from '~openapi';
import { entitiesOf, request, requestMetrics } from '../api';
import { parseMetrics, sumOf } from '../metrics';
import { useLoad } from '../load';
import { Confirm, Heading, Problem, useAction, Waiting } from '../parts';
import type { Admin } from '../session';

interface PublishedKey {
  kid: string;
  alg: string;
  kty: string;
  active?: string;
}

/** 93784 → `1 d 2 h 3 min` (seconds left out past a minute; the unit symbols are the same in every language). */
function durationOf(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const parts: [number, string][] = [
    [Math.floor(seconds / 86400), 'd'],
    [Math.floor((seconds % 86400) / 3600), 'h'],
    [Math.floor((seconds % 3600) / 60), 'min'],
  ];
  return parts
    .filter(([value]) => value > 0)
    .map(([value, unit]) => `${value} ${unit}`)
    .join(' ');
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

/** A few figures since the server started, from GET /metrics (read once, when the screen opens). */
function Figures() {
  const metrics = useLoad(async () => parseMetrics(await requestMetrics()), []);
  const samples = metrics.value ?? [];
  const count = (name: string, where?: (labels: Record<string, string>) => boolean) => Math.round(sumOf(samples, name, where)).toLocaleString(locale());
  const figures: [id: string, label: MessageKey, value: string][] = [
    ['requests', 'figures.requests', count('idp_http_request_duration_seconds_count')],
    ['tokens', 'figures.tokens', count('idp_tokens_issued_total')],
    ['sign-ins-refused', 'figures.sign_ins_refused', count('idp_sign_ins_total', (labels) => labels.result !== 'success')],
    ['push-sent', 'figures.push_sent', count('idp_push_deliveries_total', (labels) => labels.outcome === 'sent')],
    ['push-failed', 'figures.push_failed', count('idp_push_deliveries_total', (labels) => labels.outcome === 'unregistered' || labels.outcome === 'rejected')],
    ['push-queue', 'figures.push_queue', count('idp_push_queue_depth')],
    ['memory', 'figures.memory', `${Math.round(sumOf(samples, 'process_resident_memory_bytes') / 1048576).toLocaleString(locale())} MiB`],
  ];
  return (
    <section class="panel" aria-labelledby="figures-title">
      <h2 id="figures-title">{t('figures.title')}</h2>
      <Waiting loading={metrics.loading && metrics.value === undefined} />
      <Problem error={metrics.error} />
      {metrics.value && (
        <dl class="facts">
          {figures.map(([id, label, value]) => (
            <Fragment key={id}>
              <dt>{t(label)}</dt>
              <dd id={`figure-${id}`}>{value}</dd>
            </Fragment>
          ))}
        </dl>
      )}
      <p class="muted">{t('figures.source')}</p>
    </section>
  );
}

export function ServerStatus(props: { admin: Admin }) {
  const status = useLoad(async () => (await request('get', '/status', { params: {} })) as unknown as components['schemas']['Status'], []);
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
          {status.value?.database !== undefined && (
            <>
              <dt>{t('server.database')}</dt>
              <dd id="server-database">{status.value.database === 'postgres' ? 'PostgreSQL' : 'SQLite'}</dd>
            </>
          )}
          {status.value?.uptime !== undefined && (
            <>
              <dt>{t('server.uptime')}</dt>
              <dd id="server-uptime">{durationOf(status.value.uptime)}</dd>
            </>
          )}
        </dl>
      </section>
      {props.admin.sysadmin && <Figures />}
      {props.admin.sysadmin ? <SigningKeys /> : <p class="muted">{t('server.sysadmin_only')}</p>}
    </>
  );
}
