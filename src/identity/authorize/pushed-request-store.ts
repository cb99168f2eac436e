/**
 * Where pushed authorization requests (pushed-requests.ts, RFC 9126) wait for the browser: found
 * by the SHA-256 of their request_uri, taken once, forgotten when expired. Apart from the
 * request's validation, so that housekeeping can prune them without loading it.
 */
import { eq, lt } from 'drizzle-orm';

import type { Deps } from '../../deps.js';
import { hashToken } from '../sessions/token-families.js';
import { changes, first } from '../../db/run.js';
import { schemaOf } from '../../db/open.js';

/** Stores `params` under `requestUri` for `ttl` seconds, and drops the requests that expired. */
export async function storePushedRequest(deps: Deps, pushed: { requestUri: string; clientId: string; params: URLSearchParams; ttl: number }): Promise<void> {
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    const { pushedAuthorizationRequests } = schemaOf(tx);
    await tx.delete(pushedAuthorizationRequests).where(lt(pushedAuthorizationRequests.expiresAt, now));
    await tx.insert(pushedAuthorizationRequests).values({
      requestUriHash: hashToken(pushed.requestUri),
      clientId: pushed.clientId,
      params: pushed.params.toString(),
      created: now,
      expiresAt: now + pushed.ttl * 1000,
    });
  });
}

/**
 * The parameters pushed under `requestUri` by `clientId`, removed so that no second request can
 * use them; undefined when there are none, they expired, or another client pushed them.
 */
export async function takePushedRequest(deps: Deps, clientId: string, requestUri: string): Promise<URLSearchParams | undefined> {
  const requestUriHash = hashToken(requestUri);
  // Read and delete in one transaction: of two requests with the same URI, only the one whose
  // delete removed the row has it.
  const row = await deps.db.transaction(async (tx) => {
    const { pushedAuthorizationRequests } = schemaOf(tx);
    const found = await first(tx.select().from(pushedAuthorizationRequests).where(eq(pushedAuthorizationRequests.requestUriHash, requestUriHash)));
    if (!found || found.clientId !== clientId) return undefined;
    const deleted = changes(await tx.delete(pushedAuthorizationRequests).where(eq(pushedAuthorizationRequests.requestUriHash, requestUriHash)));
    return deleted > 0 ? found : undefined;
  });
  return row && row.expiresAt > deps.now() ? new URLSearchParams(row.params) : undefined;
}

/** Housekeeping: forgets pushed requests past their expiry; returns how many. */
export async function prunePushedRequests(deps: Deps, now: number): Promise<number> {
  const { pushedAuthorizationRequests } = schemaOf(deps.db);
  return changes(await deps.db.delete(pushedAuthorizationRequests).where(lt(pushedAuthorizationRequests.expiresAt, now)));
}
