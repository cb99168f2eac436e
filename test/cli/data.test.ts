import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginDemo, startCli, type Cli } from './helpers.js';

let cli: Cli;
beforeAll(async () => {
  cli = await startCli();
  await loginDemo(cli);
  await cli.run(['config', 'set', 'app', 'sandbox']);
});
afterAll(() => cli.stop());

const names = (body: { entities: { name?: string; username?: string }[] }) => body.entities.map((entity) => entity.username ?? entity.name);

describe('entities', () => {
  it('creates from NAME=VALUE words and --data, gets, updates and deletes', async () => {
    const fido = await cli.json(['entity', 'create', 'dogs', 'name=fido', 'age=3', 'tags=["good","loud"]', 'owner.city=Berlin']);
    expect(fido.entities[0]).toMatchObject({ type: 'dog', name: 'fido', age: 3, tags: ['good', 'loud'], owner: { city: 'Berlin' } });
    const many = await cli.json(['entity', 'create', 'dogs', '--data', '[{"name":"rex","age":5},{"name":"lassie","age":7}]']);
    expect(names(many)).toEqual(['rex', 'lassie']);
    expect((await cli.json(['entity', 'get', 'dogs', 'fido'])).entities[0].uuid).toBe(fido.entities[0].uuid);
    const updated = await cli.json(['entity', 'update', 'dogs', 'fido', 'age=4']);
    expect(updated.entities[0]).toMatchObject({ name: 'fido', age: 4, tags: ['good', 'loud'] });
    const human = await cli.run(['entity', 'get', 'dogs', 'fido']);
    expect(human.stdout).toMatch(/^name +fido$/m);
    expect((await cli.run(['entity', 'delete', 'dogs', 'lassie'])).code).toBe(2);
    expect((await cli.json(['entity', 'delete', 'dogs', 'lassie', '--yes'])).action).toBe('delete');
    const gone = await cli.run(['entity', 'get', 'dogs', 'lassie']);
    expect(gone.code).toBe(4);
    expect(gone.stderr).toMatch(/^error: /);
  });

  it('lists with --ql and --limit, and --all follows cursors to the last page', async () => {
    const body = Array.from({ length: 25 }, (_, i) => ({ name: `cat-${String(i).padStart(2, '0')}`, lives: i }));
    await cli.run(['entity', 'create', 'cats', '--data', JSON.stringify(body)]);
    const page = await cli.json(['entity', 'list', 'cats', '--limit', '10']);
    expect(page.entities).toHaveLength(10);
    expect(page.cursor).toEqual(expect.any(String));
    const all = await cli.json(['entity', 'list', 'cats', '--all']);
    expect(all.entities).toHaveLength(25);
    expect(all.count).toBe(25);
    expect(all.cursor).toBeUndefined();
    expect(new Set(names(all)).size).toBe(25);
    const query = await cli.json(['entity', 'list', 'cats', '--ql', 'select * where lives >= 20 order by lives asc']);
    expect(names(query)).toEqual(['cat-20', 'cat-21', 'cat-22', 'cat-23', 'cat-24']);
    const table = await cli.run(['entity', 'list', 'cats', '--ql', 'where lives < 2 order by lives asc']);
    expect(table.stdout).toMatch(/^TYPE +NAME +UUID +CREATED\ncat +cat-00 /);
    const explained = await cli.run(['entity', 'list', 'cats', '--ql', "where name = 'CAT-03'", '--explain']);
    expect(explained.stdout).toMatch(/\nexplain: (index property name|no index, the collection was read); \d+ rows? read\n?$/);
    expect((await cli.json(['entity', 'list', 'cats', '--ql', "where name = 'cat-03'", '--explain'])).explain).toEqual({
      index: expect.toBeOneOf(['property name', null]),
      rows_read: expect.any(Number),
    });
    // With no entity found, the explanation still follows.
    const none = await cli.run(['entity', 'list', 'cats', '--ql', "where name = 'no-such-cat'", '--explain']);
    expect(none.stdout).toMatch(/^no entities\nexplain: (index property name|no index, the collection was read); \d+ rows? read\n?$/);
    const sorted = await cli.run(['entity', 'list', 'cats', '--ql', 'order by lives desc', '--limit', '3', '--explain']);
    expect(sorted.stdout).toMatch(/^TYPE +NAME +UUID +CREATED\ncat +cat-24 /);
    expect(sorted.stdout).toMatch(/\nexplain: index property lives; read in the order of property lives; 4 rows read\n?$/);
    const bad = await cli.run(['entity', 'list', 'cats', '--ql', 'where ((']);
    expect(bad.code).toBe(1);
    expect((await cli.run(['entity', 'list', 'cats', '--limit', 'ten'])).code).toBe(2);
    expect((await cli.run(['entity', 'create', 'cats', 'tom', 'nonsense'])).code).toBe(2);
  });

  it("shows and changes a collection's settings: the paths the property index leaves out", async () => {
    await cli.run(['entity', 'create', 'birds', 'name=tweety', 'notes.body=long', 'wings=2']);
    expect((await cli.run(['entity', 'settings', 'birds'])).stdout.trim()).toBe('birds: every property indexed');
    const changed = await cli.run(['entity', 'settings', 'birds', '--unindexed', 'wings, notes']);
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout.trim()).toBe('birds: the property index leaves out notes, wings');
    expect((await cli.json(['entity', 'settings', 'birds'])).data).toEqual({ unindexed: ['notes', 'wings'] });
    const explained = await cli.json(['entity', 'list', 'birds', '--ql', 'where wings = 2', '--explain']);
    expect(explained.entities).toHaveLength(1);
    expect(explained.explain.skipped).toMatch(/leave wings out of the property index/);
    const refused = await cli.run(['entity', 'settings', 'birds', '--unindexed', 'bad path']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: /);
    expect((await cli.run(['entity', 'settings', 'birds', '--quiet'])).stdout.trim().split('\n')).toEqual(['notes', 'wings']);
    expect((await cli.run(['entity', 'settings', 'birds', '--unindexed', 'none'])).stdout.trim()).toBe('birds: every property indexed');
  });

  it('lists page like gh: a count, the next page command, --limit N across pages, --all to the end', async () => {
    const body = Array.from({ length: 25 }, (_, i) => ({ name: `thing-${String(i).padStart(2, '0')}`, n: i }));
    expect((await cli.run(['entity', 'create', 'things', '--data', JSON.stringify(body)])).code).toBe(0);
    // A person follows the printed command from page to page and sees every row once.
    const seen: string[] = [];
    let args = ['entity', 'list', 'things', '--ql', 'order by n asc'];
    for (const expected of [10, 10, 5]) {
      const page = await cli.run(args);
      expect(page).toMatchObject({ code: 0, stderr: '' });
      const lines = page.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(expected + 2);
      seen.push(...lines.slice(1, -1).map((line) => line.split(/ +/)[1]));
      const footer = lines[lines.length - 1];
      if (expected === 5) {
        expect(footer).toBe('5 shown, no more');
        break;
      }
      const next = /^10 shown, more remain; next page: idp --url \S+ entity list things --ql 'order by n asc' --cursor (\S+)$/.exec(footer);
      expect(next, footer).not.toBeNull();
      args = ['entity', 'list', 'things', '--ql', 'order by n asc', '--cursor', next![1]];
    }
    expect(seen).toEqual(body.map((thing) => thing.name));

    // --limit N follows cursors until N rows, and its JSON carries the cursor of the rest.
    const first = await cli.json(['entity', 'list', 'things', '--ql', 'order by n asc', '--limit', '15']);
    expect(first).toMatchObject({ count: 15, cursor: expect.any(String) });
    expect(names(first)).toEqual(body.slice(0, 15).map((thing) => thing.name));
    const rest = await cli.json(['entity', 'list', 'things', '--ql', 'order by n asc', '--limit', '100', '--cursor', first.cursor]);
    expect(names(rest)).toEqual(body.slice(15).map((thing) => thing.name));
    expect(rest.count).toBe(10);
    expect(rest.cursor).toBeUndefined();
    // Past the server's largest page, and --all: every row, no cursor, nothing on stderr without a terminal.
    const many = await cli.run(['entity', 'list', 'things', '--limit', '5000', '--json']);
    expect(JSON.parse(many.stdout).count).toBe(25);
    const all = await cli.run(['entity', 'list', 'things', '--all']);
    expect(all).toMatchObject({ code: 0, stderr: '' });
    expect(all.stdout.trimEnd().split('\n')).toHaveLength(27);
    expect(all.stdout).toMatch(/\n25 shown, no more\n$/);
    expect((await cli.run(['entity', 'list', 'things', '--all', '--limit', '5'])).code).toBe(2);
    expect((await cli.run(['entity', 'list', 'things', '--limit', '0'])).code).toBe(2);
    expect((await cli.run(['entity', 'list', 'things', '--all', '--cursor', first.cursor])).code).toBe(2);
  });

  it('user lists page the same way, the query quoted for the shell', async () => {
    for (let i = 0; i < 12; i++) await cli.json(['user', 'create', `pager-${i}`]);
    const users = await cli.run(['user', 'list', '--ql', "where username = 'pager-*'"]);
    expect(users.stdout).toMatch(/\n10 shown, more remain; next page: idp --url \S+ user list --ql 'where username = '\\''pager-\*'\\''' --cursor \S+\n$/);
    const all = await cli.json(['user', 'list', '--ql', "where username = 'pager-*'", '--all']);
    expect(all.count).toBe(12);
    const quiet = await cli.run(['user', 'list', '--ql', "where username = 'pager-*'", '--limit', '11', '--quiet']);
    expect(quiet.stdout.trim().split('\n')).toHaveLength(11);
  });

  it('says what an empty list is, and names each verb in its help', async () => {
    expect((await cli.run(['entity', 'list', 'cats', '--ql', 'where lives > 100'])).stdout.trim()).toBe('no entities');
    expect((await cli.run(['role', 'list', '--ql', "where name = 'nobody'"])).stdout.trim()).toBe('no roles');
    const entityHelp = (await cli.run(['entity', '--help'])).stdout;
    expect(entityHelp).toMatch(/list the entities of a collection, newest first/);
    expect(entityHelp).toMatch(/delete an entity\n/);
    expect((await cli.run(['user', '--help'])).stdout).toMatch(/list users, newest first[\s\S]*change properties of a user /);
  });

  it('every create takes its name alone or as NAME=VALUE alike', async () => {
    const created = async (args: string[], key: string) => (await cli.json(args)).entities[0][key];
    expect(await created(['entity', 'create', 'dogs', 'pluto', 'age=2'], 'name')).toBe('pluto');
    expect(await created(['entity', 'create', 'dogs', 'name=goofy'], 'name')).toBe('goofy');
    expect(await created(['user', 'create', 'dino', 'city=Bedrock'], 'username')).toBe('dino');
    expect(await created(['user', 'create', 'username=bamm'], 'username')).toBe('bamm');
    expect(await created(['group', 'create', 'path=quarry', 'title=Quarry'], 'title')).toBe('Quarry');
    expect(await created(['group', 'create', 'bowling'], 'path')).toBe('bowling');
    expect(await created(['role', 'create', 'name=driver'], 'name')).toBe('driver');
    expect(await created(['role', 'create', 'walker', '--title', 'Walkers'], 'title')).toBe('Walkers');
    expect(await created(['notifier', 'create', 'dev', '--provider', 'noop'], 'name')).toBe('dev');
    expect(await created(['notifier', 'create', 'name=dev2', 'provider=noop'], 'provider')).toBe('noop');
    expect(await created(['device', 'register', 'phone1', '--notifier', 'dev', '--push-token', 't1'], 'name')).toBe('phone1');
    expect(await created(['device', 'register', 'name=phone2', '--notifier', 'dev', '--push-token', 't2'], 'name')).toBe('phone2');
    expect(await created(['app', 'create', 'name=second'], 'name')).toBe('demo/second');
    const twice = await cli.run(['user', 'create', 'wilma', 'username=fred']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toBe("error: two names given, 'wilma' and username=fred: give one\n");
    const missing = await cli.run(['group', 'create', 'title=Nobody']);
    expect(missing.stderr).toBe('error: group path is required: pass it as the first argument or as path=VALUE (prompting needs a terminal)\n');
    expect((await cli.run(['notifier', 'create', '--help'])).stdout).toMatch(/--provider <provider> +apple \(APNs\), google \(FCM\), or noop/);
  });

  it("a connection's target is named the command line's way", async () => {
    await cli.json(['entity', 'create', 'dogs', 'snoopy']);
    await cli.json(['user', 'create', 'gazoo']);
    const bare = await cli.run(['entity', 'connect', 'users', 'gazoo', 'likes', 'snoopy']);
    expect(bare.code).toBe(4);
    expect(bare.stderr).toBe("error: 'snoopy' is not a uuid: name the target with its collection, e.g. dogs/snoopy\n");
  });

  it('connects, lists connections and disconnects', async () => {
    await cli.json(['user', 'create', 'fred']);
    await cli.json(['entity', 'create', 'dogs', 'name=bello']);
    expect((await cli.run(['entity', 'connect', 'users', 'fred', 'likes', 'dogs/bello'])).code).toBe(0);
    expect(names(await cli.json(['entity', 'connections', 'users', 'fred', 'likes']))).toEqual(['bello']);
    expect(names(await cli.json(['user', 'connections', 'fred', 'likes']))).toEqual(['bello']);
    expect((await cli.run(['entity', 'disconnect', 'users', 'fred', 'likes', 'dogs/bello', '--yes'])).code).toBe(0);
    expect((await cli.json(['entity', 'connections', 'users', 'fred', 'likes'])).entities).toEqual([]);
  });
});

describe('users', () => {
  it('creates, lists, gets, updates, sets a password and deletes', async () => {
    const wilma = await cli.json(['user', 'create', 'wilma', '--email', 'wilma@example.com', '--name', 'Wilma', '--password-stdin', 'city=Bedrock'], {
      input: 'wilma-password',
    });
    expect(wilma.entities[0]).toMatchObject({ username: 'wilma', email: 'wilma@example.com', city: 'Bedrock' });
    expect(JSON.stringify(wilma)).not.toContain('wilma-password');
    expect(names(await cli.json(['user', 'list', '--ql', "where username = 'wilma'"]))).toEqual(['wilma']);
    expect((await cli.json(['user', 'update', 'wilma', 'city=Rockvegas'])).entities[0].city).toBe('Rockvegas');
    expect((await cli.run(['user', 'password', 'wilma', '--new-password', 'wilma-password-2'])).code).toBe(0);
    expect((await cli.json(['user', 'get', 'wilma'])).entities[0].email).toBe('wilma@example.com');
    expect((await cli.json(['user', 'delete', 'wilma', '--yes'])).entities[0].username).toBe('wilma');
  });

  it('deactivates and activates a user, and says which user it does not know', async () => {
    await cli.json(['user', 'create', 'switched-off', '--password-stdin'], { input: 'switched-off-password' });
    const deactivated = await cli.run(['user', 'deactivate', 'switched-off']);
    expect(deactivated.code, deactivated.stderr).toBe(0);
    expect(deactivated.stdout).toMatch(/^disabled +true$/m);
    expect((await cli.json(['user', 'get', 'switched-off'])).entities[0].disabled).toBe(true);
    expect((await cli.json(['user', 'activate', 'switched-off'])).entities[0]).toMatchObject({ username: 'switched-off', disabled: false });
    const unknown = await cli.run(['user', 'deactivate', 'nobody']);
    expect([unknown.code, unknown.stderr]).toEqual([4, expect.stringMatching(/^error: .*nobody/)]);
    expect((await cli.run(['user', 'deactivate'])).code).toBe(2);
  });
});

describe('groups and roles', () => {
  it('creates a group, adds and removes members, lists them', async () => {
    await cli.json(['user', 'create', 'barney']);
    const group = await cli.json(['group', 'create', 'berlin', '--title', 'Berlin office']);
    expect(group.entities[0]).toMatchObject({ path: 'berlin', title: 'Berlin office' });
    await cli.json(['group', 'add-user', 'berlin', 'barney']);
    expect(names(await cli.json(['group', 'users', 'berlin']))).toEqual(['barney']);
    expect((await cli.json(['group', 'list'])).entities.map((g: { path: string }) => g.path)).toContain('berlin');
    expect((await cli.json(['group', 'update', 'berlin', 'floor=3'])).entities[0].floor).toBe(3);
    await cli.json(['group', 'remove-user', 'berlin', 'barney', '--yes']);
    expect((await cli.json(['group', 'users', 'berlin'])).entities).toEqual([]);
    expect((await cli.json(['group', 'get', 'berlin'])).entities[0].title).toBe('Berlin office');
  });

  it('takes a nested group path wherever a group is named', async () => {
    await cli.json(['user', 'create', 'wilma']);
    await cli.json(['group', 'create', 'offices']);
    const nested = await cli.json(['group', 'create', 'offices/paris', '--title', 'Paris office']);
    expect(nested.entities[0]).toMatchObject({ path: 'offices/paris', title: 'Paris office' });
    expect((await cli.json(['group', 'get', 'offices/paris'])).entities[0].uuid).toBe(nested.entities[0].uuid);
    expect((await cli.json(['group', 'update', 'offices/paris', 'floor=2'])).entities[0]).toMatchObject({ path: 'offices/paris', floor: 2 });
    await cli.json(['group', 'add-user', 'offices/paris', 'wilma']);
    expect(names(await cli.json(['group', 'users', 'offices/paris']))).toEqual(['wilma']);
    expect((await cli.json(['group', 'users', 'offices'])).entities).toEqual([]);
    await cli.json(['activity', 'post', '--group', 'offices/paris', '--verb', 'checkin', '--content', 'Bonjour']);
    expect((await cli.json(['feed', '--group', 'offices/paris'])).entities.map((a: { content: string }) => a.content)).toEqual(['Bonjour']);
    await cli.json(['group', 'remove-user', 'offices/paris', 'wilma', '--yes']);
    await cli.json(['group', 'delete', 'offices/paris', '--yes']);
    expect((await cli.json(['group', 'list'])).entities.map((g: { path: string }) => g.path)).not.toContain('offices/paris');
    expect((await cli.json(['group', 'get', 'offices'])).entities[0].path).toBe('offices');
    const ambiguous = await cli.run(['group', 'create', 'offices/users']);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain("segment 'users'");
  });

  it('creates a role with permissions, grants, revokes, assigns users', async () => {
    const created = await cli.json(['role', 'create', 'editor', '--title', 'Editors', '--permission', 'get,post:/posts/**']);
    expect(created.entities[0]).toMatchObject({ name: 'editor', title: 'Editors' });
    expect(created.data).toEqual(['get,post:/posts/**']);
    const granted = await cli.json(['role', 'grant', 'editor', 'delete:/posts/*']);
    expect(granted.data).toEqual(['get,post:/posts/**', 'delete:/posts/*']);
    expect((await cli.run(['role', 'permissions', 'editor', '--quiet'])).stdout).toBe('get,post:/posts/**\ndelete:/posts/*\n');
    const revoked = await cli.json(['role', 'revoke', 'editor', 'delete:/posts/*', '--yes']);
    expect(revoked.data).toEqual(['get,post:/posts/**']);
    await cli.json(['user', 'create', 'betty']);
    await cli.json(['role', 'add-user', 'editor', 'betty']);
    expect(names(await cli.json(['role', 'users', 'editor']))).toEqual(['betty']);
    await cli.json(['role', 'remove-user', 'editor', 'betty', '--yes']);
    expect(names(await cli.json(['role', 'list']))).toEqual(expect.arrayContaining(['admin', 'default', 'guest', 'editor']));
    expect((await cli.json(['role', 'get', 'editor'])).entities[0].title).toBe('Editors');
    await cli.json(['role', 'delete', 'editor', '--yes']);
    expect((await cli.run(['role', 'get', 'editor'])).code).toBe(4);
  });
});

describe('activities, feeds and events', () => {
  it('posts to a user and a group, and reads their feeds', async () => {
    await cli.json(['user', 'create', 'pebbles']);
    await cli.json(['group', 'create', 'kids']);
    await cli.json(['group', 'add-user', 'kids', 'pebbles']);
    const posted = await cli.json(['activity', 'post', '--user', 'pebbles', '--content', 'Hello']);
    expect(posted.entities[0]).toMatchObject({ verb: 'post', content: 'Hello' });
    await cli.json(['activity', 'post', '--group', 'kids', '--verb', 'checkin', '--content', 'At school']);
    const feed = await cli.json(['feed', '--user', 'pebbles']);
    expect(feed.entities.map((a: { content: string }) => a.content)).toEqual(['At school', 'Hello']);
    expect((await cli.json(['feed', '--group', 'kids'])).entities.map((a: { content: string }) => a.content)).toEqual(['At school']);
    expect((await cli.run(['feed'])).code).toBe(2);
    expect((await cli.run(['activity', 'post', '--user', 'pebbles'])).code).toBe(2);
  });

  it('records an event', async () => {
    const event = await cli.json(['event', 'post', 'category=signup', 'counters.signups=1', '--timestamp', '1700000000000']);
    expect(event.entities[0]).toMatchObject({ category: 'signup', counters: { signups: 1 } });
  });

  it('without --app or an app in the profile, data commands are usage errors', async () => {
    const result = await cli.run(['entity', 'list', 'dogs', '--profile', 'empty', '--token', 'x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no organization given');
  });
});
