/**
 * `idp user factors list USER` and `idp user factors reset USER` (docs/cli.md), through the real
 * executable against a real server: a TOTP factor is enrolled and activated over HTTP first, as the
 * user's application would, with a code computed here from the secret it was given.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOTP } from 'otpauth';
import { loginDemo, startCli, type Cli } from './helpers.js';

let cli: Cli;
let adminToken: string;
beforeAll(async () => {
  cli = await startCli();
  await loginDemo(cli);
  await cli.run(['config', 'set', 'app', 'sandbox']);
  const answer = await fetch(`${cli.url}/management/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', username: 'demo', password: 'demo-password' }),
  });
  adminToken = ((await answer.json()) as { access_token: string }).access_token;
});
afterAll(() => cli.stop());

async function http(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${cli.url}/demo/sandbox${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** Enrolls and activates a TOTP factor of `user` over the API; returns its id and secret. */
async function enrollTotp(user: string): Promise<{ id: string; secret: string }> {
  const enrolled = await http('POST', `/users/${user}/factors`, { type: 'totp' });
  expect(enrolled.status).toBe(201);
  const { id, secret } = enrolled.body.entities[0];
  const code = new TOTP({ secret, algorithm: 'SHA1', digits: 6, period: 30 }).generate();
  expect((await http('POST', `/users/${user}/factors/${id}/verify`, { code })).status).toBe(200);
  return { id, secret };
}

function passwordGrant(otp?: string): Promise<Response> {
  return fetch(`${cli.url}/demo/sandbox/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', username: 'fiona', password: 'fionas-password-1', ...(otp && { otp }) }),
  });
}

describe('idp user factors', () => {
  it('lists a user’s factors without a secret, and reset removes them all so a password signs in again', async () => {
    expect((await cli.run(['user', 'create', 'fiona', '--password-stdin'], { input: 'fionas-password-1' })).code).toBe(0);
    expect((await cli.run(['user', 'factors', 'list', 'fiona'])).stdout).toContain('fiona has no second factor');

    const { id, secret } = await enrollTotp('fiona');
    expect((await passwordGrant()).status).toBe(400);

    const table = await cli.run(['user', 'factors', 'list', 'fiona']);
    expect(table).toMatchObject({ code: 0, stderr: '' });
    expect(table.stdout).toMatch(/^ID +TYPE +STATUS +CREATED$/m);
    expect(table.stdout).toMatch(new RegExp(`^${id} +totp +active `, 'm'));
    const listed = await cli.json(['user', 'factors', 'list', 'fiona']);
    expect(listed.entities).toEqual([
      { id, type: 'totp', status: 'active', name: null, last_used: null, created: expect.any(Number), modified: expect.any(Number) },
    ]);
    expect(JSON.stringify(listed)).not.toContain(secret);

    const reset = await cli.run(['user', 'factors', 'reset', 'fiona']);
    expect(reset).toMatchObject({ code: 0, stderr: '' });
    expect(reset.stdout.trim()).toBe('removed 1 second factor of fiona');
    expect((await cli.json(['user', 'factors', 'list', 'fiona'])).entities).toEqual([]);
    expect((await passwordGrant()).status).toBe(200);

    // The removal is an event of the application.
    const events = await http('GET', `/events?ql=${encodeURIComponent("select * where action = 'factor_removed'")}`);
    expect(events.body.entities).toEqual([expect.objectContaining({ action: 'factor_removed', factor: id, factor_type: 'totp', category: 'security' })]);
  });

  it('answers --json for reset, and exit code 4 for a user who does not exist', async () => {
    expect((await cli.run(['user', 'create', 'gus', '--password-stdin'], { input: 'guss-password-1' })).code).toBe(0);
    const { id } = await enrollTotp('gus');
    expect(await cli.json(['user', 'factors', 'reset', 'gus'])).toMatchObject({ removed: [id] });
    const missing = await cli.run(['user', 'factors', 'reset', 'nobody-here']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/^error: .*nobody-here/);
  });
});
