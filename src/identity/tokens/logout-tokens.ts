/**
 * Logout tokens (OIDC Back-Channel Logout 1.0 2.4): a JWT of type `logout+jwt`, signed with the
 * ID token key, that says a user (`sub`) or one of their sessions (`sid`) signed out. It carries
 * the back-channel logout event and never a `nonce` (2.4), and lives two minutes: it is signed
 * at each attempt, so a retry posts a fresh one.
 */
import { randomUUID } from 'node:crypto';
import { signTokenOnThreadPool } from '../keys/token-signing-on-thread-pool.js';
import type { Deps } from '../../deps.js';
import { issuerOf } from '../issuer.js';

const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** How long a logout token is good for, in seconds: enough for one delivery. */
const LOGOUT_TOKEN_TTL = 120;

export interface LogoutTokenRequest {
  clientId: string;
  /** The user who signed out; with `sid`, or alone when every session of theirs ended. */
  sub?: string | null;
  /** The session that ended (OIDC Front-Channel Logout 1.0 3, the `sid` of its ID tokens). */
  sid?: string | null;
}

export async function signLogoutToken(deps: Deps, request: LogoutTokenRequest): Promise<string> {
  const key = await deps.keys.signingKey('id_token');
  const iat = Math.floor(deps.now() / 1000);
  const payload = {
    iss: issuerOf(deps),
    aud: request.clientId,
    iat,
    exp: iat + LOGOUT_TOKEN_TTL,
    jti: randomUUID(),
    events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    ...(request.sub && { sub: request.sub }),
    ...(request.sid && { sid: request.sid }),
  };
  return await signTokenOnThreadPool(key.alg, key.privateKey, { kid: key.kid, typ: 'logout+jwt' }, payload);
}
