/** Notifiers: required and checked fields, credentials checked on create and update, secrets never shown. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateKeyPair, exportPKCS8 } from 'jose';
import { APP, appleKey, createDataTest, must, serviceAccount, type AppleKey, type DataTest } from './setup.js';
import { expectRefusal, expectRefusedUnchanged } from '../helpers.js';

let d: DataTest;
let key: AppleKey;

beforeEach(async () => {
  d = await createDataTest();
  key = await appleKey();
});
afterEach(() => d.t.close());

const apple = () => ({ name: 'ios', provider: 'apple', environment: 'production', p8: key.p8, keyId: key.keyId, teamId: key.teamId, topic: 'com.example.app' });

describe('notifiers', () => {
  it('creates, lists, reads, updates and deletes, never showing the key', async () => {
    const created = await must(d, 'POST', `${APP}/notifiers`, apple());
    const entity = created.entities[0];
    expect(entity).toMatchObject({
      type: 'notifier',
      name: 'ios',
      provider: 'apple',
      environment: 'production',
      keyId: key.keyId,
      teamId: key.teamId,
      topic: 'com.example.app',
    });
    const service = await serviceAccount('https://oauth2.googleapis.com/token');
    await must(d, 'POST', `${APP}/notifier`, { name: 'android', provider: 'google', environment: 'production', credentials: JSON.stringify(service.account) });
    const reads = [
      await must(d, 'GET', `${APP}/notifiers`),
      await must(d, 'GET', `${APP}/notifiers/ios`),
      await must(d, 'GET', `${APP}/notifiers/${entity.uuid}`),
      await must(d, 'GET', `${APP}/notifiers?ql=${encodeURIComponent("select * where provider = 'google'")}`),
      await must(d, 'PUT', `${APP}/notifiers/ios`, { environment: 'development' }),
    ];
    expect(reads[0].entities).toHaveLength(2);
    expect(reads[3].entities[0]).toMatchObject({ projectId: 'idp-test', clientEmail: service.account.client_email });
    expect(reads[4].entities[0].environment).toBe('development');
    const text = JSON.stringify(reads) + JSON.stringify(created) + JSON.stringify(await d.t.deps.db.$client.query('select properties from entities'));
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toContain('private_key');

    await must(d, 'DELETE', `${APP}/notifiers/ios`);
    expectRefusal(await d.t.request('GET', `${APP}/notifiers/ios`, { token: d.admin }), 404, 'entity_not_found');
    expect(await d.t.deps.db.$client.query('select count(*) as n from push_notifier_secrets')).toEqual([{ n: 1 }]);
  });

  it('noop is accepted for development without being advertised', async () => {
    await must(d, 'POST', `${APP}/notifiers`, { name: 'dev', provider: 'noop', environment: 'development' });
    const res = await expectRefusedUnchanged(
      d.t,
      () => d.t.request('POST', `${APP}/notifiers`, { json: { name: 'x', provider: 'windows', environment: 'development' }, token: d.admin }),
      400,
      'illegal_argument',
    );
    expect(res.body.message).toBe('provider must be apple or google');
  });

  it.each([
    ['provider missing', { provider: undefined }, 'required_property_not_found', 'provider'],
    ['provider unknown', { provider: 'blackberry' }, 'illegal_argument', 'provider'],
    ['environment missing', { environment: undefined }, 'required_property_not_found', 'environment'],
    ['environment unknown', { environment: 'staging' }, 'illegal_argument', 'environment'],
    ['name missing', { name: undefined }, 'required_property_not_found', 'name'],
    ['key missing', { p8: undefined }, 'required_property_not_found', 'p8'],
    ['key malformed', { p8: '-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----' }, 'illegal_argument', 'p8'],
    ['keyId malformed', { keyId: 'short' }, 'illegal_argument', 'keyId'],
    ['teamId missing', { teamId: undefined }, 'required_property_not_found', 'teamId'],
    ['topic missing', { topic: undefined }, 'required_property_not_found', 'topic'],
  ])('apple: 400 naming the field when %s', async (_name, change, error, field) => {
    const res = await expectRefusedUnchanged(
      d.t,
      () => d.t.request('POST', `${APP}/notifiers`, { json: { ...apple(), ...change }, token: d.admin }),
      400,
      error,
    );
    expect(Object.keys(res.body.fields)).toEqual([field]);
  });

  it('apple: an RSA key is not a .p8 key', async () => {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const p8 = await exportPKCS8(privateKey);
    const res = await expectRefusedUnchanged(
      d.t,
      () => d.t.request('POST', `${APP}/notifiers`, { json: { ...apple(), p8 }, token: d.admin }),
      400,
      'illegal_argument',
    );
    expect(res.body.fields).toHaveProperty('p8');
  });

  it.each([
    ['missing', undefined, 'required_property_not_found', 'credentials'],
    ['not JSON', '{not json', 'illegal_argument', 'credentials'],
    ['not a service account', { type: 'authorized_user' }, 'illegal_argument', 'credentials.type'],
    ['without token_uri', { token_uri: undefined }, 'illegal_argument', 'credentials.token_uri'],
    ['with a bad private key', { private_key: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----' }, 'illegal_argument', 'credentials.private_key'],
  ])('google: 400 naming the field when the service account is %s', async (_name, change, error, field) => {
    const { account } = await serviceAccount('https://oauth2.googleapis.com/token');
    const credentials = change === undefined || typeof change === 'string' ? change : { ...account, ...change };
    const res = await expectRefusedUnchanged(
      d.t,
      () => d.t.request('POST', `${APP}/notifiers`, { json: { name: 'android', provider: 'google', environment: 'production', credentials }, token: d.admin }),
      400,
      error,
    );
    expect(Object.keys(res.body.fields)).toEqual([field]);
  });

  it('an update that breaks the notifier is refused and changes nothing', async () => {
    await must(d, 'POST', `${APP}/notifiers`, apple());
    // Turned into a google notifier, it lacks that provider's service account.
    for (const [change, error] of [
      [{ provider: 'google' }, 'required_property_not_found'],
      [{ environment: 'test' }, 'illegal_argument'],
      [{ p8: 'nope' }, 'illegal_argument'],
    ] as const) {
      await expectRefusedUnchanged(d.t, () => d.t.request('PUT', `${APP}/notifiers/ios`, { json: change, token: d.admin }), 400, error);
    }
  });
});
