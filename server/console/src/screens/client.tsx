/** One OAuth client: its metadata to edit, or delete it (and revoke its grants) after a confirmation. */
import { dateTime, t } from '../i18n';
import { useState } from 'preact/hooks';
import { entitiesOf, request } from '../api';
import { AppNav } from '../app-nav';
import { ClientForm, metadataOf, type ClientMetadata, type OAuthClient } from '../client-form';
import { useLoad } from '../load';
import { Confirm, Heading, OnceSecret, Problem, useAction, Waiting } from '../parts';
import { navigate, pathOf } from '../router';
import { SettingsPanel, type Setting } from '../settings';

const CLIENT_SETTINGS: readonly Setting[] = [
  { name: 'require_signed_request_object', label: 'settings.signed_requests', hint: 'settings.signed_requests_hint' },
];

export function OAuthClientScreen(props: { org: string; app: string; clientId: string }) {
  const { org, app, clientId } = props;
  const params = { orgId: org, appId: app, clientId };
  const one = async (answer: Promise<Parameters<typeof entitiesOf>[0]>) => entitiesOf(await answer)[0] as unknown as OAuthClient;
  const client = useLoad(() => one(request('get', '/management/orgs/{orgId}/apps/{appId}/clients/{clientId}', { params })), [org, app, clientId]);
  const [saved, setSaved] = useState<OAuthClient>();
  const [confirming, setConfirming] = useState(false);
  const save = useAction();
  const remove = useAction();
  const submit = (metadata: ClientMetadata) =>
    void save.run(async () => {
      setSaved(await one(request('put', '/management/orgs/{orgId}/apps/{appId}/clients/{clientId}', { params, body: metadata })));
      client.reload();
    });
  // The whole metadata goes back with the one setting changed (PUT replaces it, RFC 7592 2.2).
  const saveSetting = async (name: string, on: boolean) => {
    const answer = await one(
      request('put', '/management/orgs/{orgId}/apps/{appId}/clients/{clientId}', { params, body: { ...metadataOf(client.value), [name]: on } }),
    );
    client.reload();
    return answer;
  };
  const confirmDelete = () =>
    void remove.run(async () => {
      await request('delete', '/management/orgs/{orgId}/apps/{appId}/clients/{clientId}', { params });
      setConfirming(false);
      navigate(pathOf('orgs', org, 'apps', app, 'clients'));
    });
  const title = client.value?.client_name ?? clientId;
  return (
    <>
      <Heading>
        {title} <span class="muted">{t('client.of', { app })}</span>
      </Heading>
      <AppNav org={org} app={app} current="clients" />
      <Waiting loading={client.loading && client.value === undefined} />
      <Problem error={client.error} />
      {saved && save.error === undefined && (
        <p class="saved" role="status">
          {t('common.saved')}
        </p>
      )}
      {/* A client that comes to need a secret (public to confidential) gets one, shown here once. */}
      {saved?.client_secret !== undefined && <OnceSecret label={t('client.new_secret')} value={saved.client_secret} />}
      {client.value && (
        <>
          <p>
            {t('clients.client_id')} <code class="mono">{client.value.client_id}</code>
            {t('client.registered_on', { date: dateTime(client.value.client_id_issued_at * 1000) })}
          </p>
          <ClientForm
            key={JSON.stringify(client.value)}
            client={client.value}
            action={t('common.save')}
            busy={save.busy}
            error={save.error}
            onSubmit={submit}
          />
          <SettingsPanel title={t('settings.client_title')} settings={CLIENT_SETTINGS} stored={client.value} save={saveSetting} />
          <div class="actions">
            <button type="button" class="danger" onClick={() => setConfirming(true)}>
              {t('common.delete_ellipsis')}
            </button>
          </div>
        </>
      )}
      <Confirm
        open={confirming}
        title={t('entity.confirm_title', { name: title })}
        action={t('common.delete')}
        onCancel={() => setConfirming(false)}
        onConfirm={confirmDelete}
      >
        <p>{t('client.confirm_text')}</p>
        <Problem error={remove.error} />
      </Confirm>
    </>
  );
}
