/**
 * Decides who is calling (docs/api.md#principals): `Authorization: Bearer`, or for Usergrid
 * SDK compatibility `?access_token=` and `?client_id=&client_secret=`. No credentials → guest.
 * Credentials that do not check out → 401, never a silent downgrade to guest. Run by the
 * `caller` middleware of the areas that take tokens; the OAuth endpoints authenticate clients
 * themselves.
 */
import type { Context } from 'hono';
import type { Env } from '../env.js';
import { GUEST, type Principal } from '../../src/principal.js';
import { signedInAtOf, verifyAccessToken } from '../../src/identity/tokens/access-tokens.js';
import { authenticateClientCredentials } from '../../src/identity/sign-in/authenticate.js';
import { Unauthorized } from '../../src/errors.js';
import type { Deps } from '../../src/deps.js';

/** A query parameter of the request (hono's reader, which does not parse the whole URL). */
type Query = (name: string) => string | undefined;

/** The caller, and when a user behind a token signed in (seconds; access-tokens.ts signedInAtOf). */
interface Caller {
  principal: Principal;
  signedInAt?: number;
}

async function resolvePrincipal(deps: Deps, authorization: string | undefined, query: Query): Promise<Caller> {
  const bearer = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  const token = bearer ?? query('access_token');
  if (token) {
    const { principal, claims } = await verifyAccessToken(deps, token);
    return { principal, signedInAt: signedInAtOf(claims) };
  }
  if (authorization && !/^Basic\s/i.test(authorization)) {
    throw Unauthorized('unsupported Authorization scheme; use Bearer', { headers: { 'WWW-Authenticate': 'Bearer' } });
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
  const caller = await resolvePrincipal(c.get('deps'), c.req.header('authorization'), (name) => c.req.query(name));
  if (caller.signedInAt !== undefined) c.set('signedInAt', caller.signedInAt);
  return caller.principal;
}
