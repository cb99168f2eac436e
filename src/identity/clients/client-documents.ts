/**
 * Documents a client registered the URL of (its JWK Set, RFC 7591 2; its sector identifier
 * document, OpenID Connect Core 8.1), fetched so that a slow, endless or redirecting answer
 * cannot tie up the server.
 */

/** How large a fetched document may be: a JWK Set of twenty 4096-bit RSA keys fits with room to spare. */
const MAX_DOCUMENT_BYTES = 64 * 1024;
/** How long a fetch of such a document may take. */
export const FETCH_TIMEOUT_MS = 5000;

/** Fetches `url` with no redirects, the caller's time limit, and at most MAX_DOCUMENT_BYTES read. */
export async function fetchLimited(url: string, init: RequestInit): Promise<Response> {
  const response = await fetch(url, { ...init, redirect: 'manual' });
  const reader = response.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const next = reader ? await reader.read() : { done: true as const };
    if (next.done) break;
    size += next.value.byteLength;
    if (size > MAX_DOCUMENT_BYTES) {
      await reader?.cancel();
      throw new Error(`the document is larger than ${MAX_DOCUMENT_BYTES} bytes`);
    }
    chunks.push(next.value);
  }
  return new Response(Buffer.concat(chunks), { status: response.status, headers: response.headers });
}

/**
 * The JSON document at a client's URL, fetched as fetchLimited does within FETCH_TIMEOUT_MS.
 * @throws Error saying why, in words for the client's developer, when it cannot be had.
 */
export async function fetchClientJson(url: string): Promise<unknown> {
  let response: Response;
  try {
    response = await fetchLimited(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { accept: 'application/json' } });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'TimeoutError')
      throw new Error(`no answer within ${FETCH_TIMEOUT_MS / 1000} seconds`, { cause: error });
    // fetch says only "fetch failed"; its cause says why (ECONNREFUSED, ENOTFOUND, a certificate error).
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    const reason = cause?.code ?? cause?.message;
    throw new Error(typeof reason === 'string' ? `it could not be reached (${reason})` : (error as Error).message, { cause: error });
  }
  if (response.status !== 200) throw new Error(`the answer was HTTP ${response.status}, not 200`);
  try {
    return JSON.parse(await response.text()) as unknown;
  } catch (error) {
    throw new Error('the answer is not JSON', { cause: error });
  }
}
