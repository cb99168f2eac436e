/**
 * `npm run build:bin` makes one file that runs `idp serve` on a machine without Node.js.
 * The binary is built once per run (or reused when newer than every input), copied alone into
 * an empty folder and started with a PATH that holds no `node` and no NODE_* variables.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startIdp, testDatabase, type RunningIdp } from '../spawn.js';

const root = join(import.meta.dirname, '..', '..');
const binary = join(root, 'dist', 'bin', `idp-${process.platform}-${process.arch}`);
// Everything scripts/build-bin.js reads; a binary older than any of them is stale.
const inputs = ['commands', 'server', 'src', 'dist/console', 'scripts/build-bin.js', 'scripts/esbuild-common.js', 'package.json', 'package-lock.json'];
const ORG = { organization: 'binorg', username: 'binadmin', name: 'Bin Admin', email: 'bin@example.com', password: 'binary-pass-123' };

/** Why the executable cannot be built here, or undefined when it can. */
function missingBuildTool(): string | undefined {
  if (process.platform !== 'linux') return `scripts/build-bin.js builds for Linux only, not ${process.platform}`;
  const require = createRequire(import.meta.url);
  for (const tool of ['esbuild', 'postject']) {
    try {
      require.resolve(tool);
    } catch {
      return `${tool} is not installed (npm ci installs it)`;
    }
  }
  if (!readFileSync(process.execPath).includes('NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2')) {
    return `${process.execPath} was built without single executable application support`;
  }
  return undefined;
}

function newestInput(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestInput(join(path, name))));
}

async function ensureBinary(): Promise<void> {
  const fresh = existsSync(binary) && statSync(binary).mtimeMs > Math.max(...inputs.map((input) => newestInput(join(root, input))));
  if (fresh) return;
  await promisify(execFile)(process.execPath, [join(root, 'scripts', 'build-bin.js'), '--quiet'], { cwd: root, timeout: 240_000 });
}

async function post(url: string, body: Record<string, string>) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const temporary: string[] = [];
afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

describe('single executable', () => {
  it('runs serve from an empty folder with no node on PATH: org, credentials, token, status, clean stop', async (context) => {
    const missing = missingBuildTool();
    context.skip(missing !== undefined, `single executable not built: ${missing}`);
    await ensureBinary();

    const binDir = mkdtempSync(join(tmpdir(), 'idp-bin-'));
    const dataDir = mkdtempSync(join(tmpdir(), 'idp-bin-data-'));
    temporary.push(binDir, dataDir);
    const executable = join(binDir, 'idp');
    copyFileSync(binary, executable);
    expect(readdirSync(binDir)).toEqual(['idp']);

    // TMPDIR in the test's own folder: the addon and migrations are unpacked from scratch each run.
    const env = { PATH: [binDir, '/usr/bin/nonexistent'].join(delimiter), HOME: dataDir, TMPDIR: dataDir };
    expect(env.PATH.split(delimiter).some((dir) => existsSync(join(dir, 'node')))).toBe(false);
    // A SQLite file, or a PostgreSQL schema in the PostgreSQL run: the driver and the migrations
    // of either come from inside the binary.
    const database = testDatabase(join(dataDir, 'idp.db'));
    const server: RunningIdp = await startIdp(['--port', '0', ...database.args, '--log-level', 'warn'], env, 30_000, [executable]);
    const { url } = server;
    let stopped = false;
    try {
      const org = await post(`${url}/management/orgs`, ORG);
      expect(org.status).toBe(200);
      expect(org.body).toMatchObject({ entities: [{ orgname: ORG.organization, username: ORG.username }] });

      const adminToken = await post(`${url}/management/token`, { grant_type: 'password', username: ORG.username, password: ORG.password });
      expect(adminToken.status).toBe(200);
      expect(adminToken.body).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });
      const authorization = `Bearer ${String(adminToken.body.access_token)}`;

      const credentials = await fetch(`${url}/management/orgs/${ORG.organization}/credentials`, { headers: { authorization } });
      expect(credentials.status).toBe(200);
      const { client_id, client_secret } = ((await credentials.json()) as { credentials: { client_id: string; client_secret: string } }).credentials;
      const orgToken = await post(`${url}/management/token`, { grant_type: 'client_credentials', client_id, client_secret });
      expect(orgToken.status).toBe(200);
      expect(orgToken.body).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String), organization: expect.any(Object) });

      // The OAuth token endpoint lands on its own branch; once it answers, the same pair works there.
      const connect = await fetch(`${url}/connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id, client_secret }),
      });
      if (connect.status !== 404) {
        expect(connect.status).toBe(200);
        expect(await connect.json()).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });
      }

      const status = await fetch(`${url}/status`);
      expect(status.status).toBe(200);
      const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
      expect(await status.json()).toEqual({ status: 'ok', version });

      // A dependency's file served from inside the binary.
      const css = await fetch(`${url}/docs/swagger-ui.css`);
      expect(css.status).toBe(200);
      expect((await css.text()).length).toBeGreaterThan(1000);
      // The admin console, built into dist/console, served from inside the binary.
      const page = await fetch(`${url}/console/orgs`);
      expect(page.status).toBe(200);
      const script = /src="(\/console\/assets\/[\w-]+\.js)"/.exec(await page.text())?.[1];
      expect(script).toBeDefined();
      const bundle = await fetch(`${url}${script}`);
      expect(bundle.status).toBe(200);
      expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(await server.stop('SIGTERM')).toBe(0);
      stopped = true;
    } finally {
      if (!stopped) server.child.kill('SIGKILL');
    }
    expect(await database.rows('select name from organizations')).toEqual([{ name: ORG.organization }]);
    await database.drop();
  }, 300_000);
});
