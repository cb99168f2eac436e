/**
 * /openapi.json describes the API the route table serves: every area's operations are there,
 * each declares the parameters its path names (an OpenAPI 3.1 rule), has responses, and every
 * `$ref` resolves. It is generated from what the routes validate, so every route is in it (but
 * other spellings of a documented path, and static files) and declares the input it reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers.js';
import { AREAS } from '../../server/app.js';
import { listRoutes } from '../../server/route-table.js';
import { honoPaths } from '../../server/routes/data/define.js';

let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await createTestApp();
  const res = await t.request('GET', '/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(() => t.close());

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function operations(): [string, string, any][] {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => [path, method, operation] as [string, string, any]),
  );
}

describe('/openapi.json', () => {
  it('is an OpenAPI 3.1 document with operations under every API area', () => {
    expect(doc.openapi).toBe('3.1.0');
    for (const prefix of [
      '/status',
      '/.well-known/',
      '/connect/token',
      '/management/orgs',
      '/management/orgs/{orgId}/',
      '/management/orgs/{orgId}/apps/{appId}/',
      '/{orgId}/{appId}/',
    ]) {
      expect(
        operations().some(([path]) => path.startsWith(prefix)),
        prefix,
      ).toBe(true);
    }
  });

  it('documents only routes the server has', () => {
    const served = new Set(listRoutes(AREAS).map((route) => `${route.method.toLowerCase()} ${route.path.replace(/\{\w+\}/g, '{}')}`));
    // The push routes document Usergrid's `/{id}/*/…`; the server takes them as `/{collection}/{entityId}/…`.
    const shape = (path: string) => path.replace('/{id}/*/', '/{}/{}/').replace(/\{\w+\}/g, '{}');
    expect(
      operations()
        .map(([path, method]) => `${method} ${shape(path)}`)
        .filter((operation) => !served.has(operation)),
    ).toEqual([]);
  });

  it('declares, for every operation, each parameter its path names, and responses', () => {
    const problems: string[] = [];
    for (const [path, method, operation] of operations()) {
      const declared = new Set((operation.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name));
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) if (!declared.has(name)) problems.push(`${method} ${path}: {${name}} not declared`);
      if (operation.responses === undefined || Object.keys(operation.responses).length === 0) problems.push(`${method} ${path}: no responses`);
    }
    expect(problems).toEqual([]);
  });

  it('resolves every $ref', () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/(\w+)\/([^"]+)"/g)];
    expect(refs.length).toBeGreaterThan(0);
    for (const [, kind, name] of refs) expect(doc.components[kind]?.[name], `${kind}/${name}`).toBeDefined();
  });
});

/** Routes served but not in /openapi.json, and why. */
const UNDOCUMENTED: Record<string, string> = {
  'GET /docs': 'the Swagger UI page that shows /openapi.json',
  'GET /docs/init.js': 'the script of that page',
  'GET /connect/assets/style.css': "the pages' stylesheet",
  'GET /connect/assets/altcha-solver.js': "the reset page's captcha solver",
  'GET /console': 'the admin console, a page',
  'GET /console/*': "the admin console's page at the address of each of its screens",
  'GET /console/assets/{file}': "the admin console's built files",
  'GET /connect/assets/account-passkeys.js': "the account page's script that adds a passkey",
  'GET /connect/assets/passkey.js': "the sign-in pages' script that signs in with a passkey",
  'GET /connect/assets/simplewebauthn-browser.js': "@simplewebauthn/browser's bundle, for the pages' WebAuthn calls",
};

/** POST and PUT operations that read no body, and why. */
const NO_BODY: Record<string, string> = {
  'post /management/keys/rotate': 'a sysadmin asks for new keys; nothing to say',
  'post /management/orgs/{orgId}/credentials': 'makes a new secret',
  'post /management/orgs/{orgId}/apps/{appId}/credentials': 'makes a new secret',
  'put /management/orgs/{orgId}/users/{userId}': 'the path names the admin user to add',
  'post /{orgId}/{appId}/notifications': 'answers 405 with the addresses a notification is sent to',
  'post /{orgId}/{appId}/{collection}/{entityId}/{relation}/{entityId2}': 'the path names the two entities to connect',
  'post /{orgId}/{appId}/{collection}/{entityId}/{relation}/{type}/{entityId2}': 'the path names the two entities to connect',
  'post /{orgId}/{appId}/{collection}/{entityId}/connections/{relation}/{entityId2}': 'the path names the two entities to connect',
  'post /{orgId}/{appId}/{collection}/{entityId}/connections/{relation}/{type}/{entityId2}': 'the path names the two entities to connect',
  'post /{orgId}/{appId}/users/{entityId}/revoketoken': 'the token to revoke is a query parameter, as Usergrid took it',
  'put /{orgId}/{appId}/users/{entityId}/revoketoken': 'the token to revoke is a query parameter, as Usergrid took it',
  'post /{orgId}/{appId}/users/{entityId}/revoketokens': 'the path names the user',
  'put /{orgId}/{appId}/users/{entityId}/revoketokens': 'the path names the user',
  'put /{orgId}/{appId}/users/{entityId}/deactivate': 'the path names the user',
  'put /{orgId}/{appId}/users/{entityId}/activate': 'the path names the user',
  'put /management/users/{userId}/deactivate': 'the path names the admin user',
  'put /management/users/{userId}/activate': 'the path names the admin user',
};

/** Query parameters that routes read, by operation. */
const QUERIES: [string, string[]][] = [
  [
    'get /connect/authorize',
    ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'nonce', 'prompt', 'code_challenge', 'code_challenge_method', 'ui_locales'],
  ],
  ['get /connect/federation/callback', ['state', 'code', 'error']],
  ['get /connect/endsession', ['id_token_hint', 'client_id', 'post_logout_redirect_uri', 'state', 'ui_locales']],
  ['get /management/orgs/{orgId}/activate', ['token', 'confirm_email']],
  ['get /management/users/{userId}/activate', ['token', 'confirm_email']],
  ['get /{orgId}/{appId}/users/{userId}/activate', ['token', 'confirm_email']],
  ['get /management/users/{userId}/resetpw', ['token']],
  ['get /{orgId}/{appId}/users/{userId}/resetpw', ['token']],
  ['get /management/orgs/{orgId}/feed', ['limit', 'cursor', 'verb', 'category', 'actor', 'since']],
  ['get /management/users/{userId}/feed', ['limit']],
  ['put /{orgId}/{appId}/{collection}', ['ql', 'queryStatement', 'limit']],
  ['delete /{orgId}/{appId}/{collection}', ['ql', 'queryStatement', 'limit']],
  ['delete /{orgId}/{appId}/{collection}/{entityId}/{relation}', ['permission', 'grant_url_pattern']],
  ['post /{orgId}/{appId}/devices', ['ql', 'queryStatement']],
  ['post /{orgId}/{appId}/users/{entityId}/revoketoken', ['token']],
  ['put /{orgId}/{appId}/users/{entityId}/revoketoken', ['token']],
];

describe('/openapi.json and the input the routes read', () => {
  it('documents every route the server answers, but other spellings of a documented path and static files', () => {
    // Parameters by position only; the push routes document Usergrid's `/{id}/*/…`, served as `/{collection}/{entityId}/…`.
    const shape = (path: string) => path.replace(/\{\w+\}|:\w+|(?<=\/)\*(?=\/)/g, '{}');
    const documented = new Set(operations().flatMap(([path, method]) => honoPaths(path).map((spelling) => `${method.toUpperCase()} ${shape(spelling)}`)));
    const served = listRoutes(AREAS).filter((route) => ['GET', 'POST', 'PUT', 'DELETE'].includes(route.method));
    expect(served.length).toBeGreaterThan(100);
    const missing = served.map((route) => `${route.method} ${route.path}`).filter((route) => !documented.has(shape(route)) && !(route in UNDOCUMENTED));
    expect(missing).toEqual([]);
    // The exceptions are still served (a stale entry would hide a route that came back undocumented).
    for (const route of Object.keys(UNDOCUMENTED)) expect(served.map((one) => `${one.method} ${one.path}`)).toContain(route);
  });

  it('declares the body of every POST and PUT that reads one, with a schema for each media type', () => {
    const problems: string[] = [];
    let bodies = 0;
    for (const [path, method, operation] of operations().filter(([, method]) => method === 'post' || method === 'put')) {
      const key = `${method} ${path}`;
      if (operation.requestBody === undefined) {
        if (!(key in NO_BODY)) problems.push(`${key}: no body declared`);
        continue;
      }
      if (key in NO_BODY) problems.push(`${key}: declares a body, but is listed as reading none`);
      bodies++;
      const content = Object.entries(operation.requestBody.content ?? {}) as [string, any][];
      if (content.length === 0) problems.push(`${key}: a body without media types`);
      for (const [type, media] of content) if (media.schema === undefined) problems.push(`${key}: ${type} without a schema`);
    }
    expect(problems).toEqual([]);
    expect(bodies).toBeGreaterThan(30);
  });

  it('declares the query of every data and push list: ql or queryStatement, limit and cursor', () => {
    // A list is a GET whose path does not end at one entity.
    const lists = operations().filter(
      ([path, method, operation]) =>
        method === 'get' && path.startsWith('/{orgId}/{appId}/') && ['Data', 'Push'].includes(operation.tags[0]) && !/\/\{(\w*[iI]d|entityId2)\}$/.test(path),
    );
    expect(lists.map(([path]) => path)).toEqual(
      expect.arrayContaining([
        '/{orgId}/{appId}/{collection}',
        '/{orgId}/{appId}/{collection}/{entityId}/{relation}',
        '/{orgId}/{appId}/notifiers',
        '/{orgId}/{appId}/{id}/*/queue',
      ]),
    );
    const problems = lists.flatMap(([path, , operation]) => {
      const declared = (operation.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name);
      return ['ql', 'queryStatement', 'limit', 'cursor'].filter((name) => !declared.includes(name)).map((name) => `get ${path}: ?${name} not declared`);
    });
    expect(problems).toEqual([]);
  });

  it.each(QUERIES)('%s declares the query it reads', (key, names) => {
    const [method, path] = key.split(' ');
    const operation = doc.paths[path]?.[method];
    expect(operation, key).toBeDefined();
    const declared = (operation.parameters ?? []).filter((p: any) => p.in === 'query');
    expect(declared.map((p: any) => p.name)).toEqual(expect.arrayContaining(names));
    for (const parameter of declared) expect(parameter.schema, `${key} ?${parameter.name}`).toBeDefined();
  });
});
