/** Shared pieces of the management commands (org, app, admin). */
import type { Ctx } from './context.js';
import type { Result } from './output.js';
import { confirmOrYes } from './prompt.js';
import { UsageError } from './errors.js';

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

/** `--second-factor-required on|off` as the API's `secondFactorRequired` (docs/api.md#second-factors); nothing when not given. */
export function secondFactorSetting(value: string | undefined): { secondFactorRequired?: boolean } {
  if (value === undefined) return {};
  if (value !== 'on' && value !== 'off') throw new UsageError('--second-factor-required takes on or off');
  return { secondFactorRequired: value === 'on' };
}

/** The help of `--second-factor-required`. */
export const SECOND_FACTOR_FLAG = [
  '--second-factor-required <on|off>',
  'on: users without a second factor enroll one at their next sign-in, and get no token by password before',
] as const;
