/**
 * Notifiers (docs/api.md#push-notifications): entities of the `notifiers` collection that
 * say which provider and environment a payload goes through. Their credentials are checked when
 * written and kept in push_notifier_secrets, never in entity properties, so no view, query or
 * export can return them.
 */
import { readNotifierSecret, writeNotifierSecret } from '../db/push-store.js';
import { IllegalArgument, RequiredProperty } from '../errors.js';
import type { Deps } from '../deps.js';
import type { Tx } from '../db/open.js';
import { entityBodies, insertEntityFromBody, requireEntity, updateEntityIn, type CollectionRef, type EntityRow } from '../data/entities.js';
import { findEntityIn } from '../data/entities.js';
import { LISTED_PROVIDERS, PROVIDERS } from './providers/index.js';
import type { NotifierConfig, Provider, ProviderName } from './providers/types.js';

export const NOTIFIERS: CollectionRef = { name: 'notifiers', type: 'notifier' };
const ENVIRONMENTS = ['development', 'production'] as const;
type Environment = (typeof ENVIRONMENTS)[number];

/** Request fields that carry secrets: never stored as properties, never echoed. */
const SECRET_FIELDS: ReadonlySet<string> = new Set(['p8', 'key', 'credentials', 'serviceAccount']);

// A notifier's name is part of a device property name (`<name>.notifier.id`) and of JSON paths.
const NOTIFIER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function providerOf(value: unknown): Provider {
  const provider = typeof value === 'string' ? PROVIDERS.get(value as ProviderName) : undefined;
  if (value === undefined || value === null)
    throw RequiredProperty(`provider is required: ${LISTED_PROVIDERS.join(' or ')}`, { fields: { provider: 'required' } });
  if (provider === undefined)
    throw IllegalArgument(`provider must be ${LISTED_PROVIDERS.join(' or ')}`, { fields: { provider: `must be ${LISTED_PROVIDERS.join(' or ')}` } });
  return provider;
}

function environmentOf(value: unknown): Environment {
  if (value === undefined || value === null)
    throw RequiredProperty('environment is required: development or production', { fields: { environment: 'required' } });
  if (!ENVIRONMENTS.includes(value as Environment))
    throw IllegalArgument('environment must be development or production', { fields: { environment: 'must be development or production' } });
  return value as Environment;
}

function nameOf(value: unknown): string {
  if (value === undefined || value === null) throw RequiredProperty('name is required', { fields: { name: 'required' } });
  if (typeof value !== 'string' || !NOTIFIER_NAME.test(value)) {
    throw IllegalArgument('name must be 1 to 64 letters, digits, _ or -', { fields: { name: 'must be 1 to 64 letters, digits, _ or -' } });
  }
  return value;
}

interface CheckedNotifier {
  properties: Record<string, unknown>;
  secret: Record<string, string>;
}

/** Checks every field and the credentials; splits what is shown from what is kept secret. */
async function checkNotifier(body: Record<string, unknown>): Promise<CheckedNotifier> {
  const name = nameOf(body.name);
  const provider = providerOf(body.provider);
  const environment = environmentOf(body.environment);
  const settings = await provider.validate(body);
  const rest = Object.fromEntries(Object.entries(body).filter(([key]) => !SECRET_FIELDS.has(key)));
  return { properties: { ...rest, ...settings.visible, name, provider: provider.name, environment }, secret: settings.secret };
}

export async function createNotifiers(deps: Deps, appUuid: string, body: unknown): Promise<EntityRow[]> {
  // Key checks (WebCrypto) run before the transaction, which would hold the database while they ran.
  const checked = await Promise.all(entityBodies(body).map(checkNotifier));
  return await deps.db.transaction(async (tx) => {
    const now = deps.now();
    // One after another: statements of one transaction never run side by side.
    const rows: EntityRow[] = [];
    for (const { properties, secret } of checked) {
      const row = await insertEntityFromBody(tx, appUuid, NOTIFIERS, properties, now);
      await writeNotifierSecret(tx, row.uuid, secret);
      rows.push(row);
    }
    return rows;
  });
}

/**
 * PUT merges like any entity, but the result is checked as a whole: changing the provider or
 * environment, or sending new credentials, must leave a notifier that works.
 */
export async function updateNotifier(deps: Deps, row: EntityRow, body: unknown): Promise<EntityRow> {
  if (Array.isArray(body)) throw IllegalArgument('PUT on a notifier takes one JSON object', { fields: { body: 'must be a JSON object' } });
  const [changes] = entityBodies(body);
  const secret = await readNotifierSecret(deps.db, row.uuid);
  const merged = { ...row.properties, ...secret, ...changes };
  const checked = await checkNotifier(Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== null)));
  return await deps.db.transaction(async (tx) => {
    const removed = Object.fromEntries(
      Object.keys(row.properties)
        .filter((key) => !(key in checked.properties))
        .map((key) => [key, null]),
    );
    const updated = await updateEntityIn(tx, row, { ...removed, ...checked.properties }, deps.now());
    await writeNotifierSecret(tx, row.uuid, checked.secret);
    return updated;
  });
}

export async function requireNotifier(tx: Tx, appUuid: string, id: string): Promise<EntityRow> {
  return await requireEntity(tx, appUuid, NOTIFIERS.name, id);
}

export async function findNotifier(tx: Tx, appUuid: string, id: string): Promise<EntityRow | undefined> {
  return await findEntityIn(tx, appUuid, NOTIFIERS.name, id);
}

/** What a provider client needs: the notifier's settings with its secret. */
export async function notifierConfig(tx: Tx, row: EntityRow): Promise<NotifierConfig> {
  return {
    uuid: row.uuid,
    name: row.name ?? row.uuid,
    environment: row.properties.environment === 'production' ? 'production' : 'development',
    visible: row.properties,
    secret: await readNotifierSecret(tx, row.uuid),
  };
}

/**
 * The device property that holds a device's push token for this notifier
 * (docs/api.md#push-notifications).
 */
export function tokenProperty(notifierName: string): string {
  return `${notifierName}.notifier.id`;
}
