/**
 * Recovery codes: ten random codes handed out once, with a user's first active factor, for the
 * day the authenticator is lost. Stored as SHA-256 hashes (50 random bits each, so a fast hash is
 * enough behind the sign-in throttle); each is deleted when used, so it works once.
 */
import { createHash, randomInt } from 'node:crypto';
import { and, eq } from 'drizzle-orm';

import { type Tx, schemaOf } from '../../db/open.js';
import { changes } from '../../db/run.js';

const COUNT = 10;
// No 0/o, 1/l/i: a code is read off paper and typed.
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const LENGTH = 10;

/** A code as typed, made comparable: case, spaces and dashes do not matter. */
function normalized(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

function hashOf(code: string): string {
  return createHash('sha256').update(normalized(code)).digest('base64url');
}

function newCode(): string {
  const chars = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]);
  return `${chars.slice(0, LENGTH / 2).join('')}-${chars.slice(LENGTH / 2).join('')}`;
}

/** Replaces a user's recovery codes with ten new ones; returns them (only their hashes are kept). */
export async function replaceRecoveryCodes(tx: Tx, userUuid: string, now: number): Promise<string[]> {
  const { recoveryCodes } = schemaOf(tx);
  const codes = Array.from({ length: COUNT }, newCode);
  await deleteRecoveryCodes(tx, userUuid);
  await tx.insert(recoveryCodes).values(codes.map((code) => ({ userUuid, codeHash: hashOf(code), created: now })));
  return codes;
}

export async function deleteRecoveryCodes(tx: Tx, userUuid: string): Promise<void> {
  const { recoveryCodes } = schemaOf(tx);
  await tx.delete(recoveryCodes).where(eq(recoveryCodes.userUuid, userUuid));
}

/** Spends one of the user's recovery codes: true when it was theirs and unused (atomic: of two uses one wins). */
export async function useRecoveryCode(tx: Tx, userUuid: string, code: string): Promise<boolean> {
  const { recoveryCodes } = schemaOf(tx);
  const used = await tx.delete(recoveryCodes).where(and(eq(recoveryCodes.userUuid, userUuid), eq(recoveryCodes.codeHash, hashOf(code))));
  return changes(used) === 1;
}
