// The test suite again, on PostgreSQL (`npm test` runs it after the SQLite run). Every test app
// and every server a test starts gets a schema of its own on the server IDP_TEST_DATABASE_URL
// names (default: the local server, database `test`); where no server answers, the run is
// skipped with a message, or fails when IDP_TEST_REQUIRE_POSTGRES=1 (as .ci/run sets it), so a
// missing server cannot hide the run.
// Usage: node scripts/test-postgres.js [vitest filters…]
//        node scripts/test-postgres.js --list   (the files it runs, and those it leaves out and why)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const url = process.env.IDP_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

async function reachable() {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch (error) {
    const problem = `no server answers at ${url.replace(/:[^:@/]*@/, ':***@')} (${error.code ?? error.message})`;
    if (process.env.IDP_TEST_REQUIRE_POSTGRES === '1') {
      console.error(`PostgreSQL tests failed: IDP_TEST_REQUIRE_POSTGRES=1, but ${problem}`);
      process.exitCode = 1;
    } else {
      console.log(`PostgreSQL tests skipped: ${problem}`);
    }
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

// Which test files run again here: every one that reaches test/database.ts (the test database:
// createTestApp, startTestServer and the helpers built on them) or test/spawn.ts (`idp serve` and
// the CLI as child processes; `--db :memory:` becomes a schema of their own) through its imports,
// directly or through the shared test modules — except these, for the reason given
// (docs/testing.md, "PostgreSQL").
const NOT_AGAIN = {
  'test/db/backup.test.ts': 'SQLite only: `idp db backup` copies the SQLite file (PostgreSQL has pg_dump)',
  'test/bin/runtime.test.ts': 'the move onto the shipped Node.js, before any database is opened',
  'test/cli/readme.test.ts': "the README and docs/cli.md against each command's --help; no server",
  'test/query/parse.test.ts': 'the query parser alone; no database',
  'test/db/change-feed.test.ts': "on PostgreSQL already in the SQLite run: PostgreSQL's change feed",
  'test/multi/coherence.test.ts': 'on PostgreSQL already in the SQLite run (test/multi/cluster.ts)',
  'test/multi/instances.test.ts': 'on PostgreSQL already in the SQLite run (test/multi/cluster.ts)',
};

const SHARED = new Set(['test/database.ts', 'test/spawn.ts'].map((path) => join(root, path)));
const IMPORT = /^\s*(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)\.js'/gm;

/** Whether `file` imports one of SHARED, directly or through other modules of test/. */
function reachesShared(file, seen = new Set()) {
  if (SHARED.has(file)) return true;
  if (seen.has(file) || !file.startsWith(join(root, 'test')) || !existsSync(file)) return false;
  seen.add(file);
  return [...readFileSync(file, 'utf8').matchAll(IMPORT)].some((match) => reachesShared(join(dirname(file), `${match[1]}.ts`), seen));
}

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    const name = relative(root, path).split(sep).join('/');
    return entry.name.endsWith('.test.ts') && !(name in NOT_AGAIN) && reachesShared(path) ? [name] : [];
  });
}

if (process.argv[2] === '--list') {
  for (const file of testFiles(join(root, 'test'))) console.log(file);
  for (const [file, reason] of Object.entries(NOT_AGAIN)) console.log(`${file}: not again — ${reason}`);
} else if (await reachable()) {
  const filters = process.argv.slice(2);
  const files = filters.length > 0 ? filters : testFiles(join(root, 'test'));
  console.log(`PostgreSQL run (${url.replace(/:[^:@/]*@/, ':***@')}): ${files.length} test files`);
  // On the Node.js npm ci installed (README, "Runtime"), whichever Node started this script: the
  // native module is built for it.
  const bin = join(root, 'node_modules', '.bin');
  const node = existsSync(join(bin, 'node')) ? join(bin, 'node') : process.execPath;
  const result = spawnSync(node, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...files], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, IDP_TEST_DATABASE_URL: url, PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` },
  });
  process.exitCode = result.status ?? 1;
}
