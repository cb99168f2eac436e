/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0): `id_token_hint` names the client
 * (an ID token this server signed, expired or not), `post_logout_redirect_uri` must be registered
 * for that client exactly, `state` is passed back. Anything that does not check out is shown on the
 * error page rather than followed.
 */
import { compactVerify, decodeProtectedHeader } from 'jose';
import type { Deps } from '../../deps.js';
import { InvalidRequest } from '../../errors.js';
import { issuerOf } from '../issuer.js';
import { findClient, type Client } from '../clients/find.js';

export interface LogoutRequest {
  client?: Client;
  /** Where to send the browser afterwards, with `state` already appended. */
  redirect?: string;
  /** The parameters to carry to the confirming POST. */
  fields: Record<string, string>;
}

/** The client an ID token was issued to, when this server signed it. */
async function clientIdOfHint(deps: Deps, idTokenHint: string): Promise<string> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(idTokenHint).kid;
  } catch {
    throw InvalidRequest('id_token_hint is not a JWT');
  }
  const key = kid ? await deps.keys.verificationKey(kid) : null;
  if (!key) throw InvalidRequest('id_token_hint was not signed by this server');
  let payload: { iss?: unknown; aud?: unknown };
  try {
    // Only the signature: an expired ID token still names its client (RP-Initiated Logout 2).
    const verified = await compactVerify(idTokenHint, key.key, { algorithms: [key.alg] });
    payload = JSON.parse(new TextDecoder().decode(verified.payload)) as typeof payload;
  } catch {
    throw InvalidRequest('id_token_hint was not signed by this server');
  }
  if (payload.iss !== issuerOf(deps)) throw InvalidRequest('id_token_hint was issued by another server');
  const audience = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud;
  if (typeof audience !== 'string') throw InvalidRequest('id_token_hint has no audience');
  return audience;
}

export async function parseLogoutRequest(deps: Deps, params: URLSearchParams): Promise<LogoutRequest> {
  const get = (name: string) => params.get(name) || undefined;
  const idTokenHint = get('id_token_hint');
  const hinted = idTokenHint ? await clientIdOfHint(deps, idTokenHint) : undefined;
  const clientId = get('client_id');
  if (hinted && clientId && hinted !== clientId) throw InvalidRequest('client_id does not match the audience of id_token_hint');
  const id = hinted ?? clientId;
  const client = id ? await findClient(deps, id) : undefined;
  if (id && !client) throw InvalidRequest(`no client '${id}'`);
  const postLogout = get('post_logout_redirect_uri');
  const state = get('state');
  let redirect: string | undefined;
  if (postLogout) {
    if (!client) throw InvalidRequest('post_logout_redirect_uri needs id_token_hint or client_id to know the client');
    if (!client.postLogoutRedirectUris.includes(postLogout)) throw InvalidRequest('post_logout_redirect_uri is not registered for this client');
    const url = new URL(postLogout);
    if (state) url.searchParams.set('state', state);
    redirect = url.toString();
  }
  const fields: Record<string, string> = {};
  for (const name of ['client_id', 'post_logout_redirect_uri', 'state', 'ui_locales']) {
    const value = name === 'client_id' ? client?.clientId : get(name);
    if (value) fields[name] = value;
  }
  return { client, redirect, fields };
}
