/**
 * An application's client credentials (docs/api.md#clients): the client id, the secret on request,
 * and a new secret after a confirmation, when the old one stops working at once.
 */
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
        Credentials <span class="muted">of {app}</span>
      </Heading>
      <AppNav org={org} app={app} current="credentials" />
      <p>
        The application's own client: <code class="mono">grant_type=client_credentials</code> at <code class="mono">/connect/token</code> with this pair gives a
        token with full control of the application's data.
      </p>
      {rotated && <OnceSecret label="The new client secret" value={rotated.client_secret} />}
      <Waiting loading={credentials.loading && credentials.value === undefined} />
      <Problem error={credentials.error} />
      {credentials.value && (
        <section class="panel">
          <dl class="facts">
            <dt>Client id</dt>
            <dd class="mono" id="credentials-client-id">
              {credentials.value.client_id}
            </dd>
            <dt>Client secret</dt>
            <dd class="mono" id="credentials-secret">
              {shown ? credentials.value.client_secret : '••••••••••••'}
            </dd>
          </dl>
          <div class="actions">
            <button type="button" aria-controls="credentials-secret" aria-pressed={shown} onClick={() => setShown(!shown)}>
              {shown ? 'Hide secret' : 'Show secret'}
            </button>
            <button type="button" class="danger" onClick={() => setConfirming(true)}>
              Generate a new secret…
            </button>
          </div>
        </section>
      )}
      <Confirm open={confirming} title="Generate a new secret?" action="Generate" onCancel={() => setConfirming(false)} onConfirm={confirmRotate}>
        <p>The current secret stops working at once: every program that uses it must be given the new one.</p>
        <Problem error={rotate.error} />
      </Confirm>
    </>
  );
}
