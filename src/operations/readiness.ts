/**
 * Readiness (GET /readyz): whether this instance can serve requests now — its database answers
 * within a short time, carries every migration this program knows, and the signing keys are
 * loaded. A load balancer or orchestrator polls it, so it costs one small read while ready (the
 * keys come from memory; they are read, or created on a first start, only when not yet loaded).
 */
import { migrationStatus } from '../db/open.js';
import type { Deps } from '../deps.js';

export type Readiness = { ready: true } | { ready: false; reason: string };

/** Longer than any healthy database takes for one read; short enough for a probe's own time-out. */
const READINESS_TIMEOUT_MS = 2000;

/** Whether each Deps was ready at its last check: a change is logged once, not every poll. */
const lastState = new WeakMap<Deps, boolean>();

function reasonOf(error: unknown): string {
  // An error's code (ECONNREFUSED, 57P01, …) tells an operator enough, and tells a stranger nothing.
  const { code, message } = error as { code?: unknown; message?: unknown };
  return typeof code === 'string' ? code : typeof message === 'string' ? message : String(error);
}

async function check(deps: Deps): Promise<Readiness> {
  let migrations: { applied: number; expected: number };
  try {
    migrations = await migrationStatus(deps.db);
  } catch (error) {
    return { ready: false, reason: `the database does not answer (${reasonOf(error)})` };
  }
  if (migrations.applied < migrations.expected) {
    return { ready: false, reason: `the database lacks migrations: ${migrations.applied} of ${migrations.expected} applied` };
  }
  try {
    await Promise.all([deps.keys.signingKey('access_token'), deps.keys.signingKey('id_token')]);
  } catch (error) {
    return { ready: false, reason: `the signing keys cannot be loaded (${reasonOf(error)})` };
  }
  return { ready: true };
}

export async function checkReadiness(deps: Deps, timeoutMs = READINESS_TIMEOUT_MS): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Readiness>((resolve) => {
    timer = setTimeout(() => resolve({ ready: false, reason: `the database did not answer within ${timeoutMs} ms` }), timeoutMs);
  });
  const result = await Promise.race([check(deps), late]).finally(() => clearTimeout(timer));
  if (lastState.get(deps) !== result.ready) {
    lastState.set(deps, result.ready);
    if (result.ready) deps.logger.info({ event: 'ready' }, 'ready to serve');
    else deps.logger.warn({ event: 'not_ready', reason: result.reason }, 'not ready');
  }
  return result;
}
