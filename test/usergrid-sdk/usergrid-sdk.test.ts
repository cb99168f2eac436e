/**
 * The Apache Usergrid Node.js SDK (npm `usergrid` 0.10.11), unmodified, against a real `idp serve`
 * entities, collections with ql and cursor paging, users and sign-in through /{org}/{app}/token
 * with `?access_token=`, groups and members, connections, activities and feeds. The app's own
 * client uses `?client_id=&client_secret=` (the SDK's AUTH_CLIENT_ID); each assertion is what a
 * user of the SDK sees through its objects and callbacks. The tests share one server and run in
 * order: later ones use the users and follows earlier ones made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import usergrid from 'usergrid';
import type { RunningServer } from '../../server/serve.js';
import { expectRefusal, expectRefusedUnchanged, type TestResponse } from '../helpers.js';
import { startSdkTenant } from './tenant.js';

const ORG = 'sdk-org';
const APP = 'pets';

let server: RunningServer;
let credentials: { client_id: string; client_secret: string };

/** What an SDK callback reported: whether it failed, and the rest of its arguments. */
interface Outcome<T extends unknown[]> {
  failed: boolean;
  results: T;
}

/** Runs one SDK call and resolves with what its callback got (the SDK never throws). */
function call<T extends unknown[]>(start: (done: usergrid.Done<T>) => void): Promise<Outcome<T>> {
  return new Promise((resolve) => start((err, ...results) => resolve({ failed: Boolean(err), results })));
}

/** Runs one SDK call that must succeed and resolves with its callback's results. */
async function succeed<T extends unknown[]>(start: (done: usergrid.Done<T>) => void): Promise<T> {
  const outcome = await call(start);
  if (outcome.failed) throw new Error(`the SDK call failed: ${JSON.stringify(outcome.results[0])}`);
  return outcome.results;
}

function appClient(): usergrid.client {
  return new usergrid.client({
    URI: server.url,
    orgName: ORG,
    appName: APP,
    authType: usergrid.AUTH_CLIENT_ID,
    clientId: credentials.client_id,
    clientSecret: credentials.client_secret,
  });
}

function userClient(): usergrid.client {
  return new usergrid.client({ URI: server.url, orgName: ORG, appName: APP, authType: usergrid.AUTH_APP_USER });
}

function guestClient(): usergrid.client {
  return new usergrid.client({ URI: server.url, orgName: ORG, appName: APP });
}

/**
 * A failed SDK call as a refusal to check: the callback's argument `at` is the server's error
 * body, with the HTTP status added as `statusCode` (the SDK keeps no headers).
 */
async function refusalOf(outcome: Promise<Outcome<unknown[]>>, at = 0): Promise<TestResponse> {
  const { failed, results } = await outcome;
  expect(failed).toBe(true);
  const body = results[at] as usergrid.ResponseBody;
  return { status: Number(body.statusCode), headers: new Headers(), body, text: JSON.stringify(body) };
}

function present<T>(value: T | null): T {
  if (value === null) throw new Error('the SDK gave null');
  return value;
}

/** The collection's current page as names (or another property), in the order the server gave. */
function pageOf(list: usergrid.collection, property = 'name'): unknown[] {
  const values: unknown[] = [];
  list.resetEntityPointer();
  while (list.hasNextEntity()) values.push(list.getNextEntity().get(property));
  return values;
}

beforeAll(async () => {
  ({ server, credentials } = await startSdkTenant(ORG, APP));
});

afterAll(async () => {
  await server.close();
});

describe('the Usergrid SDK against /{org}/{app}', () => {
  it('creates, gets, updates and deletes an entity', async () => {
    const client = appClient();
    const [rex] = await succeed<[usergrid.entity, usergrid.ResponseBody]>((done) =>
      client.createEntity({ type: 'dog', name: 'rex', breed: 'labrador', age: 3 }, done),
    );
    const uuid = String(rex.get('uuid'));
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(rex.get()).toMatchObject({ name: 'rex', breed: 'labrador', age: 3, type: 'dogs' });

    // createEntity looks the name up first: a second call finds rex instead of failing.
    const [again] = await succeed<[usergrid.entity, usergrid.ResponseBody]>((done) => client.createEntity({ type: 'dogs', name: 'rex' }, done));
    expect(again.get('uuid')).toBe(uuid);

    const [byName] = await succeed<[usergrid.entity, usergrid.ResponseBody]>((done) => client.getEntity({ type: 'dogs', name: 'rex' }, done));
    expect(byName.get()).toMatchObject({ uuid, breed: 'labrador' });

    rex.set({ age: 4, color: 'brown' });
    await succeed<[usergrid.ResponseBody, usergrid.entity]>((done) => rex.save(done));
    expect(rex.get('modified')).toEqual(expect.any(Number));
    const [byUuid] = await succeed<[usergrid.entity, usergrid.ResponseBody]>((done) => client.getEntity({ type: 'dogs', uuid }, done));
    expect(byUuid.get()).toMatchObject({ uuid, name: 'rex', breed: 'labrador', age: 4, color: 'brown' });

    // A second save of the same object updates it again (the SDK keeps the type the server named).
    rex.set('color', 'black');
    await succeed<[usergrid.ResponseBody, usergrid.entity]>((done) => rex.save(done));
    await succeed<[usergrid.ResponseBody, usergrid.entity]>((done) => byUuid.fetch(done));
    expect(byUuid.get('color')).toBe('black');

    await succeed<[usergrid.ResponseBody]>((done) => rex.destroy(done));
    const gone = call<[usergrid.entity, usergrid.ResponseBody]>((done) => client.getEntity({ type: 'dogs', name: 'rex' }, done));
    expectRefusal(await refusalOf(gone, 1), 404, 'entity_not_found');
  });

  it('reads a collection with ql and pages through it with cursors', async () => {
    const client = appClient();
    for (const [name, lives] of [
      ['tom', 1],
      ['felix', 2],
      ['garfield', 3],
      ['salem', 4],
      ['nala', 5],
    ] as const) {
      await succeed<[usergrid.entity, usergrid.ResponseBody]>((done) => client.createEntity({ type: 'cats', name, lives }, done));
    }
    const [cats] = await succeed<[usergrid.collection, usergrid.ResponseBody]>((done) =>
      client.createCollection({ type: 'cats', qs: { ql: 'select * where lives >= 2 order by lives asc', limit: 2 } }, done),
    );
    expect(pageOf(cats)).toEqual(['felix', 'garfield']);
    expect(cats.hasNextPage()).toBeTruthy();
    expect(cats.hasPreviousPage()).toBe(false);

    await succeed<[usergrid.ResponseBody]>((done) => cats.getNextPage(done));
    expect(pageOf(cats)).toEqual(['salem', 'nala']);
    expect(cats.hasNextPage()).toBeFalsy();
    expect(cats.hasPreviousPage()).toBe(true);

    await succeed<[usergrid.ResponseBody]>((done) => cats.getPreviousPage(done));
    expect(pageOf(cats)).toEqual(['felix', 'garfield']);

    // Without ql: newest first, the default limit of 10.
    const [all] = await succeed<[usergrid.collection, usergrid.ResponseBody]>((done) => client.createCollection({ type: 'cats' }, done));
    expect(pageOf(all)).toEqual(['nala', 'salem', 'garfield', 'felix', 'tom']);
    expect(all.hasNextPage()).toBeFalsy();

    // Entities of a collection are saved and destroyed through it.
    const [kitty] = await succeed<[usergrid.entity]>((done) => all.addEntity({ name: 'kitty', lives: 9 }, done));
    expect(kitty.get('uuid')).toEqual(expect.any(String));
    kitty.set('lives', 8);
    await succeed<[usergrid.ResponseBody, usergrid.entity]>((done) => kitty.save(done));
    await succeed<[usergrid.ResponseBody]>((done) => all.fetch(done));
    expect(all.getFirstEntity()?.get()).toMatchObject({ name: 'kitty', lives: 8 });
    await succeed<[usergrid.ResponseBody]>((done) => all.destroyEntity(kitty, done));
    expect(pageOf(all)).toEqual(['nala', 'salem', 'garfield', 'felix', 'tom']);

    // Delete by query.
    const [deleted] = await succeed<[usergrid.ResponseBody]>((done) => client.delete({ type: 'cats', qs: { ql: 'lives < 2' } }, done));
    expect(deleted.entities?.map((entity) => entity.name)).toEqual(['tom']);
    await succeed<[usergrid.ResponseBody]>((done) => all.fetch(done));
    expect(pageOf(all)).toEqual(['nala', 'salem', 'garfield', 'felix']);
  });

  it('signs a user up and in through /{org}/{app}/token, then acts with ?access_token=', async () => {
    const admin = appClient();
    const [signedUp] = await succeed<[usergrid.entity, usergrid.ResponseBody]>((done) =>
      admin.signup('fred', 'fred-password', 'fred@example.com', 'Fred Flintstone', done),
    );
    expect(signedUp.get()).toMatchObject({ username: 'fred', email: 'fred@example.com', name: 'Fred Flintstone' });
    expect(signedUp.get('password')).toBeUndefined();

    const client = userClient();
    // A wrong password counts against the account's guessing budget, and changes nothing else.
    const wrong = () => refusalOf(call<[usergrid.ResponseBody, usergrid.entity]>((done) => client.login('fred', 'not-the-password', done)));
    await expectRefusedUnchanged(server, wrong, 400, 'invalid_grant', { except: ['login_throttle'] });
    expect(client.isLoggedIn()).toBe(false);

    const [token, fred] = await succeed<[usergrid.ResponseBody, usergrid.entity]>((done) => client.login('fred', 'fred-password', done));
    expect(token.access_token).toEqual(expect.any(String));
    expect(client.getToken()).toBe(token.access_token);
    expect(fred.get()).toMatchObject({ uuid: signedUp.get('uuid'), username: 'fred' });

    const me = present((await succeed<[usergrid.ResponseBody | null, usergrid.entity | null]>((done) => client.getLoggedInUser(done)))[1]);
    expect(me.get()).toMatchObject({ uuid: signedUp.get('uuid'), username: 'fred' });

    // The default role lets a signed-in user read the app's data and write their own entity.
    const [cats] = await succeed<[usergrid.collection, usergrid.ResponseBody]>((done) => client.createCollection({ type: 'cats' }, done));
    expect(pageOf(cats).length).toBeGreaterThan(0);
    me.set('city', 'Bedrock');
    await succeed<[usergrid.ResponseBody, usergrid.entity]>((done) => me.save(done));
    const [reread] = await succeed<[usergrid.entity, usergrid.ResponseBody]>((done) => admin.getEntity({ type: 'users', username: 'fred' }, done));
    expect(reread.get('city')).toBe('Bedrock');

    // A guest may not read it.
    const guest = call<[usergrid.collection, usergrid.ResponseBody]>((done) => guestClient().createCollection({ type: 'cats' }, done));
    expectRefusal(await refusalOf(guest, 1), 401, 'unauthorized');

    // The SDK changes a password with oldpassword/newpassword on save (PUT …/users/{uuid}/password).
    me.set({ oldpassword: 'fred-password', newpassword: 'yabba-dabba-doo' });
    await succeed<[usergrid.ResponseBody, usergrid.entity]>((done) => me.save(done));
    expect(me.get('oldpassword')).toBeUndefined();
    const old = () => refusalOf(call<[usergrid.ResponseBody, usergrid.entity]>((done) => userClient().login('fred', 'fred-password', done)));
    await expectRefusedUnchanged(server, old, 400, 'invalid_grant', { except: ['login_throttle'] });
    await succeed<[usergrid.ResponseBody, usergrid.entity]>((done) => userClient().login('fred', 'yabba-dabba-doo', done));

    // Logging out forgets the token: the SDK no longer has a user to fetch.
    client.logout();
    expect(client.isLoggedIn()).toBe(false);
    const loggedOut = await call<[usergrid.ResponseBody | null, usergrid.entity | null]>((done) => client.getLoggedInUser(done));
    expect(loggedOut.failed).toBe(true);
  });

  it('creates a group, adds and removes members, and posts to its feed', async () => {
    const client = appClient();
    const [barney] = await succeed<[usergrid.entity, usergrid.ResponseBody]>((done) =>
      client.signup('barney', 'barney-password', 'barney@example.com', 'Barney Rubble', done),
    );
    const [team] = await succeed<[usergrid.group]>((done) => client.createGroup({ path: 'quarry-crew', title: 'Quarry crew' }, done));
    expect(team.get()).toMatchObject({ path: 'quarry-crew', title: 'Quarry crew' });
    expect(team.get('uuid')).toEqual(expect.any(String));

    const [, members] = await succeed<[usergrid.ResponseBody, usergrid.entity[]]>((done) => team.add({ user: barney }, done));
    expect(members.map((member) => member.get('username'))).toEqual(['barney']);
    const [listed] = await succeed<[usergrid.entity[]]>((done) => team.members(done));
    expect(listed.map((member) => member.get('uuid'))).toEqual([barney.get('uuid')]);

    const [, groups] = await succeed<[usergrid.ResponseBody, usergrid.EntityData[]]>((done) => barney.getGroups(done));
    expect(groups.map((group) => group.path)).toEqual(['quarry-crew']);

    // createGroup finds an existing group rather than failing.
    const [same] = await succeed<[usergrid.group]>((done) => client.createGroup({ path: 'quarry-crew' }, done));
    expect(same.get('uuid')).toBe(team.get('uuid'));

    const [activity] = await succeed<[usergrid.entity]>((done) => team.createGroupActivity({ user: barney, content: 'Lunch at the quarry' }, done));
    expect(activity.get()).toMatchObject({ verb: 'post', content: 'Lunch at the quarry', actor: { username: 'barney' } });
    const [, groupFeed] = await succeed<[usergrid.ResponseBody, usergrid.EntityData[]]>((done) => team.feed(done));
    expect(groupFeed.map((item) => item.content)).toEqual(['Lunch at the quarry']);
    // A group's activity reaches its members' feeds.
    const [, barneyFeed] = await succeed<[usergrid.ResponseBody, usergrid.EntityData[]]>((done) => client.getFeedForUser('barney', done));
    expect(barneyFeed.map((item) => item.content)).toEqual(['Lunch at the quarry']);

    const [, left] = await succeed<[usergrid.ResponseBody, usergrid.entity[]]>((done) => team.remove({ user: { username: 'barney' } }, done));
    expect(left).toEqual([]);
  });

  it('connects entities, lists connections and disconnects them', async () => {
    const client = appClient();
    const [wilma] = await succeed<[usergrid.entity, usergrid.ResponseBody]>((done) =>
      client.signup('wilma', 'wilma-password', 'wilma@example.com', 'Wilma', done),
    );
    const [dino] = await succeed<[usergrid.entity, usergrid.ResponseBody]>((done) =>
      client.createEntity({ type: 'dogs', name: 'dino', breed: 'snorkasaurus' }, done),
    );
    const [hoppy] = await succeed<[usergrid.entity, usergrid.ResponseBody]>((done) =>
      client.createEntity({ type: 'dogs', name: 'hoppy', breed: 'hopparoo' }, done),
    );

    await succeed<[usergrid.ResponseBody]>((done) => wilma.connect('likes', dino, done));
    await succeed<[usergrid.ResponseBody]>((done) => wilma.connect('likes', hoppy, done));
    const [, liked] = await succeed<[usergrid.ResponseBody, usergrid.EntityData[]]>((done) => wilma.getConnections('likes', done));
    expect(liked.map((dog) => dog.name).sort()).toEqual(['dino', 'hoppy']);
    const [, queried] = await succeed<[usergrid.ResponseBody, usergrid.EntityData[]]>((done) =>
      wilma.getConnections('likes', { qs: { ql: "select * where breed = 'hopparoo'" } }, done),
    );
    expect(queried.map((dog) => dog.name)).toEqual(['hoppy']);

    await succeed<[usergrid.ResponseBody]>((done) => wilma.disconnect('likes', dino, done));
    const [, after] = await succeed<[usergrid.ResponseBody, usergrid.EntityData[]]>((done) => wilma.getConnections('likes', done));
    expect(after.map((dog) => dog.name)).toEqual(['hoppy']);

    // Following: the other end sees a follower.
    const [fred] = await succeed<[usergrid.entity, usergrid.ResponseBody]>((done) => client.getEntity({ type: 'users', username: 'fred' }, done));
    await succeed<[usergrid.ResponseBody]>((done) => wilma.connect('following', fred, done));
    const [, following] = await succeed<[usergrid.ResponseBody, usergrid.EntityData[]]>((done) => wilma.getFollowing(done));
    expect(following.map((user) => user.username)).toEqual(['fred']);
    const [, followers] = await succeed<[usergrid.ResponseBody, usergrid.EntityData[]]>((done) => fred.getFollowers(done));
    expect(followers.map((user) => user.username)).toEqual(['wilma']);
  });

  it("posts a user's activities and reads their feed and their followers' feeds", async () => {
    const client = userClient();
    const [, fred] = await succeed<[usergrid.ResponseBody, usergrid.entity]>((done) => client.login('fred', 'yabba-dabba-doo', done));
    const [first] = await succeed<[usergrid.entity]>((done) =>
      client.createUserActivity(
        'me',
        { actor: { displayName: 'Fred', username: 'fred', uuid: fred.get('uuid') }, verb: 'post', content: 'Yabba dabba doo!' },
        done,
      ),
    );
    expect(first.get()).toMatchObject({ verb: 'post', content: 'Yabba dabba doo!', actor: { username: 'fred' } });
    expect(first.get('uuid')).toEqual(expect.any(String));
    const [second] = await succeed<[usergrid.entity]>((done) => client.createUserActivityWithEntity(fred, 'Wilmaaa!', done));
    expect(second.get()).toMatchObject({ content: 'Wilmaaa!', actor: { username: 'fred', displayName: 'fred' } });

    const [, feed] = await succeed<[usergrid.ResponseBody, usergrid.EntityData[]]>((done) => client.getFeedForUser('fred', done));
    expect(feed.map((item) => item.content)).toEqual(['Wilmaaa!', 'Yabba dabba doo!']);
    const [, activities] = await succeed<[usergrid.ResponseBody, usergrid.EntityData[]]>((done) => fred.getActivities(done));
    expect(activities.map((item) => item.content)).toEqual(['Wilmaaa!', 'Yabba dabba doo!']);

    // Wilma follows fred (previous test): his activities reach her feed.
    const [, wilmaFeed] = await succeed<[usergrid.ResponseBody, usergrid.EntityData[]]>((done) => appClient().getFeedForUser('wilma', done));
    expect(wilmaFeed.map((item) => item.content)).toEqual(['Wilmaaa!', 'Yabba dabba doo!']);
  });
});
