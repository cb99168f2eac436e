/** The admin who signed in, as the management API describes them (docs/api.md#principals). */
import { entitiesOf, request } from './api';
import { findSignedInUser } from './auth';

export interface Admin {
  uuid: string;
  username: string;
  name?: string;
  /** Organization name → uuid: the organizations they administer. */
  organizations: Record<string, string>;
  sysadmin?: boolean;
}

export async function findAdmin(): Promise<Admin> {
  const { sub } = await findSignedInUser();
  const [admin] = entitiesOf(await request('get', '/management/users/{userId}', { params: { userId: sub } }));
  return admin as unknown as Admin;
}
