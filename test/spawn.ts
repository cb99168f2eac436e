/**
 * Runs the real `idp` executable (bin/idp.js over dist/bundle/, built by `npm test`) as a child
 * process, for tests of start-up, flags, signals and the CLI.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createTestSchema, TEST_DATABASE_URL } from './database.js';

export const BIN = fileURLToPath(new URL('../bin/idp.js', import.meta.url));

export interface RunningIdp {
  url: string;
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the first match of `pattern` in stderr, once it is written. */
  stderrMatch(pattern: RegExp): Promise<RegExpExecArray>;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The database of `idp serve` children that a test starts, stops and reads. */
export interface TestDatabase {
  /** The flags that put a server on it. */
  readonly args: string[];
  /** The same as environment variables (IDP_DB or IDP_DATABASE_URL). */
  readonly env: Record<string, string>;
  /** The rows of a query, read apart from the server (after it stopped, say). */
  rows(sql: string): Promise<Record<string, unknown>[]>;
  /** Removes it (a PostgreSQL schema; the test removes its own files). */
  drop(): Promise<void>;
}

/**
 * The SQLite database `file` (`:memory:` for a throwaway one), or — under IDP_TEST_DATABASE_URL
 * (scripts/test-postgres.js) — a fresh PostgreSQL schema instead, as test/database.ts gives the
 * servers started in the test's own process.
 */
export function testDatabase(file: string): TestDatabase {
  if (TEST_DATABASE_URL === undefined) {
    return {
      args: ['--db', file],
      env: { IDP_DB: file },
      async rows(sql) {
        const db = new Database(file, { readonly: true });
        try {
          return db.prepare(sql).all() as Record<string, unknown>[];
        } finally {
          db.close();
        }
      },
      drop: async () => undefined,
    };
  }
  const schema = createTestSchema();
  return {
    args: ['--database-url', schema.url, '--database-pool-size', '4'],
    env: { IDP_DATABASE_URL: schema.url, IDP_DATABASE_POOL_SIZE: '4' },
    async rows(sql) {
      const client = new pg.Client({ connectionString: schema.url });
      await client.connect();
      try {
        return (await client.query(sql)).rows as Record<string, unknown>[];
      } finally {
        await client.end();
      }
    },
    drop: () => schema.drop(),
  };
}

/**
 * `--db :memory:` in `startIdp`'s arguments asks for a throwaway database: under
 * IDP_TEST_DATABASE_URL a schema of the server's own, dropped when it exits. A file path stays:
 * those tests are about the file, or start and read it with testDatabase().
 */
function throwawayDatabase(args: string[]): { args: string[]; drop(): Promise<void> } {
  const at = args.findIndex((arg, index) => arg === '--db' && args[index + 1] === ':memory:');
  if (TEST_DATABASE_URL === undefined || at === -1) return { args, drop: async () => undefined };
  const database = testDatabase(':memory:');
  return { args: [...args.slice(0, at), ...database.args, ...args.slice(at + 2)], drop: () => database.drop() };
}

/**
 * `idp serve ARGS` until it listens (`--db :memory:` on the test database: throwawayDatabase). `command` is
 * what runs `idp`: node over bin/idp.js by default, or a single executable.
 */
export function startIdp(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 15_000, command: string[] = [process.execPath, BIN]): Promise<RunningIdp> {
  const [file, ...prefix] = command;
  const database = throwawayDatabase(args);
  const child = spawn(file, [...prefix, 'serve', ...database.args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (chunk) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code))).then(async (code) => {
    // A schema left behind is litter on the test server, not the test's failure.
    await database.drop().catch(() => undefined);
    return code;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`idp did not start within ${timeoutMs} ms\nstdout: ${out}\nstderr: ${err}`));
    }, timeoutMs);
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const match = out.match(/listening on (http:\/\/\S+)/);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1],
          child,
          stdout: () => out,
          stderr: () => err,
          stderrMatch: (pattern) => matchOutput(child.stderr!, err, pattern),
          stop(signal = 'SIGTERM') {
            child.kill(signal);
            return exited;
          },
        });
      }
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`idp exited with ${code} before listening\nstdout: ${out}\nstderr: ${err}`));
    });
  });
}

/**
 * Resolves with the first match of `pattern` in a child's output: in `before` (what it wrote so
 * far) or in what it writes next. Rejects if the output ends without one.
 */
export function matchOutput(stream: Readable, before: string, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let text = before;
    const found = () => pattern.exec(text);
    const onData = (chunk: Buffer | string) => {
      text += chunk;
      const match = found();
      if (match === null) return;
      stop();
      resolve(match);
    };
    const onEnd = () => {
      stop();
      reject(new Error(`the output ended without a match of ${pattern}:\n${text}`));
    };
    const stop = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
    };
    const match = found();
    if (match !== null) return resolve(match);
    stream.on('data', onData);
    stream.on('end', onEnd);
  });
}

/** Runs `idp ARGS` to completion; stdin is never a terminal: `input` when given, else empty. */
export function runIdp(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 15_000,
  input?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (input !== undefined) child.stdin!.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    // 'close', not 'exit': the child may have exited before its last output was read from the pipes.
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
