/** The OAuth clients of an application (docs/api.md#clients): a list, and a form to register one whose secret is shown once. */
import { t } from '../i18n';
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
        {t('clients.title')} <span class="muted">{t('common.of', { place: app })}</span>
      </Heading>
      <AppNav org={org} app={app} current="clients" />
      {registered && (
        <p role="status">
          {t('clients.registered')} <strong>{registered.client_name ?? registered.client_id}</strong>
          {t('clients.client_id_is')} <code class="mono">{registered.client_id}</code>.
        </p>
      )}
      {registered?.client_secret !== undefined && (
        <OnceSecret label={t('clients.its_secret')} value={registered.client_secret}>
          <p class="muted">{t('clients.hash_only')}</p>
        </OnceSecret>
      )}
      <Waiting loading={clients.loading && clients.value === undefined} />
      <Problem error={clients.error} />
      {clients.value?.length === 0 && <p>{t('clients.none')}</p>}
      {clients.value !== undefined && clients.value.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>{t('clients.caption')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('clients.name')}</th>
                <th scope="col">{t('clients.client_id')}</th>
                <th scope="col">{t('clients.grant_types')}</th>
                <th scope="col">{t('clients.authentication')}</th>
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
      <h2 class="section">{t('clients.register_title')}</h2>
      <ClientForm key={round} action={t('clients.register')} busy={register.busy} error={register.error} onSubmit={submit} />
    </>
  );
}
