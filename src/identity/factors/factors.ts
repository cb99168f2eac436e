/**
 * Second factors as a resource (docs/api.md#second-factors, the shape of Okta's factors API): a
 * user enrolls a factor (`pending`), proves it once (`active`), lists and removes them. The
 * first factor a user activates comes with ten recovery codes, shown that once. Secrets never
 * leave the server after enrollment. Who may act on whose factors is the routes' to decide.
 *
 * TOTP secrets are stored as they are, as the signing keys are: the server needs them to check
 * codes, and there is no key outside the database to encrypt them with.
 */
import { and, eq, isNull, lt, or } from 'drizzle-orm';
import QRCode from 'qrcode';
import type { userFactors } from '../../db/schema.js';
import { type Tx, schemaOf } from '../../db/open.js';
import type { Deps } from '../../deps.js';
import { Conflict, EntityNotFound, IllegalArgument, RequiredProperty } from '../../errors.js';
import { newUuid } from '../../ids.js';
import { issuerOf } from '../issuer.js';
import { deleteRecoveryCodes, replaceRecoveryCodes } from './recovery-codes.js';
import { recordFactorEvent } from './factor-events.js';
import { newTotpSecret, otpauthUri, totpStepOf } from './totp.js';
import { passkeyRegistrationOptions, verifyPasskeyRegistration, type RegistrationOptions, type RelyingParty } from './webauthn.js';
import { changes, first } from '../../db/run.js';

export type Factor = typeof userFactors.$inferSelect;
export type FactorType = Factor['type'];
const FACTOR_TYPES: readonly FactorType[] = ['totp', 'webauthn'];

/** Whose factors: the user, and the name authenticator apps and browsers show beside them (the application's, or idp). */
export interface FactorOwner {
  /** `admin`, or the uuid of the application whose user this is (where factor events go, factor-events.ts). */
  realm: string;
  uuid: string;
  username: string;
  issuerName: string;
}

/** A factor as every answer shows it: never its secret, challenge or key. */
export interface FactorView {
  id: string;
  type: FactorType;
  status: Factor['status'];
  /** The user's label for it, if they gave one. */
  name: string | null;
  /** When it last passed a sign-in (ms), if it has. */
  last_used: number | null;
  created: number;
  modified: number;
}

/** What enrolling answers, once: TOTP's secret as text, URI and QR code; a passkey's creation options. */
export interface Enrollment extends FactorView {
  secret?: string;
  otpauth_uri?: string;
  qr_svg?: string;
  options?: RegistrationOptions;
}

export interface Activation extends FactorView {
  /** With the user's first active factor only. */
  recovery_codes?: string[];
}

/**
 * A user changing their own factors in ways that would let a stranger at an unlocked device keep
 * the account (removing a factor, new recovery codes) must have signed in this recently (seconds;
 * docs/api.md#second-factors).
 */
export const FRESH_SIGN_IN = 5 * 60;

/** Whether a sign-in at `signedInAt` (ms) is recent enough (FRESH_SIGN_IN). */
export function isFreshSignIn(deps: Deps, signedInAt: number): boolean {
  return deps.now() - signedInAt <= FRESH_SIGN_IN * 1000;
}

export function factorView(factor: Factor): FactorView {
  return {
    id: factor.id,
    type: factor.type,
    status: factor.status,
    name: factor.name,
    last_used: factor.lastUsed,
    created: factor.created,
    modified: factor.modified,
  };
}

function relyingParty(deps: Deps, owner: FactorOwner): RelyingParty {
  return { name: owner.issuerName, issuer: issuerOf(deps) };
}

export async function listFactors(tx: Tx, userUuid: string): Promise<Factor[]> {
  const { userFactors } = schemaOf(tx);
  return await tx.select().from(userFactors).where(eq(userFactors.userUuid, userUuid)).orderBy(userFactors.created, userFactors.id);
}

/** The active factors of a user: what a password sign-in must be followed by. */
export async function listActiveFactors(tx: Tx, userUuid: string): Promise<Factor[]> {
  return (await listFactors(tx, userUuid)).filter((factor) => factor.status === 'active');
}

/** The active passkey with this credential id, whoever's it is. */
export async function findPasskeyFactor(tx: Tx, credentialId: string): Promise<Factor | undefined> {
  const { userFactors } = schemaOf(tx);
  return await first(
    tx
      .select()
      .from(userFactors)
      .where(and(eq(userFactors.credentialId, credentialId), eq(userFactors.status, 'active'))),
  );
}

/** One of the user's factors by id. @throws 404 `entity_not_found`, also for another user's. */
export async function findFactor(tx: Tx, userUuid: string, id: string): Promise<Factor> {
  const { userFactors } = schemaOf(tx);
  const factor = await first(
    tx
      .select()
      .from(userFactors)
      .where(and(eq(userFactors.id, id), eq(userFactors.userUuid, userUuid))),
  );
  if (!factor) throw EntityNotFound(`factor '${id}' not found`, { fields: { factor: id } });
  return factor;
}

const NAME_LENGTH = 64;

/** The label a body gives the factor: optional, trimmed, at most NAME_LENGTH characters. @throws 400 naming `name`. */
function factorNameOf(body: unknown): string | null {
  const name = (body as { name?: unknown } | null)?.name;
  if (name === undefined || name === null) return null;
  if (typeof name !== 'string') throw IllegalArgument('name must be a string', { fields: { name: 'must be a string' } });
  const trimmed = name.trim();
  if (trimmed.length > NAME_LENGTH)
    throw IllegalArgument(`name must be at most ${NAME_LENGTH} characters`, { fields: { name: `at most ${NAME_LENGTH} characters` } });
  return trimmed === '' ? null : trimmed;
}

function factorTypeOf(body: unknown): FactorType {
  const type = (body as { type?: unknown } | null)?.type;
  if (type === undefined) throw RequiredProperty('type is required: totp or webauthn', { fields: { type: 'required' } });
  if (!FACTOR_TYPES.includes(type as FactorType)) throw IllegalArgument('type must be totp or webauthn', { fields: { type: 'must be totp or webauthn' } });
  return type as FactorType;
}

/** What an authenticator app needs of a TOTP secret: the secret as text, its otpauth URI and that URI as a QR code. */
export async function totpEnrollmentOf(owner: FactorOwner, secret: string): Promise<Required<Pick<Enrollment, 'secret' | 'otpauth_uri' | 'qr_svg'>>> {
  const uri = otpauthUri(secret, owner.issuerName, owner.username);
  return { secret, otpauth_uri: uri, qr_svg: await QRCode.toString(uri, { type: 'svg' }) };
}

/**
 * Starts enrolling a factor of the type the body names. An enrollment of the same type left
 * pending is replaced: only the newest secret or challenge can be verified.
 */
export async function enrollFactor(deps: Deps, owner: FactorOwner, body: unknown): Promise<Enrollment> {
  const type = factorTypeOf(body);
  const name = factorNameOf(body);
  const now = deps.now();
  const factor: Factor = {
    id: newUuid(),
    userUuid: owner.uuid,
    type,
    status: 'pending',
    secret: null,
    lastStep: null,
    challenge: null,
    credential: null,
    name,
    credentialId: null,
    lastUsed: null,
    created: now,
    modified: now,
  };
  let shown: Omit<Enrollment, keyof FactorView>;
  if (type === 'totp') {
    factor.secret = newTotpSecret();
    shown = await totpEnrollmentOf(owner, factor.secret);
  } else {
    const registered = (await listActiveFactors(deps.db, owner.uuid)).flatMap((f) => (f.credential ? [f.credential] : []));
    const options = await passkeyRegistrationOptions(relyingParty(deps, owner), owner, registered);
    factor.challenge = options.challenge;
    shown = { options };
  }
  await deps.db.transaction(async (tx) => {
    const { userFactors } = schemaOf(tx);
    await tx.delete(userFactors).where(and(eq(userFactors.userUuid, owner.uuid), eq(userFactors.type, type), eq(userFactors.status, 'pending')));
    await tx.insert(userFactors).values(factor);
  });
  await recordFactorEvent(deps, 'factor_enrolled', { realm: owner.realm, userUuid: owner.uuid, factor });
  return { ...factorView(factor), ...shown };
}

/** The TOTP code of a verify request. @throws 400 naming `code`. */
function codeOf(body: unknown): string {
  const code = (body as { code?: unknown } | null)?.code;
  if (code === undefined || code === '') throw RequiredProperty('code is required: the code the authenticator app shows', { fields: { code: 'required' } });
  if (typeof code !== 'string' && typeof code !== 'number') throw IllegalArgument('code must be a string of digits', { fields: { code: 'must be a string' } });
  return String(code);
}

/**
 * Activates a pending factor with proof that the user holds it: a TOTP code of its secret, or the
 * browser's answer to the passkey options. The user's first active factor brings ten recovery
 * codes. @throws 400 when the proof does not check out (nothing changes), 409 when already active.
 */
export async function verifyFactor(deps: Deps, owner: FactorOwner, id: string, body: unknown): Promise<Activation> {
  const factor = await findFactor(deps.db, owner.uuid, id);
  if (factor.status === 'active') throw Conflict(`factor '${id}' is already active`, { fields: { factor: 'already active' } });
  const now = deps.now();
  const activated: Partial<Factor> = { status: 'active', modified: now, challenge: null };
  if (factor.type === 'totp') {
    const step = totpStepOf(factor.secret ?? '', codeOf(body), now);
    if (step === null) throw IllegalArgument('the code is not correct; check the time of the device that shows it', { fields: { code: 'does not match' } });
    activated.lastStep = step;
  } else {
    activated.credential = await verifyPasskeyRegistration(relyingParty(deps, owner), factor.challenge ?? '', body);
    activated.credentialId = activated.credential.id;
    // A passkey sign-in finds its user by the credential id, so one id names one passkey.
    if (await findPasskeyFactor(deps.db, activated.credential.id)) {
      throw Conflict('this passkey is registered already', { fields: { response: 'passkey already registered' } });
    }
  }
  const activation = await deps.db.transaction(async (tx) => {
    const { userFactors } = schemaOf(tx);
    const first = (await listActiveFactors(tx, owner.uuid)).length === 0;
    const done = await tx
      .update(userFactors)
      .set(activated)
      .where(and(eq(userFactors.id, id), eq(userFactors.status, 'pending')));
    if (changes(done) !== 1) throw Conflict(`factor '${id}' is already active`, { fields: { factor: 'already active' } });
    const view = factorView({ ...factor, ...activated } as Factor);
    return first ? { ...view, recovery_codes: await replaceRecoveryCodes(tx, owner.uuid, now) } : view;
  });
  await recordFactorEvent(deps, 'factor_activated', { realm: owner.realm, userUuid: owner.uuid, factor });
  return activation;
}

/** Removes one factor; with the user's last one go their recovery codes. */
export async function deleteFactor(deps: Deps, owner: FactorOwner, id: string): Promise<Factor> {
  const factor = await findFactor(deps.db, owner.uuid, id);
  await deps.db.transaction(async (tx) => {
    const { userFactors } = schemaOf(tx);
    await tx.delete(userFactors).where(eq(userFactors.id, id));
    if ((await listActiveFactors(tx, owner.uuid)).length === 0) await deleteRecoveryCodes(tx, owner.uuid);
  });
  await recordFactorEvent(deps, 'factor_removed', { realm: owner.realm, userUuid: owner.uuid, factor });
  return factor;
}

/** Removes every factor and recovery code of a user (an administrator's reset, a deleted user); returns how many factors. */
export async function deleteAllFactors(tx: Tx, userUuid: string): Promise<number> {
  const { userFactors } = schemaOf(tx);
  const removed = await tx.delete(userFactors).where(eq(userFactors.userUuid, userUuid));
  await deleteRecoveryCodes(tx, userUuid);
  return changes(removed);
}

/**
 * Ten new recovery codes for a user with an active factor (the old ones stop working), shown once.
 * @throws 409 when the user has no active factor: recovery codes stand in for one.
 */
export async function regenerateRecoveryCodes(deps: Deps, owner: FactorOwner): Promise<string[]> {
  const codes = await deps.db.transaction(async (tx) => {
    if ((await listActiveFactors(tx, owner.uuid)).length === 0) {
      throw Conflict('recovery codes come with a second factor: add one first', { fields: { factors: 'none active' } });
    }
    return await replaceRecoveryCodes(tx, owner.uuid, deps.now());
  });
  await recordFactorEvent(deps, 'recovery_codes_regenerated', { realm: owner.realm, userUuid: owner.uuid });
  return codes;
}

/**
 * Accepts a TOTP code of an active factor at most once: the step it belongs to must come after
 * the last one accepted, and claiming it is one conditional update (of two instances, one wins).
 * The factor's last use is then `now`.
 */
export async function claimTotpStep(tx: Tx, factor: Factor, step: number, now: number): Promise<boolean> {
  const { userFactors } = schemaOf(tx);
  const claimed = await tx
    .update(userFactors)
    .set({ lastStep: step, lastUsed: now })
    .where(and(eq(userFactors.id, factor.id), or(isNull(userFactors.lastStep), lt(userFactors.lastStep, step))));
  return changes(claimed) === 1;
}
