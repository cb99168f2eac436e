/**
 * External OpenID providers of an application (docs/api.md#authorize-endpoint), managed at
 * /management/orgs/{org}/apps/{app}/identity-providers and chosen by `acr_values=idp:NAME`.
 * The client secret is stored to authenticate at the provider and is never returned.
 */
import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { identityProviders } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { DuplicateUniqueProperty, EntityNotFound } from '../../errors.js';
import { newUuid, isUuid } from '../../ids.js';
import { resourceName, str } from '../../management/schemas.js';
import type { Application } from '../../management/applications.js';
import type { Client } from '../clients/find.js';
import { first } from '../../db/run.js';
import { schemaOf } from '../../db/open.js';

export type IdentityProviderRow = typeof identityProviders.$inferSelect;

/** Loopback providers may use http (development and tests); anything else needs https. */
export function isAcceptableIssuer(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (url.search || url.hash) return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

export const IdentityProviderInput = z.object({
  name: resourceName('name'),
  issuer: str('issuer')
    .trim()
    .refine(isAcceptableIssuer, 'issuer must be an https URL without query or fragment (http only on a loopback address)')
    .transform((issuer) => issuer.replace(/\/+$/, '')),
  client_id: str('client_id').trim().min(1, 'client_id is required').max(256, 'client_id must be at most 256 characters'),
  client_secret: z.string().max(512, 'client_secret must be at most 512 characters').optional(),
  scope: z
    .string()
    .trim()
    .default('openid profile email')
    .refine((scope) => scope.split(' ').includes('openid'), 'scope must include openid'),
});
export type IdentityProviderInput = z.infer<typeof IdentityProviderInput>;

async function findIn(deps: Deps, app: Application, id: string): Promise<IdentityProviderRow | undefined> {
  const { identityProviders } = schemaOf(deps.db);
  const key = isUuid(id) ? eq(identityProviders.uuid, id) : eq(identityProviders.nameKey, id.toLowerCase());
  return await first(
    deps.db
      .select()
      .from(identityProviders)
      .where(and(eq(identityProviders.appUuid, app.uuid), key)),
  );
}

export async function findIdentityProvider(deps: Deps, app: Application, id: string): Promise<IdentityProviderRow> {
  const row = await findIn(deps, app, id);
  if (!row) throw EntityNotFound(`identity provider '${id}' not found`, { fields: { identity_provider: id } });
  return row;
}

/** The provider `acr_values=idp:NAME` names for an application. */
export async function findIdentityProviderByName(deps: Deps, appUuid: string, name: string): Promise<IdentityProviderRow | undefined> {
  const { identityProviders } = schemaOf(deps.db);
  return await first(
    deps.db
      .select()
      .from(identityProviders)
      .where(and(eq(identityProviders.appUuid, appUuid), eq(identityProviders.nameKey, name.toLowerCase()))),
  );
}

/** The provider by its uuid, for the federation callback. */
export async function findIdentityProviderByUuid(deps: Deps, uuid: string): Promise<IdentityProviderRow | undefined> {
  const { identityProviders } = schemaOf(deps.db);
  return await first(deps.db.select().from(identityProviders).where(eq(identityProviders.uuid, uuid)));
}

export async function listIdentityProviders(deps: Deps, app: Application): Promise<IdentityProviderRow[]> {
  const { identityProviders } = schemaOf(deps.db);
  return await deps.db.select().from(identityProviders).where(eq(identityProviders.appUuid, app.uuid)).orderBy(asc(identityProviders.nameKey));
}

/** The providers a client may send its users to: allowed by the client and configured for its app. */
export async function listIdentityProviderNames(deps: Deps, client: Client): Promise<string[]> {
  const { identityProviders } = schemaOf(deps.db);
  if (client.appUuid === null || client.identityProviders.length === 0) return [];
  const allowed = new Set(client.identityProviders.map((name) => name.toLowerCase()));
  const rows = await deps.db
    .select({ name: identityProviders.name, nameKey: identityProviders.nameKey })
    .from(identityProviders)
    .where(eq(identityProviders.appUuid, client.appUuid));
  return rows.filter((row) => allowed.has(row.nameKey)).map((row) => row.name);
}

async function assertNameFree(deps: Deps, app: Application, name: string, exceptUuid?: string): Promise<void> {
  const existing = await findIn(deps, app, name);
  if (existing && existing.uuid !== exceptUuid) {
    throw DuplicateUniqueProperty(`an identity provider named '${name}' already exists`, { fields: { name: 'already exists' } });
  }
}

export async function createIdentityProvider(deps: Deps, app: Application, input: IdentityProviderInput): Promise<IdentityProviderRow> {
  const { identityProviders } = schemaOf(deps.db);
  await assertNameFree(deps, app, input.name);
  const now = deps.now();
  const row: IdentityProviderRow = {
    uuid: newUuid(),
    appUuid: app.uuid,
    name: input.name,
    nameKey: input.name.toLowerCase(),
    issuer: input.issuer,
    clientId: input.client_id,
    clientSecret: input.client_secret ?? null,
    scope: input.scope,
    created: now,
    modified: now,
  };
  await deps.db.insert(identityProviders).values(row);
  return row;
}

/** PUT replaces the settings; a PUT without client_secret keeps the stored one. */
export async function updateIdentityProvider(deps: Deps, app: Application, id: string, input: IdentityProviderInput): Promise<IdentityProviderRow> {
  const { identityProviders } = schemaOf(deps.db);
  const current = await findIdentityProvider(deps, app, id);
  await assertNameFree(deps, app, input.name, current.uuid);
  const next: IdentityProviderRow = {
    ...current,
    name: input.name,
    nameKey: input.name.toLowerCase(),
    issuer: input.issuer,
    clientId: input.client_id,
    clientSecret: input.client_secret ?? current.clientSecret,
    scope: input.scope,
    modified: deps.now(),
  };
  await deps.db.update(identityProviders).set(next).where(eq(identityProviders.uuid, current.uuid));
  return next;
}

export async function deleteIdentityProvider(deps: Deps, app: Application, id: string): Promise<IdentityProviderRow> {
  const { identityProviders } = schemaOf(deps.db);
  const current = await findIdentityProvider(deps, app, id);
  await deps.db.delete(identityProviders).where(eq(identityProviders.uuid, current.uuid));
  return current;
}
