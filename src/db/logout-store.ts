/**
 * The storage of the back-channel logout queue (logout_deliveries, schema-authorize.ts): queue,
 * lease, finish, retry, and put back leases that ran out. What an answer means and when to retry
 * is in identity/sessions/logout-worker.ts; this module only reads and writes. A lease changes
 * only rows still `queued`, so two instances that find the same due rows lease each of them once.
 */
import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import { type Db, schemaOf } from './open.js';
import type { logoutDeliveries } from './schema.js';
import { changes, execute, first } from './run.js';

export type LogoutDelivery = typeof logoutDeliveries.$inferSelect;

/** One client to tell that a user, or one session of theirs, signed out. */
export interface LogoutNotice {
  clientId: string;
  sub: string | null;
  sid: string | null;
}

export async function queueLogoutDeliveries(db: Db, notices: readonly LogoutNotice[], now: number): Promise<void> {
  const { logoutDeliveries } = schemaOf(db);
  if (notices.length === 0) return;
  // The columns named: PostgreSQL's identity column takes no explicit null for `id`.
  const rows = notices.map((notice) => sql`(${notice.clientId}, ${notice.sub}, ${notice.sid}, 'queued', 0, ${now}, ${now})`);
  await execute(db, sql`insert into ${logoutDeliveries} (client_id, sub, sid, state, attempts, due_at, created) values ${sql.join(rows, sql`, `)}`);
}

/** Leases up to `limit` due deliveries for `leaseMs`, each attempt counted. */
export async function leaseLogoutDeliveries(db: Db, limit: number, now: number, leaseMs: number): Promise<LogoutDelivery[]> {
  const { logoutDeliveries } = schemaOf(db);
  const due = await db
    .select({ id: logoutDeliveries.id })
    .from(logoutDeliveries)
    .where(and(eq(logoutDeliveries.state, 'queued'), lte(logoutDeliveries.dueAt, now)))
    .orderBy(asc(logoutDeliveries.dueAt))
    .limit(limit);
  if (due.length === 0) return [];
  return await db
    .update(logoutDeliveries)
    .set({ state: 'leased', leaseUntil: now + leaseMs, attempts: sql`${logoutDeliveries.attempts} + 1` })
    .where(
      and(
        inArray(
          logoutDeliveries.id,
          due.map((row) => Number(row.id)),
        ),
        eq(logoutDeliveries.state, 'queued'),
      ),
    )
    .returning();
}

/**
 * Records an attempt's answer: final (`sent`, `failed`), or back in the queue until `retryAt`.
 * Only the lease that made the attempt records it: false when the lease ran out and another
 * attempt has been made since.
 */
export async function recordLogoutAttempt(
  db: Db,
  delivery: LogoutDelivery,
  answer: { state: 'sent' | 'failed' | 'queued'; error: string | null; retryAt?: number },
  now: number,
): Promise<boolean> {
  const { logoutDeliveries } = schemaOf(db);
  const final = answer.state !== 'queued';
  const updated = await db
    .update(logoutDeliveries)
    .set({
      state: answer.state,
      // A later success keeps the last failure's reason, for operators.
      ...(answer.error !== null && { error: answer.error }),
      leaseUntil: null,
      ...(final ? { finished: now } : { dueAt: answer.retryAt ?? now }),
    })
    .where(and(eq(logoutDeliveries.id, delivery.id), eq(logoutDeliveries.state, 'leased'), eq(logoutDeliveries.attempts, delivery.attempts)));
  return changes(updated) === 1;
}

/** Leases that ran out (their worker died or hung) go back to the queue. */
export async function recoverLogoutLeases(db: Db, now: number): Promise<number> {
  const { logoutDeliveries } = schemaOf(db);
  return changes(
    await db
      .update(logoutDeliveries)
      .set({ state: 'queued', leaseUntil: null })
      .where(and(eq(logoutDeliveries.state, 'leased'), lte(logoutDeliveries.leaseUntil, now))),
  );
}

/** Whether anything is queued or leased: an idle worker asks this and nothing more. */
export async function hasUnfinishedLogoutDeliveries(db: Db): Promise<boolean> {
  const { logoutDeliveries } = schemaOf(db);
  const row = await first(
    db
      .select({ id: logoutDeliveries.id })
      .from(logoutDeliveries)
      .where(inArray(logoutDeliveries.state, ['queued', 'leased']))
      .limit(1),
  );
  return row !== undefined;
}

/** Deliveries finished before `before` (sent or failed) are forgotten; returns how many. */
export async function pruneLogoutDeliveries(db: Db, before: number): Promise<number> {
  const { logoutDeliveries } = schemaOf(db);
  return changes(await db.delete(logoutDeliveries).where(and(inArray(logoutDeliveries.state, ['sent', 'failed']), lte(logoutDeliveries.finished, before))));
}

/** The deliveries to one client, in the order they were queued (tests and operators). */
export async function listLogoutDeliveries(db: Db, clientId: string): Promise<LogoutDelivery[]> {
  const { logoutDeliveries } = schemaOf(db);
  return await db.select().from(logoutDeliveries).where(eq(logoutDeliveries.clientId, clientId)).orderBy(asc(logoutDeliveries.id));
}
