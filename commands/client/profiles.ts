/**
 * Saved profiles: `$XDG_CONFIG_HOME/idp/profiles.json` (default
 * `~/.config/idp/`), one entry per profile name, holding the server URL, default organization and
 * application, and the tokens of `idp login`. The file holds bearer tokens, so it is written with
 * mode 0600 inside a 0700 directory, atomically (write, then rename) so a crash never leaves half
 * a file.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from './errors.js';

export interface Profile {
  url?: string;
  org?: string;
  app?: string;
  username?: string;
  access_token?: string;
  refresh_token?: string;
  /** Milliseconds since the epoch. */
  expires_at?: number;
}

type ProfilesFile = Record<string, Profile>;

const FIELDS: Record<keyof Profile, 'string' | 'number'> = {
  url: 'string',
  org: 'string',
  app: 'string',
  username: 'string',
  access_token: 'string',
  refresh_token: 'string',
  expires_at: 'number',
};

/**
 * Checked by hand rather than with zod: every command reads this file, and loading zod would
 * add a sixth of a second to each of them.
 */
function checkProfiles(value: unknown, path: string): ProfilesFile {
  const isObject = (item: unknown): item is Record<string, unknown> => item !== null && typeof item === 'object' && !Array.isArray(item);
  if (!isObject(value)) throw new UsageError(`${path} must hold a JSON object of profiles; fix or delete it`);
  for (const [name, profile] of Object.entries(value)) {
    if (!isObject(profile)) throw new UsageError(`${path}: profile '${name}' must be an object`);
    for (const [key, field] of Object.entries(profile)) {
      const expected = FIELDS[key as keyof Profile];
      if (expected === undefined) throw new UsageError(`${path}: profile '${name}' has an unknown setting '${key}'`);
      if (typeof field !== expected) throw new UsageError(`${path}: ${name}.${key} must be a ${expected}`);
    }
  }
  return value as ProfilesFile;
}

/** The settings `idp config get|set` may touch; tokens are written only by login and logout. */
export const SETTINGS = ['url', 'org', 'app'] as const;
export type Setting = (typeof SETTINGS)[number];

export const DEFAULT_PROFILE = 'default';

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'idp');
}

export function profilesPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'profiles.json');
}

async function readAll(path: string): Promise<ProfilesFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(`${path} is not valid JSON; fix or delete it`);
  }
  return checkProfiles(json, path);
}

export async function loadProfile(name: string, env: NodeJS.ProcessEnv = process.env): Promise<Profile> {
  return (await readAll(profilesPath(env)))[name] ?? {};
}

export async function listProfiles(env: NodeJS.ProcessEnv = process.env): Promise<ProfilesFile> {
  return readAll(profilesPath(env));
}

/** Applies `change` to one profile and writes the file back; returns the new profile. */
export async function updateProfile(name: string, change: (profile: Profile) => Profile, env: NodeJS.ProcessEnv = process.env): Promise<Profile> {
  const path = profilesPath(env);
  const all = await readAll(path);
  const next = dropUndefined(change(all[name] ?? {}));
  all[name] = next;
  await mkdir(configDir(env), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  // writeFile's mode only applies to new files; a leftover temporary keeps whatever it had.
  await chmod(temporary, 0o600);
  await rename(temporary, path);
  return next;
}

function dropUndefined(profile: Profile): Profile {
  return Object.fromEntries(Object.entries(profile).filter(([, value]) => value !== undefined)) as Profile;
}
