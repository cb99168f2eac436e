/**
 * `--trusted-proxy`: forwarding headers are believed only from the proxies it names. Real servers
 * on a port (the client's address is the socket's), every request from 127.0.0.1: named as a
 * proxy, the clients behind it are throttled apart; not named, whatever the headers say, every
 * request is one client. A bad range stops start-up.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig, ConfigError } from '../../src/config.js';
import type { RunningServer } from '../../server/serve.js';
import { startTestServer } from '../database.js';
import { ORG } from '../helpers.js';
import { runIdp } from '../spawn.js';
import { Agent, fetch as undiciFetch } from 'undici';

let server: RunningServer | undefined;
// Connections of one server only: a kept-alive socket of a closed server must never carry the
// next test's request to a new server that happens to get the same port.
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await server?.close();
  [agent, server] = [undefined, undefined];
});

const fetch = (url: string, init: Parameters<typeof undiciFetch>[1] = {}) => undiciFetch(url, { ...init, dispatcher: agent });

/** A server that trusts `ranges`, on a clock that stands still, so a throttle's wait never runs out mid-test. */
async function start(ranges: string): Promise<RunningServer> {
  const now = Date.now();
  agent = new Agent();
  server = await startTestServer({ trustedProxy: ranges }, { now: () => now });
  const created = await fetch(`${server.url}/management/orgs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ORG) });
  expect(created.status).toBe(200);
  return server;
}

/** A wrong password for `username`, sent with `headers`; the status and error of the answer. */
async function wrongPassword(base: string, username: string, headers: Record<string, string>): Promise<string> {
  const response = await fetch(`${base}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', username, password: 'wrong', scope: 'api' }),
  });
  const body = (await response.json()) as { error: string };
  return `${response.status} ${body.error}`;
}

const BEHIND = (address: string) => ({ 'x-forwarded-for': address });

/** Twenty-one failures, each against another account: the most one address may make before it waits. */
async function exhaust(base: string, headers: Record<string, string>): Promise<void> {
  for (let i = 0; i < 21; i += 1) expect(await wrongPassword(base, `user${i}`, headers)).toBe('400 invalid_grant');
}

describe('behind a trusted proxy', () => {
  it('throttles two clients apart by X-Forwarded-For', async () => {
    const { url } = await start('127.0.0.1/32,10.0.0.0/8');
    await exhaust(url, BEHIND('203.0.113.1'));
    expect(await wrongPassword(url, 'alice', BEHIND('203.0.113.1'))).toBe('429 too_many_requests');
    expect(await wrongPassword(url, 'alice', BEHIND('203.0.113.2'))).toBe('400 invalid_grant');
    // The right-most address that is not a trusted proxy is the client: what is left of it was
    // written by the client, and a trusted proxy on the way is skipped.
    expect(await wrongPassword(url, 'alice', BEHIND('198.51.100.7, 203.0.113.1'))).toBe('429 too_many_requests');
    expect(await wrongPassword(url, 'alice', BEHIND('203.0.113.1, 203.0.113.2, 10.1.2.3'))).toBe('400 invalid_grant');
    expect(await wrongPassword(url, 'alice', BEHIND('203.0.113.2, 203.0.113.1, 10.1.2.3'))).toBe('429 too_many_requests');
    // The proxy's own address is another client.
    expect(await wrongPassword(url, 'alice', {})).toBe('400 invalid_grant');
  });

  it('reads RFC 7239 Forwarded, in preference to X-Forwarded-For', async () => {
    const { url } = await start('127.0.0.1');
    await exhaust(url, { forwarded: 'for="[2001:db8:cafe::17]:4711";proto=https' });
    expect(await wrongPassword(url, 'alice', { forwarded: 'for=192.0.2.43, for="[2001:DB8:CAFE::17]"' })).toBe('429 too_many_requests');
    expect(await wrongPassword(url, 'alice', { forwarded: 'for=192.0.2.43', 'x-forwarded-for': '2001:db8:cafe::17' })).toBe('400 invalid_grant');
  });

  it('marks the cookies Secure when the proxy says the browser came over https', async () => {
    const { url } = await start('127.0.0.1');
    const cookie = async (headers: Record<string, string>) =>
      (await fetch(`${url}/management/users/resetpw`, { headers: { accept: 'text/html', ...headers } })).headers.get('set-cookie');
    expect(await cookie({ 'x-forwarded-proto': 'https' })).toMatch(/^idp_csrf=.*; Secure/);
    expect(await cookie({ 'x-forwarded-proto': 'http' })).not.toMatch(/Secure/);
    expect(await cookie({ forwarded: 'for=192.0.2.43;proto=https' })).toMatch(/; Secure/);
  });
});

describe('a forwarding header from an address that is not a trusted proxy', () => {
  it('is ignored: two "clients" from 127.0.0.1 are throttled together', async () => {
    const { url } = await start('10.0.0.0/8');
    await exhaust(url, BEHIND('203.0.113.1'));
    expect(await wrongPassword(url, 'alice', BEHIND('203.0.113.2'))).toBe('429 too_many_requests');
    expect(await wrongPassword(url, 'alice', { forwarded: 'for=192.0.2.43' })).toBe('429 too_many_requests');
  });

  it('cannot make a cookie Secure', async () => {
    const { url } = await start('10.0.0.0/8');
    const response = await fetch(`${url}/management/users/resetpw`, { headers: { accept: 'text/html', 'x-forwarded-proto': 'https' } });
    expect(response.headers.get('set-cookie')).toMatch(/^idp_csrf=/);
    expect(response.headers.get('set-cookie')).not.toMatch(/Secure/);
  });
});

describe('--trusted-proxy values', () => {
  it.each(['10.0.0.0/33', '10.0.0/8', 'fd00::/129', 'proxy.internal', '10.0.0.0/8,', '10.0.0.0/8/1', '10.0.0.0/-1', '::1/'])('refuses %s', (value) => {
    expect(() => resolveConfig({ trustedProxy: value }, {})).toThrow(ConfigError);
  });

  it('reads IDP_TRUSTED_PROXY, and a flag beats it', () => {
    expect(resolveConfig({}, { IDP_TRUSTED_PROXY: '10.0.0.0/8, fd00::/8, 192.168.1.7' }).trustedProxies).toEqual([
      { network: '10.0.0.0', prefix: 8, family: 'ipv4' },
      { network: 'fd00::', prefix: 8, family: 'ipv6' },
      { network: '192.168.1.7', prefix: 32, family: 'ipv4' },
    ]);
    expect(resolveConfig({ trustedProxy: '::1' }, { IDP_TRUSTED_PROXY: '10.0.0.0/8' }).trustedProxies).toEqual([
      { network: '::1', prefix: 128, family: 'ipv6' },
    ]);
    expect(resolveConfig({}, {}).trustedProxies).toEqual([]);
  });

  it('a bad range stops idp serve with one error line', async () => {
    const result = await runIdp(['serve', '--port', '0', '--db', ':memory:', '--trusted-proxy', '10.0.0.0/8,10.0.0.300']);
    expect(result.stderr).toBe("error: --trusted-proxy must be a comma-separated list of addresses or CIDR ranges (10.0.0.0/8, ::1), not '10.0.0.300'\n");
    expect(result.code).toBe(2);
  });
});
