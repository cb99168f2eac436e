/**
 * Decides who is calling (docs/api.md#principals): `Authorization: Bearer`, `Authorization: DPoP`
 * with its proof (RFC 9449 7, docs/api.md#dpop), or for Usergrid SDK compatibility
 * `?access_token=` and `?client_id=&client_secret=`. No credentials → guest.
 * Credentials that do not check out → 401, never a silent downgrade to guest. Run by the
 * `caller` middleware of the areas that take tokens; the OAuth endpoints authenticate clients
 * themselves.
 */
import type { Context } from 'hono';
import type { Env } from '../env.js';
import { GUEST, type Principal } from '../../src/principal.js';
import { actingPrincipalOf, signedInAtOf } from '../../src/identity/tokens/access-tokens.js';
import { presentedTokenOf, verifyPresentedToken, type DpopRequest } from '../../src/identity/tokens/dpop.js';
import { authenticateClientCredentials } from '../../src/identity/sign-in/authenticate.js';
import { Unauthorized } from '../../src/errors.js';
import type { Authentication } from '../../src/access/app-access.js';
import type { Deps } from '../../src/deps.js';

/** A query parameter of the request (hono's reader, which does not parse the whole URL). */
type Query = (name: string) => string | undefined;

/** The caller, and when a user behind a token signed in (seconds; access-tokens.ts signedInAtOf). */
interface Caller {
  principal: Principal;
  signedInAt?: number;
  authentication?: Authentication;
}

async function resolvePrincipal(deps: Deps, authorization: string | undefined, query: Query, request: DpopRequest): Promise<Caller> {
  const fromQuery = query('access_token');
  const presented = presentedTokenOf(authorization) ?? (fromQuery ? { scheme: 'parameter' as const, token: fromQuery } : undefined);
  if (presented) {
    const claims = await verifyPresentedToken(deps, presented, request);
    const authentication: Authentication = {
      ...(typeof claims.acr === 'string' && { acr: claims.acr }),
      ...(typeof claims.auth_time === 'number' && { authTime: claims.auth_time }),
      scheme: presented.scheme === 'DPoP' ? 'DPoP' : 'Bearer',
    };
    return { principal: await actingPrincipalOf(deps, claims), signedInAt: signedInAtOf(claims), authentication };
  }
  if (authorization && !/^Basic\s/i.test(authorization)) {
    throw Unauthorized('unsupported Authorization scheme; use Bearer or DPoP', { headers: { 'WWW-Authenticate': 'Bearer' } });
  }
  const clientId = query('client_id');
  const clientSecret = query('client_secret');
  if (clientId && clientSecret) {
    try {
      return { principal: await authenticateClientCredentials(deps, clientId, clientSecret) };
    } catch {
      throw Unauthorized('client_id and client_secret do not match');
    }
  }
  return { principal: GUEST };
}

/** The caller of the request; when a token says when its user signed in, that goes on `c.var.signedInAt`. */
export async function callerOf(c: Context<Env>): Promise<Principal> {
  const caller = await resolvePrincipal(c.get('deps'), c.req.header('authorization'), (name) => c.req.query(name), dpopRequestOf(c));
  if (caller.signedInAt !== undefined) c.set('signedInAt', caller.signedInAt);
  if (caller.authentication !== undefined) c.set('authentication', caller.authentication);
  return caller.principal;
}

/** The request as a DPoP proof speaks of it (RFC 9449 4.2): the proof, the method, the path. */
export function dpopRequestOf(c: Context<Env>): DpopRequest {
  return { proof: c.req.header('dpop'), method: c.req.method, path: c.req.path };
}
