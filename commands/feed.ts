import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import type { Ctx } from './client/context.js';
import { listOptions, listTable, type ListFlags } from './client/data.js';
import { appPath } from './client/collection.js';
import { ownerOf, ownerOptions, type OwnerFlags } from './client/owner.js';

/** GET …/users/{userId}/feed or …/groups/{groupId}/feed, newest first. */
async function feed(ctx: Ctx, flags: OwnerFlags & ListFlags) {
  return listTable(ctx, appPath(ctx, ...ownerOf(flags), 'feed'), flags, ['published', 'verb', 'content', 'uuid'], 'the feed is empty');
}

export function register(noun: Command): void {
  examples(
    listOptions(ownerOptions(noun.description("read a user's or group's activity feed, newest first (--org, --app)"))).action(act(feed)),
    'idp feed --user fred --limit 20',
    'idp feed --group berlin --all --json',
  );
}
