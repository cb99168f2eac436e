/**
 * The handlers of a user's second factors (docs/api.md#second-factors), shared by app users
 * (data/user-factors.ts) and admin users (admin-factors.ts): each area says whose factors a
 * request addresses and whether the caller may read or change them; the rest is the same.
 * Answers that carry a secret, a passkey challenge or recovery codes are `no-store`.
 */
import type { Context } from 'hono';
import type { Env } from '../env.js';
import type { EnvelopeInput } from '../envelope.js';
import { readBody, type BodyRule } from '../request-input.js';
import { answerNoStore } from '../middleware/secure-headers.js';
import { stepUpRequired, UnsupportedMediaType } from '../../src/errors.js';
import {
  deleteFactor,
  enrollFactor,
  factorView,
  findFactor,
  FRESH_SIGN_IN,
  isFreshSignIn,
  listFactors,
  verifyFactor,
  type FactorOwner,
} from '../../src/identity/factors/factors.js';

/** Whose factors the request addresses, and whether the caller is that user (not an administrator acting for them). */
export interface FactorAccess {
  owner: FactorOwner;
  self: boolean;
}

/** Finds the user the path names and checks the caller may `read` or `write` their factors. @throws 403, 404. */
export type ResolveFactorAccess = (c: Context<Env>, mode: 'read' | 'write') => Promise<FactorAccess>;

/** How the area answers: its envelope, with 200 or 201. */
export type Answer = (c: Context<Env>, input: EnvelopeInput, status: 200 | 201) => Response;

const FACTOR_BODY: BodyRule = { accept: ['json', 'form', 'none'], refuse: () => UnsupportedMediaType('the request body must be application/json') };

/** The id of the factor the path names. */
function factorId(c: Context<Env>): string {
  return c.req.param('factorId') ?? '';
}

/**
 * The user themself removes a factor only with a recent sign-in (RFC 9470 step-up: 401
 * `insufficient_user_authentication` with `max_age`), so that a token left behind on a shared
 * device cannot take a second factor away. Administrators may always.
 */
function requireFreshSignIn(c: Context<Env>, access: FactorAccess): void {
  if (!access.self || isFreshSignIn(c.get('deps'), (c.get('signedInAt') ?? 0) * 1000)) return;
  const description = `removing a second factor needs a sign-in within the last ${FRESH_SIGN_IN / 60} minutes: sign in again`;
  throw stepUpRequired(description, { maxAge: FRESH_SIGN_IN, scheme: c.get('authentication')?.scheme });
}

export function factorHandlers(resolve: ResolveFactorAccess, answer: Answer) {
  return {
    async list(c: Context<Env>) {
      const { owner } = await resolve(c, 'read');
      const factors = await listFactors(c.get('deps').db, owner.uuid);
      return answer(c, { action: 'get factors', entities: factors.map(factorView), count: true }, 200);
    },

    async get(c: Context<Env>) {
      const { owner } = await resolve(c, 'read');
      return answer(c, { action: 'get factor', entities: [factorView(await findFactor(c.get('deps').db, owner.uuid, factorId(c)))] }, 200);
    },

    async enroll(c: Context<Env>) {
      const { owner } = await resolve(c, 'write');
      const enrollment = await enrollFactor(c.get('deps'), owner, await readBody(c, FACTOR_BODY));
      answerNoStore(c);
      return answer(c, { action: 'enroll factor', entities: [enrollment] }, 201);
    },

    async verify(c: Context<Env>) {
      const { owner } = await resolve(c, 'write');
      const activation = await verifyFactor(c.get('deps'), owner, factorId(c), await readBody(c, FACTOR_BODY));
      answerNoStore(c);
      return answer(c, { action: 'verify factor', entities: [activation] }, 200);
    },

    async remove(c: Context<Env>) {
      const access = await resolve(c, 'write');
      // The factor is found first: a stranger's id is 404 before anything is asked of the caller.
      await findFactor(c.get('deps').db, access.owner.uuid, factorId(c));
      requireFreshSignIn(c, access);
      const removed = await deleteFactor(c.get('deps'), access.owner, factorId(c));
      return answer(c, { action: 'delete factor', entities: [factorView(removed)] }, 200);
    },
  };
}
