/** An organization `acme` with application `sandbox`, its admin's token, and app-user sign-in. */
import { createTestApp, signUp, type TestApp } from '../helpers.js';

export const APP = '/acme/sandbox';

export interface DataTest {
  t: TestApp;
  /** The org admin's token: full control of the application. */
  admin: string;
}

export async function createDataTest(config: Parameters<typeof createTestApp>[0] = {}, options: Parameters<typeof createTestApp>[1] = {}): Promise<DataTest> {
  const t = await createTestApp(config, options);
  const admin = await signUp(t);
  const app = await t.request('POST', '/management/orgs/acme/apps', { json: { name: 'sandbox' }, token: admin });
  if (app.status !== 200) throw new Error(`creating the app failed: ${app.text}`);
  return { t, admin };
}

/** Creates an app user with a password (as the admin) and returns their access token. */
export async function appUser(d: DataTest, username: string, extra: Record<string, unknown> = {}): Promise<{ token: string; uuid: string }> {
  const created = await d.t.request('POST', `${APP}/users`, { json: { username, password: 'sesame-street', ...extra }, token: d.admin });
  if (created.status !== 200) throw new Error(`creating ${username} failed: ${created.text}`);
  const res = await d.t.request('POST', `${APP}/token`, { json: { grant_type: 'password', username, password: 'sesame-street' } });
  if (res.status !== 200) throw new Error(`${username} sign-in failed: ${res.text}`);
  return { token: res.body.access_token, uuid: created.body.entities[0].uuid };
}
