/**
 * A user's signed-in browsers and the applications they allowed (docs/api.md#sessions-and-consents),
 * shared by app users (data/user-sign-ins.ts) and admin users (admin-sign-ins.ts), as the account
 * page shows them to the user themself (docs/account.md): each area says whose they are and
 * whether the caller may read or end them; the rest is the same.
 */
import type { Context } from 'hono';
import type { Env } from '../env.js';
import type { EnvelopeInput } from '../envelope.js';
import { EntityNotFound } from '../../src/errors.js';
import { endUserSession, listUserSessions, type SessionRow } from '../../src/identity/sessions/sessions.js';
import { listConsents, revokeConsent, type Consent } from '../../src/identity/authorize/consents.js';
import { findClient } from '../../src/identity/clients/find.js';
import type { Deps } from '../../src/deps.js';

/** Whose sessions and consents the request addresses: the realm they sign in to and their uuid. */
export interface SignInOwner {
  realm: string;
  uuid: string;
}

/** Finds the user the path names and checks the caller may `read` or `write` their sign-ins. @throws 403, 404. */
export type ResolveSignInOwner = (c: Context<Env>, mode: 'read' | 'write') => Promise<SignInOwner>;

/** How the area answers: its envelope. */
export type Answer = (c: Context<Env>, input: EnvelopeInput) => Response;

/** A session as the API shows it; `id` is the stored hash of the browser's cookie, never the cookie itself. */
function sessionView(row: SessionRow) {
  return {
    id: row.idHash,
    type: 'session',
    user_agent: row.userAgent,
    address: row.address,
    amr: row.amr.split(' '),
    provider: row.provider,
    auth_time: row.authTime,
    created: row.created,
    last_seen: row.lastSeen,
    expires: row.expiresAt,
  };
}

async function consentView(deps: Deps, consent: Consent) {
  const client = await findClient(deps, consent.clientId);
  return {
    client_id: consent.clientId,
    type: 'consent',
    client_name: client?.clientName || consent.clientId,
    scope: consent.scope,
    created: consent.created,
    modified: consent.modified,
  };
}

export function signInHandlers(resolve: ResolveSignInOwner, answer: Answer) {
  return {
    async listSessions(c: Context<Env>) {
      const owner = await resolve(c, 'read');
      const sessions = await listUserSessions(c.get('deps'), owner.realm, owner.uuid);
      return answer(c, { action: 'get sessions', entities: sessions.map(sessionView), count: true });
    },

    /** Ends one session: that browser is signed out at once, everywhere (single sign-on included). */
    async endSession(c: Context<Env>) {
      const owner = await resolve(c, 'write');
      const id = c.req.param('sessionId') ?? '';
      if (!(await endUserSession(c.get('deps'), owner.realm, owner.uuid, id))) {
        throw EntityNotFound(`session '${id}' not found`, { fields: { session: 'not found' } });
      }
      return answer(c, { action: 'end session', entities: [] });
    },

    async listConsents(c: Context<Env>) {
      const owner = await resolve(c, 'read');
      const deps = c.get('deps');
      const consents = await Promise.all((await listConsents(deps, owner.uuid)).map((consent) => consentView(deps, consent)));
      return answer(c, { action: 'get consents', entities: consents, count: true });
    },

    /** Forgets a consent and revokes the user's tokens of that client: it must ask again. */
    async revokeConsent(c: Context<Env>) {
      const owner = await resolve(c, 'write');
      const clientId = c.req.param('clientId') ?? '';
      if (!(await revokeConsent(c.get('deps'), clientId, owner.uuid))) {
        throw EntityNotFound(`no consent to client '${clientId}'`, { fields: { client_id: 'not found' } });
      }
      return answer(c, { action: 'revoke consent', entities: [] });
    },
  };
}
