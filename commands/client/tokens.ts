/**
 * Token requests of `idp login` and `idp token`: the OAuth token endpoint `/connect/token`
 * (docs/api.md#token-endpoints). A server without it still has Usergrid's `/management/token`
 * (password and client_credentials grants), which answers with the same tokens.
 */
import type { Ctx } from './context.js';
import { isMissingEndpoint, type TokenSet } from './api.js';

/** Grants that Usergrid's endpoint also understands. */
const USERGRID_GRANTS = new Set(['password', 'client_credentials']);

/**
 * RFC 6749 2.3.1: a confidential client authenticates with HTTP Basic, its id and secret each
 * form-url-encoded first; every server must accept it, and a client registered for
 * client_secret_basic accepts nothing else. Public clients send only `client_id` in the body.
 */
function clientAuthentication(form: Record<string, string | undefined>): { form: Record<string, string | undefined>; headers: Record<string, string> } {
  const { client_id: id, client_secret: secret, ...rest } = form;
  if (id === undefined || secret === undefined) return { form, headers: {} };
  const encode = (text: string) => encodeURIComponent(text).replaceAll('%20', '+');
  return { form: rest, headers: { authorization: `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}` } };
}

export async function requestToken(ctx: Ctx, form: Record<string, string | undefined>): Promise<TokenSet & Record<string, unknown>> {
  try {
    return (await ctx.call({ method: 'POST', path: '/connect/token', ...clientAuthentication(form), auth: false })) as TokenSet & Record<string, unknown>;
  } catch (error) {
    if (!isMissingEndpoint(error) || !USERGRID_GRANTS.has(form.grant_type ?? '')) throw error;
    const { client_id, scope: _scope, ...rest } = form;
    // Usergrid's endpoint knows no public clients: admin-cli is implied by the password grant.
    const json = form.grant_type === 'password' ? rest : { ...rest, client_id };
    return (await ctx.call({ method: 'POST', path: '/management/token', json, auth: false })) as TokenSet & Record<string, unknown>;
  }
}
