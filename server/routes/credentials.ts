/**
 * GET and POST …/credentials of an organization or an application: the client id and secret of
 * its OAuth client (docs/api.md#clients). POST makes a new secret; the old one stops working
 * at once. Written once for both owners.
 */
import { createRoute, type z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from '../env.js';
import type { router } from '../openapi.js';
import { responses } from '../openapi.js';
import { ok, type EnvelopeInput } from '../envelope.js';
import { credentialView } from '../views.js';
import type { Credential, OwnerType } from '../../src/management/credentials.js';

interface CredentialOwner {
  owner: OwnerType;
  params: z.ZodObject;
  read(c: Context<Env>): Promise<Credential>;
  regenerate(c: Context<Env>): Promise<Credential>;
  /** The organization (and application) the envelope names. */
  scope(c: Context<Env>): Pick<EnvelopeInput, 'organization' | 'application'>;
}

export function credentialRoutes(app: ReturnType<typeof router>, owner: CredentialOwner): void {
  for (const method of ['get', 'post'] as const) {
    const verb = method === 'get' ? 'get' : 'generate';
    app.openapi(
      createRoute({
        method,
        path: '/credentials',
        tags: ['Management'],
        summary: method === 'get' ? `Get the ${owner.owner} client credentials` : `Generate new ${owner.owner} client credentials`,
        request: { params: owner.params },
        responses: responses('Credential'),
      }),
      async (c) => {
        const view = credentialView(await (method === 'get' ? owner.read(c) : owner.regenerate(c)));
        return ok(c, {
          action: `${verb} ${owner.owner} client credentials`,
          entities: [view],
          ...owner.scope(c),
          extra: { credentials: { client_id: view.client_id, client_secret: view.client_secret } },
        });
      },
    );
  }
}
