/**
 * Device authorizations (RFC 8628, docs/api.md#device-authorization-grant): a device without a
 * browser asks /connect/deviceauthorization for a device code and a user code; the user enters
 * the user code at /device, signs in and allows it there; meanwhile the device polls the token
 * endpoint with the device code (grants/device-code.ts). Both codes are stored only as SHA-256
 * hashes. User codes are short enough to type (RFC 8628 6.1), so entering them is throttled per
 * client address, as passwords are.
 */
import { randomInt } from 'node:crypto';
import { and, eq, gt, lt } from 'drizzle-orm';
import type { deviceAuthorizations } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { InvalidGrant, UnauthorizedClient } from '../../errors.js';
import { DEVICE_CODE_GRANT, findClient, scopesFor, type Client } from '../clients/find.js';
import { isScope, parseScope, resolveScope } from '../scopes.js';
import { hashToken, newOpaqueToken, newTokenFamilyId } from '../sessions/token-families.js';
import { amrOf, type SessionRow } from '../sessions/sessions.js';
import { issuerOf } from '../issuer.js';
import { assertNotThrottled, recordLoginFailure, type LoginContext } from '../sign-in/throttle.js';
import type { AuthorizeRequest } from './authorize-request.js';
import { parseClaimsRequest } from './claims-request.js';
import { parseResources } from '../tokens/resources.js';
import { changes, first } from '../../db/run.js';
import { schemaOf } from '../../db/open.js';

export const DEVICE_VERIFICATION_PATH = '/device';
/** RFC 8628 3.2: five seconds between polls unless the server says otherwise. */
export const DEVICE_POLL_INTERVAL = 5;

// RFC 8628 6.1: twenty consonants, no vowels (no words) and none of 0/O, 1/I to mistake; eight of
// them are 34 bits, and the throttle below allows a guesser a few hundred tries in ten minutes.
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;
// A mistyped code is common; a guesser sends many.
const USER_CODE_FREE_FAILURES = 10;
// Expired rows are kept this long after their expiry, so a late poll still hears expired_token.
const KEEP_EXPIRED_MS = 60 * 60 * 1000;

export type DeviceAuthorizationRow = typeof deviceAuthorizations.$inferSelect;

/** The device authorization response (RFC 8628 3.2). */
export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

function newUserCode(): string {
  return Array.from({ length: USER_CODE_LENGTH }, () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)]).join('');
}

/** XXXX-XXXX, as the user reads it. */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** A user code as typed: case, spaces and hyphens do not matter (RFC 8628 6.1); undefined when it cannot be one. */
export function normalizeUserCode(text: string): string | undefined {
  const code = text.toUpperCase().replace(/[\s-]/g, '');
  return code.length === USER_CODE_LENGTH && [...code].every((char) => USER_CODE_ALPHABET.includes(char)) ? code : undefined;
}

/**
 * POST /connect/deviceauthorization (RFC 8628 3.1): for a client allowed the device_code grant;
 * scope omitted is every scope the client may have, as at the token endpoint. The `resource`
 * values (RFC 8707 2) are those the tokens may be for: the token request may narrow them.
 * @throws 400 unauthorized_client, invalid_scope or invalid_target, storing nothing
 */
export async function startDeviceAuthorization(
  deps: Deps,
  client: Client,
  params: { scope?: string },
  resourceValues: readonly string[] = [],
): Promise<DeviceAuthorizationResponse> {
  if (!client.grantTypes.includes(DEVICE_CODE_GRANT)) throw UnauthorizedClient(`this client may not use grant_type '${DEVICE_CODE_GRANT}'`);
  const scope = resolveScope(parseScope(params.scope), scopesFor(client, DEVICE_CODE_GRANT), 'this client');
  const resources = parseResources(resourceValues);
  const deviceCode = newOpaqueToken();
  const now = deps.now();
  const ttl = deps.config.deviceCodeTtl;
  const userCode = await deps.db.transaction(async (tx) => {
    const { deviceAuthorizations } = schemaOf(tx);
    await tx.delete(deviceAuthorizations).where(lt(deviceAuthorizations.expiresAt, now - KEEP_EXPIRED_MS));
    // A user code names one authorization: draw again on the rare collision with a kept one.
    let code = newUserCode();
    while (
      await first(
        tx
          .select({ id: deviceAuthorizations.id })
          .from(deviceAuthorizations)
          .where(eq(deviceAuthorizations.userCodeHash, hashToken(code))),
      )
    ) {
      code = newUserCode();
    }
    await tx.insert(deviceAuthorizations).values({
      id: newTokenFamilyId(),
      deviceCodeHash: hashToken(deviceCode),
      userCodeHash: hashToken(code),
      clientId: client.clientId,
      scope: scope.join(' '),
      status: 'pending',
      principal: null,
      authTime: null,
      amr: null,
      resources: resources.length > 0 ? resources : null,
      interval: DEVICE_POLL_INTERVAL,
      lastPolledAt: null,
      created: now,
      expiresAt: now + ttl * 1000,
    });
    return code;
  });
  const verificationUri = `${issuerOf(deps)}${DEVICE_VERIFICATION_PATH}`;
  return {
    device_code: deviceCode,
    user_code: formatUserCode(userCode),
    verification_uri: verificationUri,
    verification_uri_complete: `${verificationUri}?${new URLSearchParams({ user_code: formatUserCode(userCode) })}`,
    expires_in: ttl,
    interval: DEVICE_POLL_INTERVAL,
  };
}

const isWaiting = (deps: Deps) => {
  const { deviceAuthorizations } = schemaOf(deps.db);
  return and(eq(deviceAuthorizations.status, 'pending'), gt(deviceAuthorizations.expiresAt, deps.now()));
};

/**
 * The authorization a user code entered at /device names, while it waits for the user. A code
 * that names none counts against the client address's throttle (RFC 8628 5.1).
 * @throws 400 invalid_grant for a wrong or expired code, 429 while the throttle waits.
 */
export async function findDeviceAuthorizationByUserCode(deps: Deps, typed: string, context: LoginContext): Promise<DeviceAuthorizationRow> {
  const { deviceAuthorizations } = schemaOf(deps.db);
  const keys = [{ key: `user_code:${context.address}`, free: USER_CODE_FREE_FAILURES }];
  await assertNotThrottled(deps, keys, 'user_code');
  const code = normalizeUserCode(typed);
  const row = code
    ? await first(
        deps.db
          .select()
          .from(deviceAuthorizations)
          .where(and(eq(deviceAuthorizations.userCodeHash, hashToken(code)), isWaiting(deps))),
      )
    : undefined;
  if (row) return row;
  await recordLoginFailure(deps, keys);
  throw InvalidGrant('the code is not valid, or has expired');
}

/** The authorization of a verification page's sealed form, while it still waits for the user. */
export async function findWaitingDeviceAuthorization(deps: Deps, id: string): Promise<DeviceAuthorizationRow | undefined> {
  const { deviceAuthorizations } = schemaOf(deps.db);
  return await first(
    deps.db
      .select()
      .from(deviceAuthorizations)
      .where(and(eq(deviceAuthorizations.id, id), isWaiting(deps))),
  );
}

export async function findDeviceAuthorizationByDeviceCode(deps: Deps, deviceCode: string): Promise<DeviceAuthorizationRow | undefined> {
  const { deviceAuthorizations } = schemaOf(deps.db);
  return await first(
    deps.db
      .select()
      .from(deviceAuthorizations)
      .where(eq(deviceAuthorizations.deviceCodeHash, hashToken(deviceCode))),
  );
}

/** The user of `session` allows the device: its next poll gets tokens that say how they signed in. */
export async function approveDeviceAuthorization(deps: Deps, id: string, session: SessionRow): Promise<void> {
  const { deviceAuthorizations } = schemaOf(deps.db);
  const approved = await deps.db
    .update(deviceAuthorizations)
    .set({ status: 'approved', principal: session.principal, authTime: Math.floor(session.authTime / 1000), amr: amrOf(session) })
    .where(and(eq(deviceAuthorizations.id, id), isWaiting(deps)));
  if (changes(approved) !== 1) throw InvalidGrant('the code has expired, or was already used');
}

/** The user refuses the device: its next poll gets access_denied (RFC 8628 3.5). */
export async function denyDeviceAuthorization(deps: Deps, id: string): Promise<void> {
  const { deviceAuthorizations } = schemaOf(deps.db);
  await deps.db
    .update(deviceAuthorizations)
    .set({ status: 'denied' })
    .where(and(eq(deviceAuthorizations.id, id), isWaiting(deps)));
}

/**
 * The device authorization `id` as a request of the sign-in, second-factor and consent pages
 * (authorize.ts): the scope the device asked for, no redirect URI, and always the consent page,
 * where the user sees which client they let in (RFC 8628 5.4). Undefined once it no longer waits.
 */
export async function openDeviceRequest(deps: Deps, id: string, uiLocales: string | undefined): Promise<AuthorizeRequest | undefined> {
  const row = await findWaitingDeviceAuthorization(deps, id);
  const client = row && (await findClient(deps, row.clientId));
  if (!row || !client) return undefined;
  return {
    redirectUri: '',
    mode: 'device',
    client,
    responseType: '',
    parts: new Set(),
    scope: row.scope.split(' ').filter(isScope),
    prompt: new Set(['consent']),
    uiLocales,
    acr: { classes: [] },
    claims: parseClaimsRequest(undefined),
    resources: row.resources ?? [],
    query: uiLocales === undefined ? '' : new URLSearchParams({ ui_locales: uiLocales }).toString(),
    device: row.id,
  };
}
