/**
 * The external OpenID providers of an application (docs/api.md#authorize-endpoint): a list, a form
 * that adds one or edits the one chosen, and remove after a confirmation. The client secret is
 * write-only: the API never returns it, and an edit that leaves the field empty keeps it.
 */
import { t } from '../i18n';
import { useState } from 'preact/hooks';
import type { components } from '~openapi';
import { ActionTable } from '../action-table';
import { entitiesOf, request } from '../api';
import { AppNav } from '../app-nav';
import { useLoad, type Loaded } from '../load';
import { Confirm, Heading, Problem, useAction, useRemoval, Waiting } from '../parts';
import { TextField } from '../access/parts';

type ProviderInput = components['schemas']['IdentityProvider'];

interface Provider {
  uuid: string;
  name: string;
  issuer: string;
  client_id: string;
  has_client_secret: boolean;
  scope: string;
  redirect_uri: string;
}

function ProviderForm(props: { provider?: Provider; busy: boolean; error?: Error; onSubmit: (input: ProviderInput) => void; onCancel?: () => void }) {
  const { provider } = props;
  const [name, setName] = useState(provider?.name ?? '');
  const [issuer, setIssuer] = useState(provider?.issuer ?? '');
  const [clientId, setClientId] = useState(provider?.client_id ?? '');
  const [secret, setSecret] = useState('');
  const [scope, setScope] = useState(provider?.scope ?? 'openid profile email');
  const submit = (event: Event) => {
    event.preventDefault();
    props.onSubmit({
      name: name.trim(),
      issuer: issuer.trim(),
      client_id: clientId.trim(),
      scope: scope.trim(),
      ...(secret !== '' && { client_secret: secret }),
    });
  };
  return (
    <form class="panel" onSubmit={submit} aria-labelledby="provider-form-title">
      <h2 id="provider-form-title">{provider ? t('idps.edit_named', { name: provider.name }) : t('idps.add_title')}</h2>
      <TextField id="provider-name" label={t('idps.name_hint')} value={name} onInput={setName} code />
      <TextField id="provider-issuer" label={t('idps.issuer')} value={issuer} onInput={setIssuer} placeholder="https://accounts.example.com" code />
      <TextField id="provider-client-id" label={t('idps.client_id_at')} value={clientId} onInput={setClientId} code />
      <div class="field">
        <label for="provider-secret">{t('idps.secret_at')}</label>
        <input
          id="provider-secret"
          type="password"
          autocomplete="off"
          value={secret}
          aria-describedby="provider-secret-hint"
          onInput={(event) => setSecret(event.currentTarget.value)}
        />
        <p class="muted" id="provider-secret-hint">
          {provider?.has_client_secret ? t('idps.secret_kept') : t('idps.secret_never_shown')}
        </p>
      </div>
      <TextField id="provider-scope" label={t('idps.scope')} value={scope} onInput={setScope} code />
      <Problem error={props.error} />
      <div class="actions">
        <button type="submit" disabled={props.busy}>
          {provider ? t('idps.save') : t('idps.add')}
        </button>
        {props.onCancel && (
          <button type="button" onClick={props.onCancel}>
            {t('common.cancel')}
          </button>
        )}
      </div>
    </form>
  );
}

/** The providers, each with Edit and Remove, and the redirect URI to register at them. */
function ProviderList(props: { providers: Loaded<Provider[]>; onEdit: (provider: Provider) => void; onRemove: (provider: Provider) => void }) {
  return (
    <>
      <Waiting loading={props.providers.loading && props.providers.value === undefined} />
      <Problem error={props.providers.error} />
      {props.providers.value?.length === 0 && <p>{t('idps.none')}</p>}
      {props.providers.value !== undefined && props.providers.value.length > 0 && (
        <ActionTable
          caption={t('nav.identity_providers')}
          columns={[
            { label: t('idps.name'), cell: (provider) => provider.name, mono: true },
            { label: t('idps.issuer'), cell: (provider) => provider.issuer, mono: true },
            { label: t('clients.client_id'), cell: (provider) => provider.client_id, mono: true, wideOnly: true },
            { label: t('idps.secret'), cell: (provider) => (provider.has_client_secret ? t('idps.secret_stored') : t('idps.secret_none')), wideOnly: true },
          ]}
          rows={props.providers.value}
          keyOf={(provider) => provider.uuid}
          actions={[
            { label: t('idps.edit'), name: (provider) => provider.name, onClick: props.onEdit },
            { label: t('common.remove_ellipsis'), name: (provider) => provider.name, danger: true, onClick: props.onRemove },
          ]}
        />
      )}
      {props.providers.value?.[0] && (
        <p class="muted">
          {t('idps.register_redirect')} <code class="mono">{props.providers.value[0].redirect_uri}</code>
        </p>
      )}
    </>
  );
}

export function IdentityProviders(props: { org: string; app: string }) {
  const { org, app } = props;
  const params = { orgId: org, appId: app };
  const providers = useLoad(
    async () => entitiesOf(await request('get', '/management/orgs/{orgId}/apps/{appId}/identity-providers', { params })) as unknown as Provider[],
    [org, app],
  );
  const [editing, setEditing] = useState<Provider>();
  const [round, setRound] = useState(0);
  const [saved, setSaved] = useState<string>();
  const save = useAction();
  const submit = (input: ProviderInput) =>
    void save.run(async () => {
      if (editing) {
        await request('put', '/management/orgs/{orgId}/apps/{appId}/identity-providers/{providerId}', {
          params: { ...params, providerId: editing.uuid },
          body: input,
        });
      } else {
        await request('post', '/management/orgs/{orgId}/apps/{appId}/identity-providers', { params, body: input });
      }
      setSaved(editing ? t('common.saved_named', { name: input.name }) : t('common.added_named', { name: input.name }));
      setEditing(undefined);
      setRound((value) => value + 1);
      providers.reload();
    });
  const removal = useRemoval(async (provider: Provider) => {
    await request('delete', '/management/orgs/{orgId}/apps/{appId}/identity-providers/{providerId}', { params: { ...params, providerId: provider.uuid } });
    if (editing?.uuid === provider.uuid) setEditing(undefined);
    providers.reload();
  });
  return (
    <>
      <Heading>
        {t('nav.identity_providers')} <span class="muted">{t('common.of', { place: app })}</span>
      </Heading>
      <AppNav org={org} app={app} current="identity-providers" />
      <p>
        {t('idps.intro')} <code class="mono">acr_values=idp:NAME</code>.
      </p>
      {saved && (
        <p class="saved" role="status">
          {saved}
        </p>
      )}
      <ProviderList providers={providers} onEdit={setEditing} onRemove={removal.ask} />
      <ProviderForm
        key={editing?.uuid ?? `new-${round}`}
        provider={editing}
        busy={save.busy}
        error={save.error}
        onSubmit={submit}
        onCancel={editing ? () => setEditing(undefined) : undefined}
      />
      <Confirm
        open={removal.item !== undefined}
        title={t('common.remove_title', { name: removal.item?.name ?? '' })}
        action={t('common.remove')}
        onCancel={removal.cancel}
        onConfirm={removal.confirm}
      >
        <p>{t('idps.remove_text')}</p>
        <Problem error={removal.error} />
      </Confirm>
    </>
  );
}
