/** The OAuth clients of an application (docs/api.md#clients): a list, and a form to register one whose secret is shown once. */
import { useState } from 'preact/hooks';
import { entitiesOf, request } from '../api';
import { AppNav } from '../app-nav';
import { ClientForm, type ClientMetadata, type OAuthClient } from '../client-form';
import { useLoad } from '../load';
import { Heading, OnceSecret, Problem, useAction, Waiting } from '../parts';
import { Link, pathOf } from '../router';

export function OAuthClients(props: { org: string; app: string }) {
  const { org, app } = props;
  const params = { orgId: org, appId: app };
  const clients = useLoad(
    async () => entitiesOf(await request('get', '/management/orgs/{orgId}/apps/{appId}/clients', { params })) as unknown as OAuthClient[],
    [org, app],
  );
  const [registered, setRegistered] = useState<OAuthClient>();
  const [round, setRound] = useState(0);
  const register = useAction();
  const submit = (metadata: ClientMetadata) =>
    void register.run(async () => {
      const [client] = entitiesOf(
        await request('post', '/management/orgs/{orgId}/apps/{appId}/clients', { params, body: metadata }),
      ) as unknown as OAuthClient[];
      setRegistered(client);
      // A new, empty form for the next one.
      setRound((value) => value + 1);
      clients.reload();
    });
  return (
    <>
      <Heading>
        OAuth clients <span class="muted">of {app}</span>
      </Heading>
      <AppNav org={org} app={app} current="clients" />
      {registered && (
        <p role="status">
          Registered <strong>{registered.client_name ?? registered.client_id}</strong>, client id <code class="mono">{registered.client_id}</code>.
        </p>
      )}
      {registered?.client_secret !== undefined && (
        <OnceSecret label="Its client secret" value={registered.client_secret}>
          <p class="muted">
            The server keeps only a hash of it. A lost secret cannot be read back: register another client, or make this one public and then confidential again
            for a new secret.
          </p>
        </OnceSecret>
      )}
      <Waiting loading={clients.loading && clients.value === undefined} />
      <Problem error={clients.error} />
      {clients.value?.length === 0 && <p>This application has no OAuth client yet.</p>}
      {clients.value !== undefined && clients.value.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>Clients</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Client id</th>
                <th scope="col">Grant types</th>
                <th scope="col">Authentication</th>
              </tr>
            </thead>
            <tbody>
              {clients.value.map((client) => (
                <tr key={client.client_id}>
                  <td>
                    <Link to={pathOf('orgs', org, 'apps', app, 'clients', client.client_id)}>{client.client_name ?? client.client_id}</Link>
                  </td>
                  <td class="mono">{client.client_id}</td>
                  <td>{client.grant_types?.join(', ')}</td>
                  <td>{client.token_endpoint_auth_method}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2 class="section">Register a client</h2>
      <ClientForm key={round} action="Register client" busy={register.busy} error={register.error} onSubmit={submit} />
    </>
  );
}
