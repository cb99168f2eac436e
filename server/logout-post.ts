/**
 * The HTTP of back-channel logout (OIDC Back-Channel Logout 1.0 2.5, docs/api.md#logout): a
 * form POST with undici, without following redirects (a redirect is an answer, not a new
 * address to post a token to), bounded by a timeout; the answer's body is read and dropped.
 */
import { request } from 'undici';
import type { LogoutPost } from '../src/identity/sessions/logout-worker.js';

export const postLogoutToken: LogoutPost = async (url, form, timeoutMs) => {
  const response = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: form,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
  });
  await response.body.dump();
  return response.statusCode;
};
