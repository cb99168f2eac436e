/**
 * The authorization_code grant at /connect/token (RFC 6749 4.1.3) with PKCE (RFC 7636), one named
 * test per rule: a code is used once and its replay revokes what it issued, the verifier must
 * match the challenge, `plain` only for clients that allow it. Codes are minted by the storage
 * function the authorize endpoint itself calls.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectOAuthError, expectRefusedUnchanged, snapshot, type Clock, type TestApp, type TestResponse } from '../helpers.js';
import { createAuthorizationCode, type NewAuthorizationCode } from '../../src/identity/authorize/authorization-codes.js';
import { basic, claimsOf, createAppUser, createTenantApp, pkcePair, registerClient, token, type Tenant } from './fixtures.js';

const CALLBACK = 'https://app.example/cb';
const CLIENTS = '/management/orgs/acme/apps/sandbox/clients';

interface Party {
  client_id: string;
  client_secret?: string;
}

let t: TestApp;
let clock: Clock;
let tenant: Tenant;
let userUuid: string;
/** A confidential client, PKCE required: it may introspect its own tokens. */
let rp: Party;
/** A public client (no secret): PKCE is required by default. */
let spa: Party;
/** A confidential client that allows the plain code_challenge_method. */
let plain: Party;

beforeEach(async () => {
  ({ t, tenant, clock } = await createTenantApp());
  userUuid = await createAppUser(t, tenant.appUuid, 'fred', 'fred-password');
  const common = { redirect_uris: [CALLBACK], grant_types: ['authorization_code', 'refresh_token'] };
  rp = await registerClient(t, tenant, { ...common, token_endpoint_auth_method: 'client_secret_basic', require_pkce: true });
  spa = await registerClient(t, tenant, { ...common, token_endpoint_auth_method: 'none' });
  plain = await registerClient(t, tenant, { ...common, token_endpoint_auth_method: 'client_secret_basic', allow_plain_pkce: true });
});
afterEach(() => t.close());

function mint(client: Party, challenge: Partial<NewAuthorizationCode>): Promise<string> {
  return createAuthorizationCode(t.deps, {
    clientId: client.client_id,
    principal: { kind: 'app-user', appUuid: tenant.appUuid, userUuid, username: 'fred' },
    redirectUri: CALLBACK,
    scope: ['openid', 'offline_access', 'api'],
    nonce: 'n-42',
    authTime: Math.floor(clock.now / 1000),
    ...challenge,
  });
}

/** A confidential client authenticates with HTTP Basic, a public one names itself in the form. */
function exchange(client: Party, code: string, extra: Record<string, string>): Promise<TestResponse> {
  const form = { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, ...extra };
  return client.client_secret === undefined
    ? token(t, { ...form, client_id: client.client_id })
    : token(t, form, { authorization: basic(client.client_id, client.client_secret) });
}

async function introspect(value: string): Promise<Record<string, unknown>> {
  const res = await t.request('POST', '/connect/introspect', { form: { token: value }, headers: { authorization: basic(rp.client_id, rp.client_secret!) } });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

function expectTokensFor(res: TestResponse, client: Party): void {
  expect(res.status, res.text).toBe(200);
  expect(res.body).toMatchObject({ token_type: 'Bearer', scope: 'openid offline_access api', refresh_token: expect.any(String) });
  expect(claimsOf(res.body.access_token)).toMatchObject({ sub: userUuid, client_id: client.client_id });
  expect(claimsOf(res.body.id_token)).toMatchObject({ sub: userUuid, aud: client.client_id, nonce: 'n-42' });
}

/** The rows that revoking a token family touches; a replay may change these and nothing else. */
const REVOCATION_TABLES = ['oauth_grants', 'refresh_tokens', 'token_revocations'];

async function revocationRows() {
  const query = t.deps.db.$client.query.bind(t.deps.db.$client);
  return {
    families: await query<{ id: string; revoked_at: unknown }>('select id, revoked_at from oauth_grants order by id'),
    refreshTokens: await query<{ token_hash: string; grant_id: string; status: string }>(
      'select token_hash, grant_id, status from refresh_tokens order by token_hash',
    ),
    revocations: (await query<{ key: string }>('select key from token_revocations order by key')).map((row) => row.key),
  };
}

async function liveFamilies(): Promise<string[]> {
  return (await t.deps.db.$client.query<{ id: string }>('select id from oauth_grants where revoked_at is null order by id')).map((row) => row.id);
}

/**
 * A refused exchange of a code that exists and belongs to the client. The code is spent all the
 * same (the request may be an attacker's): the refusal may mark it used and record a token family
 * born revoked, and change nothing else: no refresh token, no live family. The legitimate exchange that
 * follows is then a replay.
 */
async function expectRefusedAndSpent(send: () => Promise<TestResponse>, legitimate: () => Promise<TestResponse>): Promise<void> {
  const live = await liveFamilies();
  await expectRefusedUnchanged(t, send, 400, 'invalid_grant', { except: ['authorization_codes', 'oauth_grants', 'token_revocations'] });
  expect(await liveFamilies()).toEqual(live);
  expectOAuthError(await legitimate(), 400, 'invalid_grant');
}

describe('code replay (RFC 6749 4.1.2, 10.5)', () => {
  it('a second exchange of a used code is invalid_grant and issues nothing', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await mint(rp, { codeChallenge: challenge, codeChallengeMethod: 'S256' });
    const first = await exchange(rp, code, { code_verifier: verifier });
    expectTokensFor(first, rp);
    const familyId = claimsOf(first.body.access_token).gid;
    const untouched = await snapshot(t, { except: REVOCATION_TABLES });
    const before = await revocationRows();

    const replay = await exchange(rp, code, { code_verifier: verifier });
    expectOAuthError(replay, 400, 'invalid_grant');
    expect(replay.body.access_token).toBeUndefined();
    expect(await snapshot(t, { except: REVOCATION_TABLES })).toBe(untouched);
    // What a replay changes: the first exchange's token family and refresh token become revoked. No family, no refresh token is new.
    const after = await revocationRows();
    expect(after.families).toEqual(before.families.map((row) => (row.id === familyId ? { ...row, revoked_at: clock.now } : row)));
    expect(after.refreshTokens).toEqual(before.refreshTokens.map((row) => (row.grant_id === familyId ? { ...row, status: 'revoked' } : row)));
    expect(after.revocations).toEqual([...before.revocations, `gid:${familyId}`].sort());
  });

  it('revoke-on-replay: the access and refresh tokens of the first exchange stop working', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await mint(rp, { codeChallenge: challenge, codeChallengeMethod: 'S256' });
    const first = await exchange(rp, code, { code_verifier: verifier });
    expectTokensFor(first, rp);
    expect(await introspect(first.body.access_token)).toMatchObject({ active: true, sub: userUuid, client_id: rp.client_id });
    expect(await introspect(first.body.refresh_token)).toMatchObject({ active: true, sub: userUuid, client_id: rp.client_id });

    expectOAuthError(await exchange(rp, code, { code_verifier: verifier }), 400, 'invalid_grant');
    expect(await introspect(first.body.access_token)).toEqual({ active: false });
    expect(await introspect(first.body.refresh_token)).toEqual({ active: false });
    const refreshed = await token(
      t,
      { grant_type: 'refresh_token', refresh_token: first.body.refresh_token },
      { authorization: basic(rp.client_id, rp.client_secret!) },
    );
    expectOAuthError(refreshed, 400, 'invalid_grant');
  });

  it('two simultaneous exchanges of one code: one gets tokens, the other is invalid_grant and revokes them', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await mint(rp, { codeChallenge: challenge, codeChallengeMethod: 'S256' });
    const answers = await Promise.all([exchange(rp, code, { code_verifier: verifier }), exchange(rp, code, { code_verifier: verifier })]);
    const winners = answers.filter((res) => res.status === 200);
    expect(winners, answers.map((res) => res.text).join('\n')).toHaveLength(1);
    expectOAuthError(
      answers.find((res) => res.status !== 200)!,
      400,
      'invalid_grant',
    );
    expect(await introspect(winners[0].body.access_token)).toEqual({ active: false });
    expect(await introspect(winners[0].body.refresh_token)).toEqual({ active: false });
  });
});

describe('PKCE S256 (RFC 7636 4.6)', () => {
  it('the right verifier exchanges the code', async () => {
    const { verifier, challenge } = pkcePair();
    expectTokensFor(await exchange(spa, await mint(spa, { codeChallenge: challenge, codeChallengeMethod: 'S256' }), { code_verifier: verifier }), spa);
  });

  it('a wrong verifier is invalid_grant: nothing is issued, and the code is spent', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await mint(spa, { codeChallenge: challenge, codeChallengeMethod: 'S256' });
    await expectRefusedAndSpent(
      () => exchange(spa, code, { code_verifier: pkcePair().verifier }),
      () => exchange(spa, code, { code_verifier: verifier }),
    );
  });

  it('a missing verifier is invalid_grant: nothing is issued, and the code is spent', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await mint(spa, { codeChallenge: challenge, codeChallengeMethod: 'S256' });
    await expectRefusedAndSpent(
      () => exchange(spa, code, {}),
      () => exchange(spa, code, { code_verifier: verifier }),
    );
  });

  it('the challenge itself is not a verifier', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await mint(spa, { codeChallenge: challenge, codeChallengeMethod: 'S256' });
    await expectRefusedAndSpent(
      () => exchange(spa, code, { code_verifier: challenge }),
      () => exchange(spa, code, { code_verifier: verifier }),
    );
  });
});

describe('PKCE plain (RFC 7636 4.2, 4.6)', () => {
  it('works for a client with allow_plain_pkce', async () => {
    const { verifier } = pkcePair();
    expectTokensFor(await exchange(plain, await mint(plain, { codeChallenge: verifier, codeChallengeMethod: 'plain' }), { code_verifier: verifier }), plain);
  });

  it('a wrong plain verifier is invalid_grant: nothing is issued, and the code is spent', async () => {
    const { verifier } = pkcePair();
    const code = await mint(plain, { codeChallenge: verifier, codeChallengeMethod: 'plain' });
    await expectRefusedAndSpent(
      () => exchange(plain, code, { code_verifier: pkcePair().verifier }),
      () => exchange(plain, code, { code_verifier: verifier }),
    );
  });

  it('the authorize endpoint refuses plain for a client without allow_plain_pkce: invalid_request to the client (RFC 7636 4.4.1)', async () => {
    const { verifier } = pkcePair();
    const before = await snapshot(t);
    const query = new URLSearchParams({
      client_id: rp.client_id,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid',
      state: 's-1',
      code_challenge: verifier,
      code_challenge_method: 'plain',
    });
    const res = await t.request('GET', `/connect/authorize?${query}`);
    expect(res.status, res.text).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'invalid_request', state: 's-1' });
    expect(back.searchParams.get('error_description')).toContain('plain');
    expect(await snapshot(t)).toBe(before);
  });

  it('the token endpoint refuses a plain code once the client no longer allows plain: invalid_grant, nothing issued', async () => {
    const { verifier } = pkcePair();
    const code = await mint(plain, { codeChallenge: verifier, codeChallengeMethod: 'plain' });
    const withdrawn = await t.request('PUT', `${CLIENTS}/${plain.client_id}`, {
      json: {
        redirect_uris: [CALLBACK],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'client_secret_basic',
        allow_plain_pkce: false,
      },
      token: tenant.adminToken,
    });
    expect(withdrawn.status, withdrawn.text).toBe(200);
    expect(withdrawn.body.entities[0].allow_plain_pkce).toBe(false);
    await expectRefusedAndSpent(
      () => exchange(plain, code, { code_verifier: verifier }),
      () => exchange(plain, code, { code_verifier: verifier }),
    );
  });
});

describe('other rules of the exchange (RFC 6749 4.1.3)', () => {
  it('refuses a wrong redirect_uri and an expired code, and spends them', async () => {
    const { verifier, challenge } = pkcePair();
    const misdirected = await mint(spa, { codeChallenge: challenge, codeChallengeMethod: 'S256' });
    await expectRefusedAndSpent(
      () => exchange(spa, misdirected, { code_verifier: verifier, redirect_uri: 'https://app.example/other' }),
      () => exchange(spa, misdirected, { code_verifier: verifier }),
    );
    const late = await mint(spa, { codeChallenge: challenge, codeChallengeMethod: 'S256' });
    clock.now += 61_000;
    await expectRefusedAndSpent(
      () => exchange(spa, late, { code_verifier: verifier }),
      () => exchange(spa, late, { code_verifier: verifier }),
    );
  });

  it('refuses a code issued without a challenge to a client that must use PKCE', async () => {
    const code = await mint(spa, { codeChallenge: null });
    await expectRefusedAndSpent(
      () => exchange(spa, code, {}),
      () => exchange(spa, code, {}),
    );
  });

  it('an unknown code and a missing redirect_uri change nothing', async () => {
    const { verifier, challenge } = pkcePair();
    await expectRefusedUnchanged(t, () => exchange(spa, 'no-such-code', { code_verifier: verifier }), 400, 'invalid_grant');
    const code = await mint(spa, { codeChallenge: challenge, codeChallengeMethod: 'S256' });
    await expectRefusedUnchanged(
      t,
      () => token(t, { grant_type: 'authorization_code', client_id: spa.client_id, code, code_verifier: verifier }),
      400,
      'invalid_request',
    );
    expectTokensFor(await exchange(spa, code, { code_verifier: verifier }), spa);
  });

  it("binds a code to its client: another client's attempt changes nothing, and the code still works for its own", async () => {
    const { verifier } = pkcePair();
    const code = await mint(plain, { codeChallenge: verifier, codeChallengeMethod: 'plain' });
    await expectRefusedUnchanged(t, () => exchange(rp, code, { code_verifier: verifier }), 400, 'invalid_grant');
    await expectRefusedUnchanged(
      t,
      () => token(t, { grant_type: 'authorization_code', client_id: 'admin-cli', code, redirect_uri: CALLBACK, code_verifier: verifier }),
      400,
      'invalid_grant',
    );
    expectTokensFor(await exchange(plain, code, { code_verifier: verifier }), plain);
  });
});
