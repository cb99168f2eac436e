/**
 * `idp serve` as an operator runs it: the metrics port, and what the logs hold at each level —
 * no line per token issued at the default level, one at debug, a warn line when the throttle
 * refuses a sign-in, and with --access-log one line per request, its query left out.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { matchOutput, startIdp, type RunningIdp } from '../spawn.js';
import { ConfigError, resolveConfig } from '../../src/config.js';
import { ORG, requestServer } from '../helpers.js';
import { valueOf } from './scrape.js';

const METRICS_TOKEN = 'metrics-token-for-the-test';

let idp: RunningIdp | undefined;
afterEach(async () => {
  await idp?.stop();
  idp = undefined;
});

const call = (url: string, method: string, json?: unknown, token?: string) => requestServer(url, method, '', { json, token });

/** An organization and application on the server; the application's client credentials. */
async function setUp(url: string): Promise<{ client_id: string; client_secret: string }> {
  expect((await call(`${url}/management/orgs`, 'POST', ORG)).status).toBe(200);
  const { access_token } = (await call(`${url}/management/token`, 'POST', { grant_type: 'password', username: ORG.username, password: ORG.password })).body;
  expect((await call(`${url}/management/orgs/acme/apps`, 'POST', { name: 'sandbox' }, access_token)).status).toBe(200);
  return (await call(`${url}/management/orgs/acme/apps/sandbox/credentials`, 'GET', undefined, access_token)).body.credentials;
}

function clientCredentials(url: string, client: { client_id: string; client_secret: string }) {
  return fetch(`${url}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }),
  });
}

/** The JSON lines the server wrote to stderr. */
function logLines(server: RunningIdp): Record<string, unknown>[] {
  return server
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('--metrics-port', () => {
  it('serves /metrics without a token on a second port of the same host; the API port still asks for one', async () => {
    idp = await startIdp(['--port', '0', '--db', ':memory:', '--metrics-port', '0', '--metrics-token', METRICS_TOKEN]);
    // Printed after the API's own address, on the same host.
    const metricsUrl = (await matchOutput(idp.child.stdout!, idp.stdout(), /metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)/))[1];
    expect(metricsUrl).not.toContain(new URL(idp.url).port);
    expect((await fetch(`${idp.url}/status`)).status).toBe(200);

    const open = await fetch(metricsUrl);
    expect(open.status).toBe(200);
    const text = await open.text();
    expect(valueOf(text, 'idp_http_request_duration_seconds_count', { route: '/status', method: 'GET', status: '200' })).toBe(1);

    const refused = await call(`${idp.url}/metrics`, 'GET');
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('unauthorized');
    expect((await fetch(`${idp.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(200);
    // Nothing else is served there.
    const other = await call(metricsUrl.replace(/\/metrics$/, '/status'), 'GET');
    expect(other.status).toBe(404);
    expect(other.body.error).toBe('not_found');
  });

  it('refuses to start on the port the API uses', async () => {
    await expect(startIdp(['--port', '18181', '--db', ':memory:', '--metrics-port', '18181'])).rejects.toThrow(/--metrics-port must differ from --port/);
  });
});

describe('logs', () => {
  it('writes no line per token issued at the default level, one at debug, and a refusal at info', async () => {
    for (const level of ['info', 'debug']) {
      idp = await startIdp(['--port', '0', '--db', ':memory:', ...(level === 'debug' ? ['--log-level', 'debug'] : [])]);
      const client = await setUp(idp.url);
      for (let i = 0; i < 10; i++) expect((await clientCredentials(idp.url, client)).status).toBe(200);
      expect((await clientCredentials(idp.url, { ...client, client_secret: 'wrong' })).status).toBe(401);
      await idp.stderrMatch(/"event":"token_refused"/);
      const issued = logLines(idp).filter((line) => line.event === 'token_issued' && line.grant_type === 'client_credentials');
      expect(issued.length, idp.stderr()).toBe(level === 'debug' ? 10 : 0);
      const refused = logLines(idp).filter((line) => line.event === 'token_refused');
      expect(refused).toEqual([expect.objectContaining({ level: 30, error: 'invalid_client' })]);
      await idp.stop();
      idp = undefined;
    }
  });

  it('writes a warn line when the throttle refuses a sign-in', async () => {
    idp = await startIdp(['--port', '0', '--db', ':memory:']);
    await setUp(idp.url);
    const signIn = () => call(`${idp!.url}/management/token`, 'POST', { grant_type: 'password', username: ORG.username, password: 'not-the-password' });
    for (let i = 0; i < 6; i++) expect((await signIn()).status).toBe(400);
    expect((await signIn()).status).toBe(429);
    await idp.stderrMatch(/"event":"throttled"/);
    const warned = logLines(idp).filter((line) => line.event === 'throttled');
    expect(warned).toEqual([expect.objectContaining({ level: 40, kind: 'sign_in', retry_after: expect.any(Number) })]);
    expect(idp.stderr()).not.toContain('not-the-password');
  });

  it('writes one access line per request with --access-log, and none without', async () => {
    for (const accessLog of [false, true]) {
      idp = await startIdp(['--port', '0', '--db', ':memory:', ...(accessLog ? ['--access-log'] : [])]);
      await fetch(`${idp.url}/status`);
      await fetch(`${idp.url}/acme/sandbox/dogs/rex?access_token=secret-in-the-query`);
      await fetch(`${idp.url}/healthz`);
      if (accessLog) await idp.stderrMatch(/"route":"\/healthz"/);
      else await new Promise((resolve) => setTimeout(resolve, 200));
      const lines = logLines(idp).filter((line) => line.event === 'request');
      if (!accessLog) expect(lines).toEqual([]);
      else {
        expect(lines.map((line) => [line.method, line.route, line.status])).toEqual([
          ['GET', '/status', 200],
          ['GET', '/{orgId}/{appId}/{collection}/{entityId}', 401],
          ['GET', '/healthz', 200],
        ]);
        expect(lines[1]).toMatchObject({ path: '/acme/sandbox/dogs/rex', address: '127.0.0.1', ms: expect.any(Number) });
        expect(idp.stderr()).not.toContain('secret-in-the-query');
      }
      await idp.stop();
      idp = undefined;
    }
  });
});

describe('the flags and their variables', () => {
  it('reads --metrics-token, --metrics-port and --access-log, or IDP_METRICS_TOKEN, IDP_METRICS_PORT and IDP_ACCESS_LOG', () => {
    expect(resolveConfig({}, {})).toMatchObject({ metricsToken: undefined, metricsPort: undefined, accessLog: false });
    expect(resolveConfig({ metricsToken: METRICS_TOKEN, metricsPort: '9464', accessLog: true }, {})).toMatchObject({
      metricsToken: METRICS_TOKEN,
      metricsPort: 9464,
      accessLog: true,
    });
    const env = { IDP_METRICS_TOKEN: METRICS_TOKEN, IDP_METRICS_PORT: '9100', IDP_ACCESS_LOG: 'yes' };
    expect(resolveConfig({}, env)).toMatchObject({ metricsToken: METRICS_TOKEN, metricsPort: 9100, accessLog: true });
    expect(resolveConfig({ metricsPort: '9200' }, env).metricsPort).toBe(9200);
  });

  it('refuses a short metrics token, a port out of range or the API port, and an access log neither on nor off', () => {
    expect(() => resolveConfig({ metricsToken: 'short' }, {})).toThrow(/--metrics-token must be at least 16 characters/);
    expect(() => resolveConfig({}, { IDP_METRICS_TOKEN: 'a token with spaces in it' })).toThrow(
      /--metrics-token must be at least 16 characters, without spaces/,
    );
    expect(() => resolveConfig({ metricsPort: '70000' }, {})).toThrow(/--metrics-port must be a number from 0 to 65535/);
    expect(() => resolveConfig({ port: '8080', metricsPort: '8080' }, {})).toThrow(/--metrics-port must differ from --port \(8080\)/);
    expect(() => resolveConfig({}, { IDP_ACCESS_LOG: 'sometimes' })).toThrow(ConfigError);
  });
});
