/**
 * Several `idp serve` child processes (test/spawn.ts) on one PostgreSQL schema of their own, as
 * they would run behind a load balancer: one `--issuer` for all, each on its own port. The
 * PostgreSQL server is IDP_TEST_DATABASE_URL's, or the local one when that is not set, so these
 * tests run on PostgreSQL whatever the environment says; where none answers they are skipped.
 */
import { beforeEach } from 'vitest';
import pg from 'pg';
import { Agent, fetch as fetchVia } from 'undici';
import { startIdp, type RunningIdp } from '../spawn.js';
import { createTestSchema, POSTGRES_URL, postgresProblem, type TestSchema } from '../database.js';
import { readResponse, type TestResponse } from '../helpers.js';

export const DATABASE_URL = POSTGRES_URL;
export const REDIS_URL = 'redis://127.0.0.1:6379';
/** What every instance publishes; requests go to each instance's own port. */
export const ISSUER = 'http://idp.multi.test';

export { postgresProblem };

/** Why Redis cannot be used (undefined when it answers PING). */
export async function redisProblem(): Promise<string | undefined> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG' ? undefined : 'Redis did not answer PING';
  } catch (error) {
    return `no Redis answers at ${REDIS_URL} (${(error as { code?: string }).code ?? (error as Error).message})`;
  } finally {
    redis.disconnect();
  }
}

/** A random schema on the test server (every instance is given its `url`); `sql` runs statements on it. */
export interface Schema extends TestSchema {
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
}

export async function createSchema(): Promise<Schema> {
  const schema = createTestSchema(DATABASE_URL);
  // One connection for the test's own reads; the instances create the schema and migrate it.
  const client = new pg.Client({ connectionString: schema.url, connectionTimeoutMillis: 5000 });
  await client.connect();
  return {
    name: schema.name,
    url: schema.url,
    async sql<T>(text: string, params: unknown[] = []) {
      return (await client.query(text, params)).rows as T[];
    },
    async drop() {
      await client.end().catch(() => undefined);
      await schema.drop();
    },
  };
}

export interface InstanceOptions {
  readonly args?: string[];
  readonly env?: NodeJS.ProcessEnv;
}

/** One `idp serve` on the schema, on a port of its own, publishing ISSUER. */
export function startInstance(schema: Schema, options: InstanceOptions = {}): Promise<RunningIdp> {
  const args = ['--port', '0', '--database-url', schema.url, '--database-pool-size', '4', '--issuer', ISSUER, '--log-level', 'warn', ...(options.args ?? [])];
  return startIdp(args, options.env, 30_000);
}

/** On a failed test, prints the last lines each instance logged (warnings and errors): they help explain it. */
export function logInstancesOnFailure(instances: () => Record<string, RunningIdp | undefined>): void {
  beforeEach(({ onTestFailed }) => {
    onTestFailed(() => {
      for (const [name, instance] of Object.entries(instances())) {
        const log = instance?.stderr().trim();
        if (log) console.log(`stderr of instance ${name}:\n${log.split('\n').slice(-20).join('\n')}`);
      }
    });
  });
}

/** Stops what is still running: SIGTERM, then SIGKILL after a few seconds. */
export async function stopAll(instances: readonly (RunningIdp | undefined)[]): Promise<void> {
  await Promise.all(
    instances.map(async (instance) => {
      if (!instance || instance.child.exitCode !== null || instance.child.signalCode !== null) return;
      const timer = setTimeout(() => instance.child.kill('SIGKILL'), 5000);
      await instance.stop('SIGTERM');
      clearTimeout(timer);
    }),
  );
}

export type Answer = TestResponse;

export interface CallOptions {
  json?: unknown;
  form?: Record<string, string>;
  token?: string;
  headers?: Record<string, string>;
  /** The local address to connect from (any of 127.0.0.0/8 reaches a server on 127.0.0.1). */
  from?: string;
}

const agents = new Map<string, Agent>();

function agentFrom(localAddress: string): Agent {
  let agent = agents.get(localAddress);
  if (!agent) agents.set(localAddress, (agent = new Agent({ localAddress })));
  return agent;
}

/** Closes the connections made with `from`. */
export async function closeAgents(): Promise<void> {
  await Promise.all([...agents.values()].map((agent) => agent.close()));
  agents.clear();
}

/** One request with a bounded wait; JSON or a form in, JSON (when it is JSON) out. */
export async function call(base: string, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  }
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const init = { method, headers, body, signal: AbortSignal.timeout(20_000) };
  if (!options.from) return readResponse(await fetch(`${base}${path}`, init));
  // undici's own Response reads as the global one does (status, headers.get, text); only its
  // declared iterator types differ from @types/node's.
  return readResponse((await fetchVia(`${base}${path}`, { ...init, dispatcher: agentFrom(options.from) })) as unknown as Response);
}

/** `call`, failing on anything but 200. */
export async function must(base: string, method: string, path: string, options: CallOptions = {}) {
  const answer = await call(base, method, path, options);
  if (answer.status !== 200) throw new Error(`${method} ${base}${path} → ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body as any;
}

/** Polls `check` until it returns a value other than undefined; fails after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000, intervalMs = 50): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
