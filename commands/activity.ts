import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import { needText } from './client/prompt.js';
import type { Ctx } from './client/context.js';
import { dataOptions, parseProperties } from './client/data.js';
import { recordOf } from './client/output.js';
import { appPath } from './client/collection.js';
import { ownerOf, ownerOptions, type OwnerFlags } from './client/owner.js';

interface PostFlags extends OwnerFlags {
  verb: string;
  content?: string;
  title?: string;
  data?: string;
}

/**
 * POST …/users/{userId}/activities or …/groups/{groupId}/activities (CreateActivity): the
 * activity lands in the owner's feed and, for a group, in every member's.
 */
async function post(ctx: Ctx, properties: string[], flags: PostFlags) {
  const json = {
    ...parseProperties(properties, flags.data),
    verb: flags.verb,
    content: await needText(flags.content, 'content', 'pass --content'),
    ...(flags.title !== undefined && { title: flags.title }),
  };
  return recordOf(await ctx.call({ method: 'POST', path: appPath(ctx, ...ownerOf(flags), 'activities'), json }), [
    'uuid',
    'verb',
    'content',
    'actor',
    'published',
  ]);
}

export function register(noun: Command): void {
  const activity = examples(noun.description('activities of users and groups (--org, --app)'), 'idp activity post --user fred --content "Hello"');
  examples(
    ownerOptions(dataOptions(activity.command('post').description("post an activity to a user's or group's feed")))
      .option('--verb <verb>', 'what happened', 'post')
      .option('--content <text>', 'the text of the activity (asked on a terminal)')
      .option('--title <title>', 'a title')
      .action(act(post)),
    'idp activity post --group berlin --verb checkin --content "At the office" \'actor={"username":"fred"}\'',
  );
}
