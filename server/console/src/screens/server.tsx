/**
 * The server: its version (GET /status), whether it can serve (GET /readyz: the database answers
 * and is migrated, the signing keys are loaded), and for a sysadmin the database kind and the
 * uptime (GET /status answers them to a sysadmin only), the signing keys, which are active, and a
 * rotation after a confirmation (docs/api.md#tokens).
 */
import { Fragment } from 'preact';
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

/** 93784 → `1 d 2 h 3 min` (seconds left out past a minute). */
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

const USES: Record<string, string> = { access_token: 'access tokens', id_token: 'ID tokens' };

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
      <h2 id="keys-title">Signing keys</h2>
      <Waiting loading={keys.loading && keys.value === undefined} />
      <Problem error={keys.error} />
      {rotated && (
        <p class="saved" role="status">
          Rotated: new tokens are signed with the new keys; the old ones stay published until the tokens they signed expire.
        </p>
      )}
      {keys.value && (
        <div class="table-wrap">
          <table>
            <caption>Published in the JWKS</caption>
            <thead>
              <tr>
                <th scope="col">Key id</th>
                <th scope="col">Algorithm</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {sorted.map((key) => (
                <tr key={key.kid}>
                  <td>
                    <code class="mono">{key.kid}</code>
                  </td>
                  <td>{key.alg}</td>
                  <td>{key.active ? <strong>active, signs {USES[key.active] ?? key.active}</strong> : 'retired, verifies until its tokens expire'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="actions">
        <button type="button" class="danger" onClick={() => setConfirming(true)}>
          Rotate keys…
        </button>
      </div>
      <Confirm open={confirming} title="Rotate the signing keys?" action="Rotate" onCancel={() => setConfirming(false)} onConfirm={confirmRotate}>
        <p>New keys sign every token from now on. Tokens already issued keep working until they expire: their keys stay published until then.</p>
        <Problem error={rotate.error} />
      </Confirm>
    </section>
  );
}

/** A few figures since the server started, from GET /metrics (read once, when the screen opens). */
function Figures() {
  const metrics = useLoad(async () => parseMetrics(await requestMetrics()), []);
  const samples = metrics.value ?? [];
  const count = (name: string, where?: (labels: Record<string, string>) => boolean) => Math.round(sumOf(samples, name, where)).toLocaleString();
  const figures: [id: string, label: string, value: string][] = [
    ['requests', 'Requests answered', count('idp_http_request_duration_seconds_count')],
    ['tokens', 'Tokens issued', count('idp_tokens_issued_total')],
    ['sign-ins-refused', 'Password sign-ins refused', count('idp_sign_ins_total', (labels) => labels.result !== 'success')],
    ['push-sent', 'Push deliveries sent', count('idp_push_deliveries_total', (labels) => labels.outcome === 'sent')],
    [
      'push-failed',
      'Push deliveries refused',
      count('idp_push_deliveries_total', (labels) => labels.outcome === 'unregistered' || labels.outcome === 'rejected'),
    ],
    ['push-queue', 'Push deliveries waiting', count('idp_push_queue_depth')],
    ['memory', 'Memory (resident)', `${Math.round(sumOf(samples, 'process_resident_memory_bytes') / 1048576)} MiB`],
  ];
  return (
    <section class="panel" aria-labelledby="figures-title">
      <h2 id="figures-title">Since it started</h2>
      <Waiting loading={metrics.loading && metrics.value === undefined} />
      <Problem error={metrics.error} />
      {metrics.value && (
        <dl class="facts">
          {figures.map(([id, label, value]) => (
            <Fragment key={id}>
              <dt>{label}</dt>
              <dd id={`figure-${id}`}>{value}</dd>
            </Fragment>
          ))}
        </dl>
      )}
      <p class="muted">From GET /metrics, which Prometheus reads too.</p>
    </section>
  );
}

export function ServerStatus(props: { admin: Admin }) {
  const status = useLoad(async () => (await request('get', '/status', { params: {} })) as unknown as components['schemas']['Status'], []);
  const ready = useLoad(async () => {
    try {
      await request('get', '/readyz', { params: {} });
      return 'ready: the database answers and is migrated, the signing keys are loaded';
    } catch (error) {
      return (error as Error).message;
    }
  }, []);
  return (
    <>
      <Heading>Server</Heading>
      <Waiting loading={status.loading && status.value === undefined} />
      <Problem error={status.error} />
      <section class="panel">
        <dl class="facts">
          <dt>Version</dt>
          <dd id="server-version">{status.value?.version}</dd>
          <dt>Readiness</dt>
          <dd id="server-ready">{ready.value}</dd>
          <dt>Address</dt>
          <dd class="mono">{location.origin}</dd>
          {status.value?.database !== undefined && (
            <>
              <dt>Database</dt>
              <dd id="server-database">{status.value.database === 'postgres' ? 'PostgreSQL' : 'SQLite'}</dd>
            </>
          )}
          {status.value?.uptime !== undefined && (
            <>
              <dt>Up for</dt>
              <dd id="server-uptime">{durationOf(status.value.uptime)}</dd>
            </>
          )}
        </dl>
      </section>
      {props.admin.sysadmin && <Figures />}
      {props.admin.sysadmin ? <SigningKeys /> : <p class="muted">Signing keys are a sysadmin's to see and rotate.</p>}
    </>
  );
}
