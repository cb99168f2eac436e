/**
 * WAL checkpoints off the event loop. SQLite copies the write-ahead log back into the database
 * file (a checkpoint) on the connection that commits, by default whenever the log passes 1,000
 * pages: measured here that made an average commit cost 190 µs instead of 75, and every few
 * hundred commits one of them stopped the whole server for the checkpoint's writes and fsyncs
 * (26 ms seen).
 *
 * With the automatic checkpoint off, a worker thread with a connection of its own checkpoints
 * every CHECKPOINT_INTERVAL_MS while there are new commits. It does so holding the connection
 * the way a transaction does (`hold`, the driver's transaction): no write can land while it
 * copies, so the checkpoint always completes and the next write starts the log from its
 * beginning again (a checkpoint racing the writer never catches up, and the log would only
 * grow). Statements wait those few milliseconds asynchronously; the event loop stays free. The
 * last connection to close checkpoints whatever is left, as SQLite always does.
 *
 * The worker loads better-sqlite3 from node_modules; the single executable has none to load it
 * from, so there (createCheckpointer gives undefined) SQLite keeps its automatic checkpoint.
 */
import { existsSync } from 'node:fs';
import { assetPath, isSingleExecutable } from '../runtime/assets.js';
import { Worker } from 'node:worker_threads';

const CHECKPOINT_INTERVAL_MS = 250;

// CommonJS, evaluated in the worker: one connection, one checkpoint per message.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.path, { fileMustExist: true, nativeBinding: workerData.nativeBinding });
db.pragma('busy_timeout = 5000');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    process.exit(0);
  }
  let error = null;
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (e) { error = String(e && e.message || e); }
  parentPort.postMessage(error);
});
`;

export interface Checkpointer {
  /** A commit happened: a checkpoint is due within the interval. */
  committed(): void;
  /** Resolves once no checkpoint is waiting for its interval or running. */
  settled(): Promise<void>;
  /** Stops the worker (after the checkpoint it may be running). */
  close(): Promise<void>;
}

/** better-sqlite3's entry file, if it can be loaded from disk (not inside the single executable). */
function betterSqliteModule(): string | undefined {
  if (isSingleExecutable()) return undefined;
  const path = assetPath('node_modules/better-sqlite3/lib/index.js');
  return existsSync(path) ? path : undefined;
}

/** Runs `body` while no statement of the database's own connection runs (its transaction lock). */
export type Hold = (body: () => Promise<void>) => Promise<void>;

export interface CheckpointerOptions {
  /** The database file. */
  path: string;
  nativeBinding: string | undefined;
  hold: Hold;
  /** The worker could not start or died: SQLite must checkpoint on its own again. */
  fallBack: () => void;
  onError: (message: string) => void;
  /** better-sqlite3's entry file; found in node_modules unless given (tests give a broken one). */
  module?: string;
}

/**
 * A checkpointer for the database file at `path`, or undefined where none can run (then leave
 * SQLite's automatic checkpoint on). The worker starts with the first commit, not at start-up.
 * Should it fail or die, it is not started again: `fallBack` turns SQLite's own checkpoint back
 * on, and nothing waits for the dead worker.
 */
export function createCheckpointer(options: CheckpointerOptions): Checkpointer | undefined {
  const { path, nativeBinding, hold, fallBack, onError } = options;
  const module = options.module ?? betterSqliteModule();
  if (module === undefined) return undefined;
  let worker: Worker | undefined;
  let alive = false;
  let failed = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let closed = false;
  // Callers of settled() waiting for the timer to start its checkpoint (or for close to cancel it).
  const whenStarted: (() => void)[] = [];
  const timerDone = () => {
    for (const resolve of whenStarted.splice(0)) resolve();
  };

  const start = (): Worker => {
    const started = new Worker(WORKER_SOURCE, { eval: true, workerData: { module, path, nativeBinding } });
    alive = true;
    started.unref();
    started.on('error', (error) => onError(error.message));
    started.once('exit', () => {
      alive = false;
      if (closed) return;
      failed = true;
      onError('the checkpoint worker stopped; SQLite checkpoints on its own again');
      fallBack();
    });
    return started;
  };

  /** One checkpoint in the worker; resolves when it has answered or is gone. */
  const inWorker = (current: Worker) =>
    new Promise<void>((resolve) => {
      if (!alive) return resolve();
      const done = (error: string | null) => {
        current.off('message', done);
        current.off('exit', exited);
        if (error) onError(error);
        resolve();
      };
      const exited = () => done(null);
      current.once('message', done);
      current.once('exit', exited);
      current.postMessage('checkpoint');
    });

  const checkpoint = () => {
    timer = undefined;
    if (!closed && !failed && !running) {
      const current = (worker ??= start());
      running = hold(() => inWorker(current))
        .catch((error: Error) => onError(error.message))
        .finally(() => (running = undefined));
    }
    timerDone();
  };

  return {
    committed() {
      if (!closed && !failed && timer === undefined) {
        timer = setTimeout(checkpoint, CHECKPOINT_INTERVAL_MS);
        timer.unref();
      }
    },
    async settled() {
      while (timer !== undefined || running !== undefined) {
        if (timer !== undefined) await new Promise<void>((resolve) => whenStarted.push(resolve));
        else await running;
      }
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      timerDone();
      // Unreferenced, the worker would not keep the process alive while it is awaited here.
      worker?.ref();
      await running;
      if (worker && alive) {
        const exited = new Promise((resolve) => worker!.once('exit', resolve));
        worker.postMessage('close');
        await exited;
      }
    },
  };
}
