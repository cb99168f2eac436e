/**
 * The request size limit on a real server, where a body arrives either with a declared
 * Content-Length (refused from the header alone) or chunked without one (counted as it is read).
 * Both are 413 with the usual error body (docs/api.md#errors), checked before the caller is, and
 * create nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../server/serve.js';
import { startTestServer } from '../database.js';
import { expectRefusedUnchanged, ORG, readResponse } from '../helpers.js';
import { findOrganization } from '../../src/management/organizations.js';

const LIMIT = 4096;

function chunked(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream({
    start(controller) {
      for (let at = 0; at < bytes.length; at += 1000) controller.enqueue(bytes.subarray(at, at + 1000));
      controller.close();
    },
  });
}

describe('body size limit over HTTP', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({ port: '0' }, { config: { bodyLimit: LIMIT } });
  });
  afterAll(() => server.close());

  const big = (organization: string) => JSON.stringify({ ...ORG, organization, name: 'x'.repeat(LIMIT) });

  // A declared length is refused before the caller is checked; a chunked body only as it is
  // read, so a caller refused first never has it read.
  const post = (headers: Record<string, string>, body: object) => async () =>
    readResponse(
      await fetch(`${server.url}/management/orgs`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, ...body } as RequestInit),
    );

  it.each([
    ['with a Content-Length', 413, 'payload_too_large', (organization: string) => ({ body: big(organization) })],
    ['chunked, without one', 401, 'unauthorized', (organization: string) => ({ body: chunked(big(organization)), duplex: 'half' })],
  ])('a body over the limit %s is 413 (with a bad token %i %s), and creates nothing', async (_, badTokenStatus, badTokenError, body) => {
    await expectRefusedUnchanged(server, post({}, body('big-guest')), 413, 'payload_too_large');
    await expect(findOrganization(server.deps, 'big-guest')).rejects.toThrow(/not found/);
    await expectRefusedUnchanged(server, post({ authorization: 'Bearer not-a-token' }, body('big-bad-token')), badTokenStatus, badTokenError);
    await expect(findOrganization(server.deps, 'big-bad-token')).rejects.toThrow(/not found/);
  });

  it.each([
    ['with a Content-Length', (text: string) => ({ body: text })],
    ['chunked', (text: string) => ({ body: chunked(text), duplex: 'half' })],
  ])('a body within the limit %s goes through, and a bad token is still refused', async (_, body) => {
    const name = `small${Math.random().toString(36).slice(2, 8)}`;
    const text = JSON.stringify({ ...ORG, organization: name, username: name, email: `${name}@example.com` });
    await expectRefusedUnchanged(server, post({ authorization: 'Bearer not-a-token' }, body(text)), 401, 'unauthorized');
    await expect(findOrganization(server.deps, name)).rejects.toThrow(/not found/);
    const created = await post({}, body(text))();
    expect(created.status, created.text).toBe(200);
    expect((await findOrganization(server.deps, name)).name).toBe(name);
  });
});
