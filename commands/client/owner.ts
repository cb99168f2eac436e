/**
 * Activities and feeds belong to a user or a group (…/users/{userId}/activities|feed and
 * …/groups/{groupId}/activities|feed): exactly one of --user and --group says which.
 */
import type { Command } from 'commander';
import { UsageError } from './errors.js';
import { idSegments } from './collection.js';

export interface OwnerFlags {
  user?: string;
  group?: string;
}

export function ownerOptions(command: Command): Command {
  return command.option('--user <user>', 'the user: username or uuid').option('--group <group>', 'the group: path (e.g. offices/berlin) or uuid');
}

/** The path segments of the owner: its collection, then its id (a nested group path one segment per level). */
export function ownerOf(flags: OwnerFlags): string[] {
  if ((flags.user === undefined) === (flags.group === undefined)) throw new UsageError('pass exactly one of --user and --group');
  return flags.user !== undefined ? ['users', flags.user] : ['groups', ...idSegments('groups', flags.group!)];
}
