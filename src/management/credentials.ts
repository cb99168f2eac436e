/**
 * Organization and application client credentials (docs/api.md#clients). The client_id is
 * stable for the owner's life, Usergrid style (`b3U6…` for organizations, `YXA6…` for
 * applications); regenerating replaces the secret, and the old one stops working at once.
 */
import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { credentials } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { type Tx, schemaOf } from '../db/open.js';
import { recordActivity } from './activities.js';
import { first } from '../db/run.js';

export type OwnerType = 'organization' | 'application';
export type Credential = typeof credentials.$inferSelect;

const PREFIX: Record<OwnerType, string> = { organization: 'b3U6', application: 'YXA6' };

function newClientId(ownerType: OwnerType, ownerUuid: string): string {
  return PREFIX[ownerType] + Buffer.from(ownerUuid.replaceAll('-', ''), 'hex').toString('base64url');
}

function newSecret(ownerType: OwnerType): string {
  // 256 bits of randomness (RFC 6749 10.10 asks for secrets an attacker cannot guess).
  return PREFIX[ownerType] + randomBytes(32).toString('base64url');
}

export async function insertCredential(tx: Tx, now: number, ownerType: OwnerType, ownerUuid: string): Promise<Credential> {
  const { credentials } = schemaOf(tx);
  const row: Credential = {
    clientId: newClientId(ownerType, ownerUuid),
    ownerType,
    ownerUuid,
    clientSecret: newSecret(ownerType),
    created: now,
  };
  await tx.insert(credentials).values(row);
  return row;
}

async function findCredentialIn(tx: Tx, ownerType: OwnerType, ownerUuid: string): Promise<Credential | undefined> {
  const { credentials } = schemaOf(tx);
  return await first(
    tx
      .select()
      .from(credentials)
      .where(and(eq(credentials.ownerType, ownerType), eq(credentials.ownerUuid, ownerUuid))),
  );
}

export async function getCredential(deps: Deps, ownerType: OwnerType, ownerUuid: string): Promise<Credential> {
  const row = await findCredentialIn(deps.db, ownerType, ownerUuid);
  // Looked for again inside the transaction: two first requests at once insert it only once.
  return (
    row ??
    (await deps.db.transaction(
      async (tx) => (await findCredentialIn(tx, ownerType, ownerUuid)) ?? (await insertCredential(tx, deps.now(), ownerType, ownerUuid)),
    ))
  );
}

async function regenerateCredentialIn(tx: Tx, now: number, ownerType: OwnerType, ownerUuid: string): Promise<Credential> {
  const { credentials } = schemaOf(tx);
  const existing = await findCredentialIn(tx, ownerType, ownerUuid);
  if (!existing) return await insertCredential(tx, now, ownerType, ownerUuid);
  const clientSecret = newSecret(ownerType);
  await tx.update(credentials).set({ clientSecret, created: now }).where(eq(credentials.clientId, existing.clientId));
  return { ...existing, clientSecret, created: now };
}

/** The organization or application whose credential is regenerated. */
export interface CredentialOwner {
  readonly type: OwnerType;
  readonly uuid: string;
  readonly name: string;
}

/** Replaces the owner's client secret, and records who did it in the organization's feed. */
export async function regenerateCredential(deps: Deps, orgUuid: string, owner: CredentialOwner, actorUuid: string | null): Promise<Credential> {
  return await deps.db.transaction(async (tx) => {
    const now = deps.now();
    const credential = await regenerateCredentialIn(tx, now, owner.type, owner.uuid);
    await recordActivity(tx, now, {
      orgUuid,
      actorUuid,
      verb: 'regenerate',
      category: 'credentials',
      title: `client credentials of ${owner.type} ${owner.name} regenerated`,
      objectType: owner.type,
      objectUuid: owner.uuid,
      objectName: owner.name,
    });
    return credential;
  });
}

export async function deleteCredentialIn(tx: Tx, ownerType: OwnerType, ownerUuid: string): Promise<void> {
  const { credentials } = schemaOf(tx);
  await tx.delete(credentials).where(and(eq(credentials.ownerType, ownerType), eq(credentials.ownerUuid, ownerUuid)));
}
