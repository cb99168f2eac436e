/**
 * The five routes of a resource an application owns and its administrators manage — OAuth
 * clients and identity providers: POST and GET on the collection, GET, PUT and DELETE on one.
 * Declared once here; each resource says how it is stored and shown.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ZodType } from 'zod';
import type { Env } from '../env.js';
import type { router } from '../openapi.js';
import { openapiRoute, responses } from '../openapi.js';
import { ok } from '../envelope.js';
import type { Deps } from '../../src/deps.js';
import type { Application } from '../../src/management/applications.js';
import { AppParams } from './management-params.js';

export interface AppResource<Input, Result> {
  /** The collection's path in the application's area, e.g. `/clients`. */
  path: string;
  /** The name of one item's path parameter, e.g. `clientId`. */
  param: string;
  paramDescription?: string;
  tag: string;
  /** The item's model name in /openapi.json, and the noun of the envelope's `action`. */
  model: string;
  noun: string;
  body: { description: string; schema: ZodType<Input> };
  summaries: { create: string; list: string; get: string; update: string; delete: string };
  create(deps: Deps, app: Application, input: Input): Promise<Result>;
  list(deps: Deps, app: Application): Promise<Result[]>;
  find(deps: Deps, app: Application, id: string): Promise<Result>;
  update(deps: Deps, app: Application, id: string, input: Input): Promise<Result>;
  remove(deps: Deps, app: Application, id: string): Promise<Result>;
  view(c: Context<Env>, result: Result): unknown;
  /** Top-level envelope members beside the entities (a secret just made). */
  extra?(result: Result): Record<string, unknown> | undefined;
}

export function appResourceRoutes<Input, Result>(app: ReturnType<typeof router>, resource: AppResource<Input, Result>): void {
  const one = `${resource.path}/{${resource.param}}`;
  const OneParams = AppParams.extend({ [resource.param]: z.string().openapi({ description: resource.paramDescription ?? `${resource.noun} id` }) });
  const body = { required: true, description: resource.body.description, content: { 'application/json': { schema: resource.body.schema } } };
  const declare = (method: 'get' | 'post' | 'put' | 'delete', path: string, summary: string, withBody: boolean) =>
    createRoute({
      method,
      path,
      tags: [resource.tag],
      summary,
      request: { params: path === one ? OneParams : AppParams, ...(withBody && { body }) },
      responses: responses(resource.model),
    });
  const answer = (c: Context<Env>, action: string, results: Result[], count = false) => {
    const { org, app: application } = c.get('appScope');
    const extra = results.length === 1 ? resource.extra?.(results[0]) : undefined;
    return ok(c, { action, entities: results.map((result) => resource.view(c, result)), organization: org, application, count, ...(extra && { extra }) });
  };
  const idOf = (c: Context<Env>) => c.req.param(resource.param) ?? '';
  const input = (c: Context<Env>) => (c.req as unknown as { valid(target: 'json'): Input }).valid('json');

  openapiRoute(app, declare('post', resource.path, resource.summaries.create, true), async (c) =>
    answer(c, `new ${resource.noun}`, [await resource.create(c.get('deps'), c.get('appScope').app, input(c))]),
  );
  openapiRoute(app, declare('get', resource.path, resource.summaries.list, false), async (c) =>
    answer(c, `get ${resource.noun}s`, await resource.list(c.get('deps'), c.get('appScope').app), true),
  );
  openapiRoute(app, declare('get', one, resource.summaries.get, false), async (c) =>
    answer(c, `get ${resource.noun}`, [await resource.find(c.get('deps'), c.get('appScope').app, idOf(c))]),
  );
  openapiRoute(app, declare('put', one, resource.summaries.update, true), async (c) =>
    answer(c, `update ${resource.noun}`, [await resource.update(c.get('deps'), c.get('appScope').app, idOf(c), input(c))]),
  );
  openapiRoute(app, declare('delete', one, resource.summaries.delete, false), async (c) =>
    answer(c, `delete ${resource.noun}`, [await resource.remove(c.get('deps'), c.get('appScope').app, idOf(c))]),
  );
}
