/**
 * Activities and feeds belong to a user or a group (…/users/{userId}/activities|feed and
 * …/groups/{groupId}/activities|feed): exactly one of --user and --group says which.
 */
import type { Command } from 'commander';
import { UsageError } from './errors.js';

export interface OwnerFlags {
  user?: string;
  group?: string;
}

export function ownerOptions(command: Command): Command {
  return command.option('--user <user>', 'the user: username or uuid').option('--group <group>', 'the group: path or uuid');
}

/** [collection, id] of the owner. */
export function ownerOf(flags: OwnerFlags): [string, string] {
  if ((flags.user === undefined) === (flags.group === undefined)) throw new UsageError('pass exactly one of --user and --group');
  return flags.user !== undefined ? ['users', flags.user] : ['groups', flags.group!];
}
