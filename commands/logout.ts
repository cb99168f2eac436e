import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import type { Ctx } from './client/context.js';
import { ADMIN_CLI, isMissingEndpoint } from './client/api.js';
import { messageOf } from './client/output.js';
import { NetworkError } from './client/errors.js';

/**
 * Revokes the refresh token (RFC 7009) where the server offers it, then forgets both tokens —
 * also when the server cannot be reached: the local copy goes either way.
 */
async function logout(ctx: Ctx) {
  const { refresh_token: refreshToken, access_token: accessToken } = ctx.profile();
  if (accessToken === undefined && refreshToken === undefined)
    return messageOf({ revoked: false }, `not logged in (profile ${ctx.profileName}); \`${ctx.loginCommand}\` signs in`);
  let revoked = false;
  if (refreshToken !== undefined) {
    try {
      await ctx.call({
        method: 'POST',
        path: '/connect/revocation',
        form: { token: refreshToken, token_type_hint: 'refresh_token', client_id: ADMIN_CLI },
        auth: false,
      });
      revoked = true;
    } catch (error) {
      if (!isMissingEndpoint(error) && !(error instanceof NetworkError)) throw error;
    }
  }
  await ctx.saveProfile(({ access_token: _a, refresh_token: _r, expires_at: _e, ...rest }) => rest);
  return messageOf({ revoked }, `logged out of ${ctx.url}${revoked ? ' (refresh token revoked)' : ''}; \`${ctx.loginCommand}\` signs in again`);
}

export function register(noun: Command): void {
  examples(noun.description('forget the tokens of the profile, revoking the refresh token').action(act(logout)), 'idp logout --profile ci');
}
