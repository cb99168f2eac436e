/**
 * An OAuth client's metadata as a form (RFC 7591 2; docs/api.md#clients): its name, redirect URIs
 * one per line, grant types, how it authenticates at the token endpoint and its scopes. Register
 * and edit share it; what the form does not show is kept as it was.
 */
import { t } from './i18n';
import type { MessageKey } from './messages';
import { useState } from 'preact/hooks';
import type { components } from '~openapi';
import { Problem } from './parts';

export type ClientMetadata = components['schemas']['ClientMetadata'];

/** A client as the API answers it: its metadata, its id, and its secret only when just made. */
export type OAuthClient = ClientMetadata & { client_id: string; client_id_issued_at: number; client_secret?: string };

const GRANTS: [grant: string, label: MessageKey][] = [
  ['authorization_code', 'form.grant.authorization_code'],
  ['refresh_token', 'form.grant.refresh_token'],
  ['client_credentials', 'form.grant.client_credentials'],
  ['password', 'form.grant.password'],
  ['urn:ietf:params:oauth:grant-type:token-exchange', 'form.grant.token_exchange'],
  ['urn:ietf:params:oauth:grant-type:device_code', 'form.grant.device_code'],
];

const AUTH_METHODS: [method: string, label: MessageKey][] = [
  ['client_secret_basic', 'form.auth.basic'],
  ['client_secret_post', 'form.auth.post'],
  ['none', 'form.auth.none'],
];

// What the API shows about a client but does not take back in its metadata.
const NOT_METADATA = [
  'uuid',
  'type',
  'client_Id',
  'client_id',
  'client_id_issued_at',
  'client_secret',
  'client_secret_expires_at',
  'created',
  'modified',
  'metadata',
];

/** The metadata of `client` the API takes back: what a PUT sends for the fields the form leaves alone. */
export function metadataOf(client: OAuthClient | undefined): ClientMetadata {
  const metadata: Record<string, unknown> = { ...client };
  for (const key of NOT_METADATA) delete metadata[key];
  return metadata as ClientMetadata;
}

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

export function ClientForm(props: { client?: OAuthClient; action: string; busy: boolean; error?: Error; onSubmit: (metadata: ClientMetadata) => void }) {
  const { client } = props;
  const [name, setName] = useState(client?.client_name ?? '');
  const [redirects, setRedirects] = useState((client?.redirect_uris ?? []).join('\n'));
  const [grants, setGrants] = useState<string[]>(client?.grant_types ?? ['authorization_code', 'refresh_token']);
  const [method, setMethod] = useState<string>(client?.token_endpoint_auth_method ?? 'client_secret_basic');
  const [scope, setScope] = useState(client?.scope ?? '');
  const toggle = (grant: string, on: boolean) => setGrants((chosen) => (on ? [...chosen, grant] : chosen.filter((item) => item !== grant)));
  const submit = (event: Event) => {
    event.preventDefault();
    const metadata: ClientMetadata = {
      ...metadataOf(client),
      client_name: name.trim(),
      redirect_uris: lines(redirects),
      grant_types: grants,
      token_endpoint_auth_method: method as ClientMetadata['token_endpoint_auth_method'],
      scope: scope.trim(),
    };
    // An empty scope: the client may have the defaults (the metadata without one).
    if (metadata.scope === '') delete metadata.scope;
    props.onSubmit(metadata);
  };
  const fields = (props.error as { fields?: Record<string, string> } | undefined)?.fields ?? {};
  return (
    <form class="panel" onSubmit={submit}>
      <div class="field">
        <label for="client-name">{t('form.name')}</label>
        <input id="client-name" required value={name} onInput={(event) => setName(event.currentTarget.value)} autocomplete="off" />
      </div>
      <div class="field">
        <label for="client-redirects">{t('form.redirects')}</label>
        <textarea
          id="client-redirects"
          class="json"
          rows={3}
          spellcheck={false}
          value={redirects}
          aria-invalid={fields.redirect_uris !== undefined}
          onInput={(event) => setRedirects(event.currentTarget.value)}
        />
      </div>
      <fieldset class="field">
        <legend>{t('form.grants')}</legend>
        {GRANTS.map(([grant, label]) => (
          <label key={grant} class="check">
            <input
              type="checkbox"
              name="grant"
              value={grant}
              checked={grants.includes(grant)}
              onChange={(event) => toggle(grant, event.currentTarget.checked)}
            />
            {t(label)}
          </label>
        ))}
      </fieldset>
      <div class="field">
        <label for="client-auth">{t('form.auth')}</label>
        <select id="client-auth" value={method} onChange={(event) => setMethod(event.currentTarget.value)}>
          {AUTH_METHODS.map(([value, label]) => (
            <option key={value} value={value}>
              {t(label)}
            </option>
          ))}
          {!AUTH_METHODS.some(([value]) => value === method) && <option value={method}>{method}</option>}
        </select>
      </div>
      <div class="field">
        <label for="client-scope">{t('form.scope')}</label>
        <input id="client-scope" value={scope} onInput={(event) => setScope(event.currentTarget.value)} autocomplete="off" />
      </div>
      <Problem error={props.error} />
      <button type="submit" disabled={props.busy}>
        {props.action}
      </button>
    </form>
  );
}
