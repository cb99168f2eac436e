import { describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.js';
import {
  formatPermission,
  isPermitted,
  parsePermission,
  permissionsForCaller,
  stepUpRule,
  verbOfMethod,
  type Caller,
  type Permission,
  type Verb,
} from '../../src/access/permissions.js';
import { DEFAULT_ROLES, implicitRoleName, type DefaultRoleName } from '../../src/access/default-roles.js';

const FRED_UUID = 'a1b2c3d4-0000-4000-8000-00000000f4ed';
const ALICE_UUID = 'a1b2c3d4-0000-4000-8000-0000000a11ce';
const fred: Caller = { uuid: FRED_UUID, username: 'fred' };
const guest: Caller = {};

function roleOf(name: DefaultRoleName): readonly string[] {
  const role = DEFAULT_ROLES.find((candidate) => candidate.name === name);
  if (role === undefined) throw new Error(`no default role ${name}`);
  return role.permissions;
}

interface Case {
  name: string;
  permissions: readonly (string | Permission)[];
  verb: Verb;
  path: string;
  caller: Caller;
  expected: boolean;
}

const cases: Case[] = [
  // Literal paths
  { name: 'exact path', permissions: ['get:/users'], verb: 'get', path: '/users', caller: guest, expected: true },
  { name: 'literal does not cover children', permissions: ['get:/users'], verb: 'get', path: '/users/fred', caller: guest, expected: false },
  { name: 'literal does not cover parent', permissions: ['get:/users/fred'], verb: 'get', path: '/users', caller: guest, expected: false },
  { name: 'no permissions at all', permissions: [], verb: 'get', path: '/users', caller: fred, expected: false },

  // * is one segment
  { name: '* matches one segment', permissions: ['get:/users/*'], verb: 'get', path: '/users/bob', caller: guest, expected: true },
  { name: '* does not match two segments', permissions: ['get:/users/*'], verb: 'get', path: '/users/bob/devices', caller: guest, expected: false },
  { name: '* does not match zero segments', permissions: ['get:/users/*'], verb: 'get', path: '/users', caller: guest, expected: false },
  { name: '* in the middle', permissions: ['get:/users/*/devices'], verb: 'get', path: '/users/bob/devices', caller: guest, expected: true },
  { name: '/* matches any collection', permissions: ['get:/*'], verb: 'get', path: '/dogs', caller: guest, expected: true },

  // ** is any depth, including none
  { name: '** zero depth', permissions: ['get:/users/**'], verb: 'get', path: '/users', caller: guest, expected: true },
  { name: '** one level', permissions: ['get:/users/**'], verb: 'get', path: '/users/x', caller: guest, expected: true },
  { name: '** two levels', permissions: ['get:/users/**'], verb: 'get', path: '/users/x/y', caller: guest, expected: true },
  { name: '** stays under its prefix', permissions: ['get:/users/**'], verb: 'get', path: '/groups/x', caller: guest, expected: false },
  { name: '** prefix is a whole segment', permissions: ['get:/users/**'], verb: 'get', path: '/usersx', caller: guest, expected: false },
  { name: 'leading ** (Usergrid: **/likes matches /likes)', permissions: ['get:/**/likes'], verb: 'get', path: '/likes', caller: guest, expected: true },
  { name: 'leading ** at depth', permissions: ['get:/**/likes'], verb: 'get', path: '/users/bob/likes', caller: guest, expected: true },
  { name: 'leading ** still needs the tail', permissions: ['get:/**/likes'], verb: 'get', path: '/users/bob/likes/x', caller: guest, expected: false },
  { name: '** between literals', permissions: ['get:/users/**/devices'], verb: 'get', path: '/users/a/b/devices', caller: guest, expected: true },

  // Root
  { name: '/ matches the root', permissions: ['get:/'], verb: 'get', path: '/', caller: guest, expected: true },
  { name: '/ does not match below the root', permissions: ['get:/'], verb: 'get', path: '/users', caller: guest, expected: false },
  { name: '/** matches the root', permissions: ['get:/**'], verb: 'get', path: '/', caller: guest, expected: true },
  { name: '/** matches deep paths', permissions: ['get:/**'], verb: 'get', path: '/a/b/c/d', caller: guest, expected: true },
  { name: 'empty request path is the root', permissions: ['get:/'], verb: 'get', path: '', caller: guest, expected: true },

  // Verbs
  { name: 'verb in the subset', permissions: ['get,post:/dogs'], verb: 'post', path: '/dogs', caller: guest, expected: true },
  { name: 'verb outside the subset', permissions: ['get,post:/dogs'], verb: 'delete', path: '/dogs', caller: guest, expected: false },
  { name: 'verbs in any order', permissions: ['delete,get:/dogs'], verb: 'delete', path: '/dogs', caller: guest, expected: true },
  { name: '* verb is all four', permissions: ['*:/dogs'], verb: 'put', path: '/dogs', caller: guest, expected: true },
  { name: 'verbs with spaces', permissions: [' get , put :/dogs'], verb: 'put', path: '/dogs', caller: guest, expected: true },

  // Case and slashes
  { name: 'upper-case verbs', permissions: ['GET,PUT:/dogs'], verb: 'get', path: '/dogs', caller: guest, expected: true },
  { name: 'case-insensitive pattern', permissions: ['get:/Dogs/Rex'], verb: 'get', path: '/dogs/rex', caller: guest, expected: true },
  { name: 'case-insensitive path', permissions: ['get:/dogs/rex'], verb: 'get', path: '/DOGS/Rex', caller: guest, expected: true },
  { name: 'trailing slash on the path', permissions: ['get:/dogs'], verb: 'get', path: '/dogs/', caller: guest, expected: true },
  { name: 'trailing slash on the pattern', permissions: ['get:/dogs/'], verb: 'get', path: '/dogs', caller: guest, expected: true },
  { name: 'doubled slashes ignored', permissions: ['get:/dogs/rex'], verb: 'get', path: '//dogs//rex', caller: guest, expected: true },
  { name: 'query string ignored', permissions: ['get:/dogs'], verb: 'get', path: '/dogs?ql=select%20*&limit=5', caller: guest, expected: true },
  {
    name: 'percent-encoded segment is decoded',
    permissions: ['get:/users/fred@example.com'],
    verb: 'get',
    path: '/users/fred%40example.com',
    caller: guest,
    expected: true,
  },
  { name: 'dot segments are refused', permissions: ['get:/users/me/**'], verb: 'get', path: '/users/me/../alice', caller: fred, expected: false },
  { name: 'encoded dot segments are refused', permissions: ['get:/users/me/**'], verb: 'get', path: '/users/me/%2e%2e/alice', caller: fred, expected: false },

  // me
  { name: 'me via me', permissions: ['get:/users/me'], verb: 'get', path: '/users/me', caller: fred, expected: true },
  { name: 'me via uuid', permissions: ['get:/users/me'], verb: 'get', path: `/users/${FRED_UUID}`, caller: fred, expected: true },
  { name: 'me via upper-case uuid', permissions: ['get:/users/me'], verb: 'get', path: `/users/${FRED_UUID.toUpperCase()}`, caller: fred, expected: true },
  { name: 'me via username', permissions: ['get:/users/me'], verb: 'get', path: '/users/fred', caller: fred, expected: true },
  { name: 'me via username, other case', permissions: ['get:/users/me'], verb: 'get', path: '/users/Fred', caller: fred, expected: true },
  { name: 'me does not match another user by name', permissions: ['get:/users/me'], verb: 'get', path: '/users/alice', caller: fred, expected: false },
  { name: 'me does not match another user by uuid', permissions: ['get:/users/me'], verb: 'get', path: `/users/${ALICE_UUID}`, caller: fred, expected: false },
  { name: 'me never matches a guest', permissions: ['get:/users/me'], verb: 'get', path: '/users/me', caller: guest, expected: false },
  { name: 'me with only a uuid known', permissions: ['put:/users/me'], verb: 'put', path: `/users/${FRED_UUID}`, caller: { uuid: FRED_UUID }, expected: true },
  {
    name: 'a uuid-shaped username never stands for that uuid',
    permissions: ['put:/users/me/**'],
    verb: 'put',
    path: `/users/${ALICE_UUID}`,
    caller: { uuid: FRED_UUID, username: ALICE_UUID },
    expected: false,
  },
  { name: 'literal own username covers me', permissions: ['get:/users/fred/**'], verb: 'get', path: '/users/me/devices', caller: fred, expected: true },
  {
    name: 'literal other username does not cover me',
    permissions: ['get:/users/alice/**'],
    verb: 'get',
    path: '/users/me/devices',
    caller: fred,
    expected: false,
  },

  // ${user}
  { name: '${user} via uuid', permissions: ['get:/users/${user}/feed'], verb: 'get', path: `/users/${FRED_UUID}/feed`, caller: fred, expected: true },
  { name: '${user} via me', permissions: ['get:/users/${user}/feed'], verb: 'get', path: '/users/me/feed', caller: fred, expected: true },
  { name: '${user} via username', permissions: ['get:/users/${user}/feed'], verb: 'get', path: '/users/fred/feed', caller: fred, expected: true },
  { name: '${user} denies another user', permissions: ['get:/users/${user}/feed'], verb: 'get', path: '/users/alice/feed', caller: fred, expected: false },
  { name: '${user} never matches a guest', permissions: ['get:/users/${user}/**'], verb: 'get', path: '/users/x', caller: guest, expected: false },

  // Malformed entries are skipped, never thrown
  {
    name: 'malformed entries skipped, valid one applies',
    permissions: ['garbage', 'fetch:/dogs', 'get:dogs', '', 'get:/dogs'],
    verb: 'get',
    path: '/dogs',
    caller: guest,
    expected: true,
  },
  {
    name: 'only malformed entries deny',
    permissions: ['garbage', 'get:dogs', ':/dogs', 'get:/do*'],
    verb: 'get',
    path: '/dogs',
    caller: guest,
    expected: false,
  },
  { name: 'parsed Permission objects accepted', permissions: [parsePermission('post:/dogs')], verb: 'post', path: '/dogs', caller: guest, expected: true },

  // Default roles: guest
  { name: 'guest may sign up', permissions: roleOf('guest'), verb: 'post', path: '/users', caller: guest, expected: true },
  { name: 'guest may not list users', permissions: roleOf('guest'), verb: 'get', path: '/users', caller: guest, expected: false },
  { name: 'guest may not read a user', permissions: roleOf('guest'), verb: 'get', path: '/users/fred', caller: guest, expected: false },
  { name: 'guest may register a device', permissions: roleOf('guest'), verb: 'post', path: '/devices', caller: guest, expected: true },
  { name: 'guest may update a device', permissions: roleOf('guest'), verb: 'put', path: '/devices/abc', caller: guest, expected: true },
  { name: 'guest may not update below a device', permissions: roleOf('guest'), verb: 'put', path: '/devices/abc/x', caller: guest, expected: false },
  { name: 'guest may not delete a device', permissions: roleOf('guest'), verb: 'delete', path: '/devices/abc', caller: guest, expected: false },
  { name: 'guest may not update the device collection', permissions: roleOf('guest'), verb: 'put', path: '/devices', caller: guest, expected: false },

  // Default roles: default (signed-in users)
  { name: 'user may read anything', permissions: roleOf('default'), verb: 'get', path: '/dogs/rex/likes', caller: fred, expected: true },
  { name: 'user may read other users', permissions: roleOf('default'), verb: 'get', path: '/users/alice', caller: fred, expected: true },
  { name: 'user may update themselves via me', permissions: roleOf('default'), verb: 'put', path: '/users/me', caller: fred, expected: true },
  { name: 'user may update themselves via uuid', permissions: roleOf('default'), verb: 'put', path: `/users/${FRED_UUID}`, caller: fred, expected: true },
  { name: 'user may post under themselves', permissions: roleOf('default'), verb: 'post', path: '/users/fred/activities', caller: fred, expected: true },
  {
    name: 'user may delete deep under themselves',
    permissions: roleOf('default'),
    verb: 'delete',
    path: '/users/me/devices/abc',
    caller: fred,
    expected: true,
  },
  { name: 'user may not update another user', permissions: roleOf('default'), verb: 'put', path: '/users/alice', caller: fred, expected: false },
  {
    name: 'user may not delete under another user',
    permissions: roleOf('default'),
    verb: 'delete',
    path: `/users/${ALICE_UUID}/devices/abc`,
    caller: fred,
    expected: false,
  },
  { name: 'user may not write other collections', permissions: roleOf('default'), verb: 'post', path: '/dogs', caller: fred, expected: false },
  { name: 'user may not delete the users collection', permissions: roleOf('default'), verb: 'delete', path: '/users', caller: fred, expected: false },

  // Default roles: admin
  { name: 'admin may delete anything', permissions: roleOf('admin'), verb: 'delete', path: '/users/alice/devices/x', caller: fred, expected: true },
  { name: 'admin may post at the root', permissions: roleOf('admin'), verb: 'post', path: '/', caller: fred, expected: true },
];

describe('isPermitted', () => {
  it.each(cases)('$name', ({ permissions, verb, path, caller, expected }) => {
    expect(isPermitted(permissions, verb, path, caller)).toBe(expected);
  });
});

describe('parsePermission / formatPermission', () => {
  it.each([
    ['get,put,post,delete:/**', 'get,put,post,delete:/**'],
    ['delete,GET:/Users/Me/**/', 'get,delete:/users/me/**'],
    ['*:/dogs', 'get,put,post,delete:/dogs'],
    ['post,post:/users', 'post:/users'],
    ['  get : /users//${USER}/feed ', 'get:/users/${user}/feed'],
    ['put:/', 'put:/'],
    ['get:///', 'get:/'],
  ])('%s formats as %s', (text, canonical) => {
    const parsed = parsePermission(text);
    expect(formatPermission(parsed)).toBe(canonical);
    expect(formatPermission(parsePermission(canonical))).toBe(canonical);
  });

  it('exposes verbs, pattern and segments', () => {
    const parsed = parsePermission('post,get:/users/*/devices');
    expect([...parsed.verbs].sort()).toEqual(['get', 'post']);
    expect(parsed.pattern).toBe('/users/*/devices');
    expect(parsed.segments).toEqual(['users', '*', 'devices']);
  });

  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['no colon', 'get/users'],
    ['unknown verb', 'fetch:/users'],
    ['patch is not a Usergrid verb', 'patch:/users'],
    ['empty verb list', ':/users'],
    ['empty verb in list', 'get,,put:/users'],
    ['pattern without leading slash', 'get:users'],
    ['empty pattern', 'get:'],
    ['partial wildcard', 'get:/us*'],
    ['triple star', 'get:/***'],
    ['unknown variable', 'get:/users/${app}'],
    ['property-level permission', 'get:/users/fred:/foo'],
  ])('rejects %s', (_, text) => {
    let thrown: unknown;
    try {
      parsePermission(text);
    } catch (error) {
      thrown = error;
    }
    expect(isAppError(thrown)).toBe(true);
    if (!isAppError(thrown)) return;
    expect(thrown.status).toBe(400);
    expect(thrown.error).toBe('illegal_argument');
  });
});

describe('verbOfMethod', () => {
  it.each([
    ['GET', 'get'],
    ['head', 'get'],
    ['PUT', 'put'],
    ['PATCH', 'put'],
    ['post', 'post'],
    ['DELETE', 'delete'],
    ['OPTIONS', null],
    ['TRACE', null],
  ])('%s -> %s', (method, verb) => {
    expect(verbOfMethod(method)).toBe(verb);
  });
});

describe('permissionsForCaller', () => {
  it('unites user, group and role permissions without duplicates, in order', () => {
    const effective = permissionsForCaller({
      user: ['get:/dogs', 'put:/dogs/rex'],
      groups: [['get:/dogs', 'post:/cats'], ['delete:/cats/*']],
      roles: [['put:/dogs/rex'], roleOf('default')],
    });
    expect(effective).toEqual(['get:/dogs', 'put:/dogs/rex', 'post:/cats', 'delete:/cats/*', 'get,put,post,delete:/users/me/**', 'get:/**']);
  });

  it('gives a guest exactly the guest role', () => {
    const effective = permissionsForCaller({ user: [], groups: [], roles: [roleOf(implicitRoleName(guest))] });
    expect(effective).toEqual(['post:/users', 'post:/devices', 'put:/devices/*']);
    expect(isPermitted(effective, 'get', '/users', guest)).toBe(false);
  });

  it('lets a group grant what the default role does not', () => {
    const effective = permissionsForCaller({ user: [], groups: [['post:/dogs']], roles: [roleOf('default')] });
    expect(isPermitted(effective, 'post', '/dogs', fred)).toBe(true);
    expect(isPermitted(effective, 'delete', '/dogs/rex', fred)).toBe(false);
  });
});

describe('default roles', () => {
  it('are admin, default and guest, each titled, every permission parseable', () => {
    expect(DEFAULT_ROLES.map((role) => role.name)).toEqual(['admin', 'default', 'guest']);
    for (const role of DEFAULT_ROLES) {
      expect(role.title).not.toBe('');
      for (const permission of role.permissions) {
        expect(formatPermission(parsePermission(permission))).toBe(permission);
      }
    }
  });

  it('cannot be mutated by one app and leak into the next', () => {
    expect(Object.isFrozen(DEFAULT_ROLES)).toBe(true);
    expect(DEFAULT_ROLES.every((role) => Object.isFrozen(role) && Object.isFrozen(role.permissions))).toBe(true);
  });

  it('apply implicitly: default when signed in, guest without a token', () => {
    expect(implicitRoleName(fred)).toBe('default');
    expect(implicitRoleName({ username: 'fred' })).toBe('default');
    expect(implicitRoleName(guest)).toBe('guest');
    expect(implicitRoleName({ uuid: '', username: '' })).toBe('guest');
  });
});

describe('rules that demand a sign-in (RFC 9470, docs/api.md#step-up)', () => {
  const now = 1_000_000;
  const pwd = { acr: 'urn:idp:acr:pwd', authTime: now - 10, now };
  const mfa = { acr: 'urn:idp:acr:mfa', authTime: now - 10, now };
  const phr = { acr: 'urn:idp:acr:phr', authTime: now - 10, now };

  it('reads short and full acr names and max_age, and writes them back canonically', () => {
    expect(formatPermission(parsePermission('PUT,get:/Secrets/** ? acr=MFA & max_age=600'))).toBe('get,put:/secrets/**?acr=urn:idp:acr:mfa&max_age=600');
    expect(formatPermission(parsePermission('get:/secrets?acr=urn:idp:acr:phr'))).toBe('get:/secrets?acr=urn:idp:acr:phr');
    expect(formatPermission(parsePermission('get:/secrets'))).toBe('get:/secrets');
  });

  it.each(['get:/s?acr=', 'get:/s?acr=gold', 'get:/s?max_age=-1', 'get:/s?max_age=1.5', 'get:/s?acr=mfa&acr=phr', 'get:/s?scope=x', 'get:/s?'])(
    'refuses %s',
    (text) => {
      expect(() => parsePermission(text)).toThrow(/Invalid permission/);
    },
  );

  it('grants only to a sign-in at least as strong and as recent; never without one', () => {
    const rules = ['post:/secrets/**?acr=mfa'];
    expect(isPermitted(rules, 'post', '/secrets/a', fred, pwd)).toBe(false);
    expect(isPermitted(rules, 'post', '/secrets/a', fred, mfa)).toBe(true);
    expect(isPermitted(rules, 'post', '/secrets/a', fred, phr)).toBe(true);
    expect(isPermitted(rules, 'post', '/secrets/a', fred)).toBe(false);
    const recent = ['post:/secrets/**?max_age=60'];
    expect(isPermitted(recent, 'post', '/secrets/a', fred, { ...pwd, authTime: now - 60 })).toBe(true);
    expect(isPermitted(recent, 'post', '/secrets/a', fred, { ...pwd, authTime: now - 61 })).toBe(false);
    expect(isPermitted(recent, 'post', '/secrets/a', fred, { acr: 'urn:idp:acr:mfa', now })).toBe(false);
  });

  it('never takes away what another rule grants, and names the least demanding rule that would grant', () => {
    expect(isPermitted(['get:/**', 'get:/secrets/**?acr=phr'], 'get', '/secrets/a', fred, pwd)).toBe(true);
    const rules = ['post:/secrets/**?acr=phr', 'post:/secrets/**?acr=mfa', 'post:/other?acr=pwd'];
    expect(stepUpRule(rules, 'post', '/secrets/a', fred)).toMatchObject({ acr: 'urn:idp:acr:mfa' });
    expect(stepUpRule(rules, 'get', '/secrets/a', fred)).toBeUndefined();
    expect(stepUpRule(['post:/secrets/**'], 'post', '/secrets/a', fred)).toBeUndefined();
  });
});
