/**
 * `idp serve`: opens the database, applies --superuser and --fixtures, listens, and on SIGINT or
 * SIGTERM stops accepting, lets in-flight requests finish, then closes the database (so every
 * acknowledged write is on disk) and resolves.
 */
import { getRequestListener, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { ConfigError, type Config } from '../src/config.js';
import { openDatabase, redactUrl, type Database_ } from '../src/db/open.js';
import { DatabaseTooNewError } from '../src/db/schema-version.js';
import { createLogger, type Logger } from '../src/logger.js';
import { createDeps } from '../src/create-deps.js';
import type { Deps } from '../src/deps.js';
import { ensureSuperuser } from '../src/management/admin-users.js';
import { applyFixtures, checkFixturePasswords, readFixtures } from '../src/fixtures/apply.js';
import { findPasswordProblem } from '../src/password-policy.js';
import type { Hono } from 'hono';
import { createApp } from './app.js';
import { createSecureServer, sendsHsts } from './middleware/secure-headers.js';
import { refusingRawBackslash } from './middleware/path-segments.js';
import { limitingBodyTime } from './middleware/body-time.js';
import type { Env } from './env.js';
import { createMetricsApp } from './routes/metrics.js';
import { startDeliveryWorker } from '../src/push/worker.js';
import { startLogoutWorker } from '../src/identity/sessions/logout-worker.js';
import { postLogoutToken } from './logout-post.js';
import { startHousekeeping } from '../src/operations/housekeeping.js';
import { startPropertyIndexBackfill } from '../src/data/property-index-backfill.js';
import { keepPlannerStatistics } from '../src/db/planner-statistics.js';

export interface RunningServer {
  url: string;
  /** Where `--metrics-port` serves /metrics, when given. */
  metricsUrl?: string;
  deps: Deps;
  /** Resolves once the delivery worker has found nothing more to do (see DeliveryWorker.idle). */
  deliveriesIdle(): Promise<void>;
  /** Resolves once the property index holds every entity (or the server is closing). */
  propertyIndexBuilt(): Promise<void>;
  close(): Promise<void>;
}

async function openStorage(config: Config): Promise<Database_> {
  if (config.databaseUrl) {
    try {
      return await openDatabase({ url: config.databaseUrl, poolSize: config.databasePoolSize });
    } catch (error) {
      if (error instanceof DatabaseTooNewError) throw error;
      const reason = (error as { code?: string; message?: string }).code ?? (error as Error).message;
      throw new ConfigError(`cannot open database ${redactUrl(config.databaseUrl)}: ${reason}`);
    }
  }
  if (config.db !== ':memory:') {
    const dir = dirname(resolve(config.db));
    if (!existsSync(dir)) throw new ConfigError(`cannot open database ${config.db}: directory ${dir} does not exist`);
  }
  try {
    return await openDatabase({ path: config.db });
  } catch (error) {
    if (error instanceof DatabaseTooNewError) throw error;
    const reason = (error as { code?: string; message?: string }).code ?? (error as Error).message;
    throw new ConfigError(`cannot open database ${config.db}: ${reason}`);
  }
}

function listen(app: Hono<Env>, config: Config, port: number): Promise<ServerType> {
  return new Promise((resolvePromise, reject) => {
    // HSTS only where clients reach the server over https; an issuer not given is http (below).
    const hsts = sendsHsts(config.issuer);
    const listener = refusingRawBackslash(getRequestListener(app.fetch, { hostname: config.host }));
    const server = createSecureServer(limitingBodyTime(listener, config.bodyTimeout * 1000), { hsts });
    server.listen(port, config.host, () => resolvePromise(server));
    server.once('error', (error: NodeJS.ErrnoException) => {
      const reason = error.code === 'EADDRINUSE' ? 'the port is in use' : error.code === 'EACCES' ? 'permission denied' : error.message;
      reject(new ConfigError(`cannot listen on ${config.host}:${port}: ${reason}`));
    });
  });
}

/** Stops accepting; in-flight requests finish, idle keep-alive sockets are closed. */
function closeServer(server: ServerType | undefined): Promise<void> {
  if (server === undefined) return Promise.resolve();
  return new Promise<void>((done) => {
    server.close(() => done());
    // Idle keep-alive sockets would hold close() open; in-flight requests still finish.
    if ('closeIdleConnections' in server) server.closeIdleConnections();
  });
}

function urlOf(host: string, server: ServerType): string {
  const { port } = server.address() as AddressInfo;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** `now` is the server's clock (deps.now): tokens, sessions, codes and the push queue read it. */
export async function startServer(config: Config, logger: Logger = createLogger(config.logLevel), now: () => number = Date.now): Promise<RunningServer> {
  // Read the fixtures and check the passwords before touching the database, so a bad file or
  // --superuser changes nothing.
  const fixtures = config.fixtures ? await readFixtures(config.fixtures) : undefined;
  if (fixtures) await checkFixturePasswords(fixtures, config.passwordPolicy, config.fixtures!);
  if (config.superuser) {
    const problem = await findPasswordProblem(config.passwordPolicy, config.superuser.password, config.superuser, 'the --superuser password');
    if (problem !== undefined) throw new ConfigError(problem);
  }
  const database = await openStorage(config);
  let deps: Deps;
  try {
    deps = await createDeps(database.db, config, logger, now);
  } catch (error) {
    await database.close();
    if (!config.redisUrl) throw error;
    const reason = (error as { code?: string; message?: string }).code ?? (error as Error).message;
    throw new ConfigError(`cannot connect to Redis at ${redactUrl(config.redisUrl)}: ${reason}`);
  }
  try {
    if (config.superuser) await ensureSuperuser(deps, config.superuser.username, config.superuser.password);
    if (fixtures) {
      const summary = await applyFixtures(deps, fixtures);
      logger.info({ fixtures: config.fixtures, ...summary }, 'fixtures applied');
      if (summary.skipped > 0)
        logger.warn({ skipped: summary.skipped }, 'items inside applications are applied over HTTP: run `idp fixtures apply FILE` against this server');
    }
    const server = await listen(createApp(deps), config, config.port);
    const url = urlOf(config.host, server);
    // On the same host as the API, never another interface: the port has no token in front of it.
    const metricsServer =
      config.metricsPort === undefined
        ? undefined
        : await listen(createMetricsApp(deps), config, config.metricsPort).catch(async (error: unknown) => {
            await closeServer(server);
            throw error;
          });
    // The issuer follows the bound port when --port 0 picked one.
    config.issuer ??= url;
    const worker = startDeliveryWorker(deps, {
      apnsUrl: config.apnsUrl,
      fcmUrl: config.fcmUrl,
      leaseMs: config.pushLeaseMs,
      requestTimeoutMs: Math.min(15_000, config.pushLeaseMs / 2),
    });
    const logoutWorker = startLogoutWorker(deps, postLogoutToken);
    const housekeeping = startHousekeeping(deps);
    // After listening: an older database is answered (without the index) while it is filled.
    const backfill = startPropertyIndexBackfill(deps, config.propertyIndexBatch);
    const statistics = keepPlannerStatistics(deps.db, (error) =>
      logger.warn({ err: error }, 'planner statistics: VACUUM or ANALYZE failed; the next bulk write tries again'),
    );
    let closing: Promise<void> | undefined;
    return {
      url,
      metricsUrl: metricsServer && urlOf(config.host, metricsServer),
      deps,
      deliveriesIdle: () => worker.idle(),
      propertyIndexBuilt: () => backfill.finished(),
      close() {
        closing ??= (async () => {
          // Sends in flight finish and are recorded while the last requests are answered.
          const drained = Promise.all([worker.stop(), logoutWorker.stop(), housekeeping.stop(), backfill.stop(), statistics.stop()]);
          await Promise.all([closeServer(server), closeServer(metricsServer)]);
          await drained;
          // Mail already handed over (a reset link, say) goes out before the process ends.
          await deps.mailer.close().catch(() => undefined);
          await deps.throttle.close();
          await database.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    await deps.throttle.close();
    await database.close();
    throw error;
  }
}
