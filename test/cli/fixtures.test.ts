import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturesJsonSchema } from '../../src/fixtures/format.js';
import { DEMO_FIXTURES, startCli, type Cli } from './helpers.js';

const SOCIAL = fileURLToPath(new URL('../../fixtures/example-social.json', import.meta.url));
const SCHEMA = fileURLToPath(new URL('../../fixtures/schema.json', import.meta.url));
const social = JSON.parse(readFileSync(SOCIAL, 'utf8'));
const network = social.organizations[0].applications[0];
/** Every item of example-social.json that `fixtures apply` checks or creates. */
const SOCIAL_ITEMS =
  1 +
  1 +
  network.roles.length +
  network.roles[0].permissions.length +
  network.roles[0].users.length +
  network.roles[0].groups.length +
  network.users.length +
  network.groups.reduce((sum: number, group: { users: string[] }) => sum + 1 + group.users.length, 0) +
  network.collections.topics.length +
  network.connections.length +
  network.activities.length;

let cli: Cli;
const dir = mkdtempSync(join(tmpdir(), 'idp-fixtures-'));
beforeAll(async () => {
  cli = await startCli([]);
});
afterAll(() => cli.stop());

describe('fixtures/schema.json', () => {
  it('is generated from the zod schema and up to date (npm run fixtures:schema)', () => {
    expect(JSON.parse(readFileSync(SCHEMA, 'utf8'))).toEqual(fixturesJsonSchema());
  });
});

describe('idp fixtures apply', () => {
  it('applies example-social.json, and a second run changes nothing and says so', async () => {
    const first = await cli.run(['fixtures', 'apply', SOCIAL]);
    expect(first.stderr).toBe('');
    expect(first).toMatchObject({ code: 0, stdout: `created ${SOCIAL_ITEMS}, unchanged 0, failed 0\n` });
    const second = await cli.json(['fixtures', 'apply', SOCIAL]);
    expect(second).toMatchObject({ created: 0, unchanged: SOCIAL_ITEMS, failed: 0, dry_run: false });
    expect(second.items.every((item: { outcome: string }) => item.outcome === 'unchanged')).toBe(true);
    expect((await cli.run(['fixtures', 'apply', SOCIAL])).stdout).toBe(`nothing to change: created 0, unchanged ${SOCIAL_ITEMS}, failed 0\n`);
  });

  it('leaves the data the file describes', async () => {
    await cli.run(['login', '--username', 'social', '--password-stdin', '--profile', 'social'], { input: 'social-password' });
    const as = ['--profile', 'social', '--org', 'social', '--app', 'network'];
    const followers = await cli.json(['user', 'connections', 'ada', 'followers', ...as]);
    expect(followers.entities.map((u: { username: string }) => u.username).sort()).toEqual(['alan', 'grace']);
    const members = await cli.json(['group', 'users', 'unix', ...as]);
    expect(members.entities.map((u: { username: string }) => u.username).sort()).toEqual(['dennis', 'ken', 'linus']);
    const feed = await cli.json(['feed', '--user', 'ken', ...as]);
    expect(feed.entities.map((a: { content: string }) => a.content)).toContain('First edition of the manual is ready.');
    const role = await cli.json(['role', 'permissions', 'moderator', ...as]);
    expect(role.data).toEqual(['get,put,delete:/activities/*', 'get:/users/**']);
    expect((await cli.json(['entity', 'get', 'topics', 'kernels', ...as])).entities[0].title).toBe('Operating system kernels');
  });

  it('--dry-run reports what would be created and writes nothing', async () => {
    const file = join(dir, 'dry.json');
    writeFileSync(
      file,
      JSON.stringify({
        admins: [{ username: 'dry', email: 'dry@example.com', name: 'Dry Run', password: 'dry-password' }],
        organizations: [{ name: 'dry', owner: 'dry', applications: [{ name: 'run', users: [{ username: 'u1' }], collections: { dogs: [{ name: 'fido' }] } }] }],
      }),
    );
    const report = await cli.json(['fixtures', 'apply', file, '--dry-run']);
    expect(report).toMatchObject({ dry_run: true, created: 4, unchanged: 0, failed: 0 });
    expect((await cli.run(['fixtures', 'apply', file, '--dry-run'])).stdout).toBe('dry run: would create 4, unchanged 0, failed 0\n');
    const login = await cli.run(['login', '--username', 'dry', '--password-stdin', '--profile', 'dry'], { input: 'dry-password' });
    expect(login.code).toBe(3);
  });

  it('rejects a bad file with the path of the offending item before writing anything', async () => {
    const file = join(dir, 'bad.json');
    const bad = structuredClone(social);
    bad.organizations[0].name = 'social-bad';
    bad.organizations[0].applications[0].users[1].email = 'not an email';
    writeFileSync(file, JSON.stringify(bad));
    const result = await cli.run(['fixtures', 'apply', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: fixtures file ${file}: organizations[0].applications[0].users[1].email: email must be a valid email address\n`);
    expect(result.stdout).toBe('');
    writeFileSync(file, '{"organizations": [');
    expect((await cli.run(['fixtures', 'apply', file])).stderr).toContain('is not valid JSON');
    expect((await cli.run(['fixtures', 'apply', join(dir, 'missing.json')])).code).toBe(2);
    const orgs = await cli.run(['org', 'get', 'social-bad', '--token', 'x']);
    expect(orgs.stderr).not.toContain('social-bad\n');
  });

  it('reports failures item by item, with exit code 1', async () => {
    const file = join(dir, 'clash.json');
    // The owner exists already with another password: the organization cannot be created.
    writeFileSync(
      file,
      JSON.stringify({
        admins: [{ username: 'social', email: 'social@example.com', name: 'Social', password: 'other-password' }],
        organizations: [{ name: 'clash', owner: 'social', applications: [{ name: 'app' }] }],
      }),
    );
    const result = await cli.run(['fixtures', 'apply', file]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('created 0, unchanged 0, failed 2\n');
    expect(result.stderr).toMatch(
      /^failed organizations\[0\] \(organization clash\): .+\nfailed organizations\[0\]\.applications\[0\] \(application clash\/app\): skipped: organization clash \(organizations\[0\]\) failed\nerror: 2 of 2 fixtures failed\n$/,
    );
  });
});

describe('devices and notifiers', () => {
  it('are created by name and left alone the second time', async () => {
    const file = join(dir, 'devices.json');
    writeFileSync(
      file,
      JSON.stringify({
        admins: [{ username: 'things', email: 'things@example.com', name: 'Things', password: 'things-password' }],
        organizations: [
          {
            name: 'things',
            owner: 'things',
            applications: [
              { name: 'iot', notifiers: [{ name: 'apple-dev', provider: 'noop' }], devices: [{ name: 'ada-phone', 'apple-dev.notifier.id': 'token-1' }] },
            ],
          },
        ],
      }),
    );
    const first = await cli.json(['fixtures', 'apply', file]);
    expect(first.items.map((item: { path: string; outcome: string }) => `${item.path} ${item.outcome}`)).toEqual([
      'organizations[0] created',
      'organizations[0].applications[0] created',
      'organizations[0].applications[0].notifiers[0] created',
      'organizations[0].applications[0].devices[0] created',
    ]);
    expect((await cli.json(['fixtures', 'apply', file])).unchanged).toBe(4);
    await cli.run(['login', '--username', 'things', '--password-stdin', '--profile', 'things'], { input: 'things-password' });
    const device = await cli.json(['entity', 'get', 'devices', 'ada-phone', '--profile', 'things', '--org', 'things', '--app', 'iot']);
    expect(device.entities[0]['apple-dev.notifier.id']).toBe('token-1');
  });
});

describe('idp serve --fixtures with application data', () => {
  it('creates admins, organizations and applications, and leaves the rest to idp fixtures apply', { timeout: 90_000 }, async () => {
    const served = await startCli(['--fixtures', SOCIAL, '--log-level', 'warn']);
    try {
      expect(served.server.stdout()).toContain('listening on');
      const report = await served.json(['fixtures', 'apply', SOCIAL]);
      expect(report).toMatchObject({ created: SOCIAL_ITEMS - 2, unchanged: 2, failed: 0 });
      expect((await served.run(['fixtures', 'apply', DEMO_FIXTURES])).stdout).toBe('created 2, unchanged 0, failed 0\n');
    } finally {
      await served.stop();
    }
  });
});
