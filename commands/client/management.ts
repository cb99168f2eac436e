/** Shared pieces of the management commands (org, app, admin). */
import type { Ctx } from './context.js';
import type { Result } from './output.js';
import { confirmOrYes } from './prompt.js';

/** The organization named on the command line, else the context's (--org, IDP_ORG, profile). */
export function orgOf(ctx: Ctx, org: string | undefined): string {
  return org ?? ctx.org();
}

/**
 * GET or (with --regenerate) POST a credentials endpoint. Regenerating invalidates the old
 * secret at once (docs/api.md#clients), so it is confirmed like any destructive command.
 */
export async function credentialsResult(ctx: Ctx, path: string, regenerate: boolean | undefined, yes: boolean | undefined): Promise<Result> {
  if (regenerate) await confirmOrYes(yes, 'Generate a new client secret? The current one stops working at once');
  const body = await ctx.call({ method: regenerate ? 'POST' : 'GET', path });
  const credentials = (body as { credentials?: { client_id: string; client_secret: string } }).credentials ?? { client_id: '', client_secret: '' };
  return { json: body, view: { kind: 'record', record: credentials }, quiet: `${credentials.client_id} ${credentials.client_secret}` };
}
