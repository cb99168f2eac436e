/**
 * /openapi.json describes the API the route table serves: every area's operations are there,
 * each declares the parameters its path names (an OpenAPI 3.1 rule), has responses, and every
 * `$ref` resolves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers.js';
import { AREAS } from '../../server/app.js';
import { listRoutes } from '../../server/route-table.js';

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
    Object.entries(item).filter(([method]) => METHODS.includes(method)).map(([method, operation]) => [path, method, operation] as [string, string, any]),
  );
}

describe('/openapi.json', () => {
  it('is an OpenAPI 3.1 document with operations under every API area', () => {
    expect(doc.openapi).toBe('3.1.0');
    for (const prefix of ['/status', '/.well-known/', '/connect/token', '/management/orgs', '/management/orgs/{orgId}/', '/management/orgs/{orgId}/apps/{appId}/', '/{orgId}/{appId}/']) {
      expect(operations().some(([path]) => path.startsWith(prefix)), prefix).toBe(true);
    }
  });

  it('documents only routes the server has', () => {
    const served = new Set(listRoutes(AREAS).map((route) => `${route.method.toLowerCase()} ${route.path.replace(/\{\w+\}/g, '{}')}`));
    // The push routes document Usergrid's `/{id}/*/…`; the server takes them as `/{collection}/{entityId}/…`.
    const shape = (path: string) => path.replace('/{id}/*/', '/{}/{}/').replace(/\{\w+\}/g, '{}');
    expect(operations().map(([path, method]) => `${method} ${shape(path)}`).filter((operation) => !served.has(operation))).toEqual([]);
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
