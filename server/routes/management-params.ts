/** The path parameters of the management API, documented once for every route that has them. */
import { z } from '@hono/zod-openapi';

export const OrgParams = z.object({ orgId: z.string().openapi({ description: 'organization name or uuid' }) });
export const AppParams = OrgParams.extend({ appId: z.string().openapi({ description: 'application name or uuid' }) });
export const UserParams = z.object({ userId: z.string().openapi({ description: 'username, real name, email or uuid' }) });
export const OrgUserParams = OrgParams.extend({ userId: z.string().openapi({ description: 'username, email or uuid' }) });
export const FeedQuery = z.object({ limit: z.coerce.number().int().min(1).max(1000).default(10).openapi({ description: 'at most 1000' }) });

/** An organization's feed (docs/api.md#activities-feeds-and-events): a page after `cursor`, narrowed by what was done, by whom and since when. */
export const OrgFeedQuery = FeedQuery.extend({
  cursor: z.string().optional().openapi({ description: "the previous page's cursor" }),
  verb: z.string().optional().openapi({ description: 'what was done: create, add, remove, update, regenerate, delete' }),
  category: z.enum(['organization', 'application', 'admin', 'credentials'], { error: 'must be organization, application, admin or credentials' }).optional(),
  actor: z.string().optional().openapi({ description: "who did it: an admin user's username, email or uuid" }),
  since: z.coerce
    .number({ error: 'must be a time in ms since the epoch' })
    .int()
    .min(0)
    .optional()
    .openapi({ description: 'from this time on, in ms since the epoch' }),
});
