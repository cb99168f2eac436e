/** The path parameters of the management API, documented once for every route that has them. */
import { z } from '@hono/zod-openapi';

export const OrgParams = z.object({ orgId: z.string().openapi({ description: 'organization name or uuid' }) });
export const AppParams = OrgParams.extend({ appId: z.string().openapi({ description: 'application name or uuid' }) });
export const UserParams = z.object({ userId: z.string().openapi({ description: 'username, real name, email or uuid' }) });
export const OrgUserParams = OrgParams.extend({ userId: z.string().openapi({ description: 'username, email or uuid' }) });
export const FeedQuery = z.object({ limit: z.coerce.number().int().min(1).max(1000).default(10).openapi({ description: 'at most 1000' }) });
