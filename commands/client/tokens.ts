/**
 * Token requests of `idp login` and `idp token`: the OAuth token endpoint `/connect/token`
 * (CONTRACT.md section 2). A server without it still has Usergrid's `/management/token`
 * (password and client_credentials grants), which answers with the same tokens.
 */
import type { Ctx } from './context.js';
import { isMissingEndpoint, type TokenSet } from './api.js';

/** Grants that Usergrid's endpoint also understands. */
const USERGRID_GRANTS = new Set(['password', 'client_credentials']);

export async function requestToken(ctx: Ctx, form: Record<string, string | undefined>): Promise<TokenSet & Record<string, unknown>> {
  try {
    return (await ctx.call({ method: 'POST', path: '/connect/token', form, auth: false })) as TokenSet & Record<string, unknown>;
  } catch (error) {
    if (!isMissingEndpoint(error) || !USERGRID_GRANTS.has(form.grant_type ?? '')) throw error;
    const { client_id, scope: _scope, ...rest } = form;
    // Usergrid's endpoint knows no public clients: admin-cli is implied by the password grant.
    const json = form.grant_type === 'password' ? rest : { ...rest, client_id };
    return (await ctx.call({ method: 'POST', path: '/management/token', json, auth: false })) as TokenSet & Record<string, unknown>;
  }
}
