// The API test suite again, on PostgreSQL (`npm test` runs it after the SQLite run). Every test
// app gets a schema of its own on the server IDP_TEST_DATABASE_URL names (default: the local
// server, database `test`); where no server answers, the run is skipped with a message, or fails
// when IDP_TEST_REQUIRE_POSTGRES=1 (as .ci/run sets it), so a missing server cannot hide the run.
// Usage: node scripts/test-postgres.js [vitest filters…]
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join, relative } from 'node:path';
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

// Test files that build their app on test/helpers.ts or test/database.ts (and so on the database
// the environment names), plus those that start servers on PostgreSQL themselves.
const USES_DATABASE =
  /createTestApp|createDataTest|createLifecycleApp|createTenantApp|openQueryDatabase|openTestDatabase|startTestServer|startSdkTenant|IDP_TEST_DATABASE_URL/;

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') && USES_DATABASE.test(readFileSync(path, 'utf8')) ? [relative(root, path)] : [];
  });
}

if (await reachable()) {
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
