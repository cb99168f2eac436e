/**
 * PostgreSQL's side of the read cache (read-cache.ts, docs/design.md#the-read-cache): one
 * connection per instance LISTENs on `idp_changed`, where a trigger on each remembered table
 * (migration 0014_change_feed) names `schema.table` at the commit of every statement that changed
 * it, by any instance or tool — but an insert into `entities` (0026_change_feed_without_inserts,
 * see read-cache.ts for what is remembered of it). Each name that belongs to this instance's
 * schema reaches `changed`.
 *
 * Correct when a notification is missed: while the connection is down nothing is remembered
 * (`version` differs on every call, so every read goes to the database), and when it is back
 * every remembered read is dropped (`version` moves on), since changes made meanwhile were not
 * heard. What is left is the time a notification takes to arrive, a millisecond or so on one
 * network: a change committed by another instance is seen by the requests that start after.
 *
 * What it buys (2026-11-25, docs/benchmarks.md#postgresql, against every lookup going to the
 * database): `get-entity` 7,773 vs 400 req/s, 66 vs 768 µs CPU per request; 2.99 statements per
 * `GET` of an entity instead of 13.56.
 */
import pg from 'pg';

export const CHANGE_CHANNEL = 'idp_changed';

/** The wait before connecting again grows to this. */
const MAX_RETRY_MS = 5000;
/** A round trip on the feed's connection slower than this counts as the connection lost. */
const SYNC_TIMEOUT_MS = 2000;

export interface ChangeFeed {
  /** The same number while listening without a gap; another one on every call otherwise. */
  version(): number;
  /**
   * Resolves once every change committed before the call has reached `changed`: after a round
   * trip on the feed's connection that started after the call. PostgreSQL sends the
   * notifications a session has received before the answer to its next query (PostgreSQL 14 and
   * later process them before ReadyForQuery), so nothing is waited for but that one round trip,
   * which callers arriving together share.
   */
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface ChangeFeedOptions {
  /** The instance's database URL (its search_path names the schema). */
  readonly url: string;
  /** A table of this instance's schema changed. */
  changed(table: string): void;
}

export function startChangeFeed(options: ChangeFeedOptions): ChangeFeed {
  let client: pg.Client | undefined;
  let listening = false;
  let generation = 0;
  let unheard = 0;
  let closed = false;
  let retryMs = 100;
  let retry: NodeJS.Timeout | undefined;

  function lost(gone: pg.Client): void {
    if (gone !== client) return;
    listening = false;
    client = undefined;
    gone.end().catch(() => undefined);
    if (closed) return;
    retry = setTimeout(() => void connect(), retryMs);
    retry.unref();
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  }

  async function connect(): Promise<void> {
    const connection = new pg.Client({ connectionString: options.url, connectionTimeoutMillis: 5000 });
    client = connection;
    connection.on('error', () => lost(connection));
    connection.on('end', () => lost(connection));
    try {
      await connection.connect();
      const [{ schema }] = (await connection.query('select current_schema() as schema')).rows as { schema: string }[];
      const prefix = `${schema}.`;
      connection.on('notification', (message) => {
        if (message.channel === CHANGE_CHANNEL && message.payload?.startsWith(prefix)) options.changed(message.payload.slice(prefix.length));
      });
      await connection.query(`listen ${CHANGE_CHANNEL}`);
      if (connection !== client || closed) return;
      generation++;
      listening = true;
      retryMs = 100;
    } catch {
      lost(connection);
    }
  }

  let inFlight: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  function roundTrip(connection: pg.Client): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        lost(connection);
        resolve();
      }, SYNC_TIMEOUT_MS);
    });
    const trip = connection.query('select 1').then(
      () => undefined,
      () => lost(connection),
    );
    return Promise.race([trip, timeout]).finally(() => {
      clearTimeout(timer);
      inFlight = undefined;
    });
  }
  function sync(): Promise<void> {
    // Not listening: nothing is remembered meanwhile, so there is nothing to wait for.
    if (!listening || client === undefined) return Promise.resolve();
    if (inFlight === undefined) return (inFlight = roundTrip(client));
    // The round trip under way may have started before this call: the next one answers it.
    return (queued ??= inFlight.then(() => {
      queued = undefined;
      return sync();
    }));
  }

  void connect();
  return {
    version: () => (listening ? generation : -++unheard),
    sync,
    async close() {
      closed = true;
      clearTimeout(retry);
      listening = false;
      const open = client;
      client = undefined;
      await open?.end().catch(() => undefined);
    },
  };
}
