import type { Command } from 'commander';
import { actLocal, examples } from './client/run.js';
import type { GlobalFlags } from './client/context.js';
import { parseBaseUrl } from './client/http.js';
import { DEFAULT_PROFILE, listProfiles, loadProfile, profilesPath, SETTINGS, updateProfile, type Profile, type Setting } from './client/profiles.js';
import { messageOf } from './client/output.js';
import { UsageError } from './client/errors.js';

function settingOf(key: string): Setting {
  if (!(SETTINGS as readonly string[]).includes(key)) throw new UsageError(`unknown setting '${key}': use one of ${SETTINGS.join(', ')}`);
  return key as Setting;
}

const profileName = (flags: GlobalFlags) => flags.profile ?? DEFAULT_PROFILE;

/** What a profile shows: its settings and whether it holds a session — never the tokens. */
function publicView(profile: Profile) {
  return {
    url: profile.url,
    org: profile.org,
    app: profile.app,
    username: profile.username,
    logged_in: profile.access_token !== undefined,
    ...(profile.expires_at !== undefined && { expires_at: profile.expires_at }),
  };
}

async function get(flags: GlobalFlags, key: string) {
  const setting = settingOf(key);
  const value = (await loadProfile(profileName(flags)))[setting];
  return messageOf({ [setting]: value ?? null }, value ?? '', value);
}

async function set(flags: GlobalFlags, key: string, value: string) {
  const setting = settingOf(key);
  const stored = setting === 'url' ? parseBaseUrl(value) : value;
  const profile = await updateProfile(profileName(flags), (current) => ({ ...current, [setting]: stored }));
  return messageOf(publicView(profile), `${setting} = ${stored} (profile ${profileName(flags)}, ${profilesPath()})`);
}

async function unset(flags: GlobalFlags, key: string) {
  const setting = settingOf(key);
  const profile = await updateProfile(profileName(flags), (current) => ({ ...current, [setting]: undefined }));
  return messageOf(publicView(profile), `${setting} unset (profile ${profileName(flags)})`);
}

async function list(flags: GlobalFlags) {
  const profiles = Object.entries(await listProfiles());
  const json = Object.fromEntries(profiles.map(([name, profile]) => [name, publicView(profile)]));
  const rows = profiles.map(([name, profile]) => ({ profile: name === profileName(flags) ? `${name} *` : name, ...publicView(profile) }));
  return {
    json,
    view: {
      kind: 'table' as const,
      columns: ['profile', 'url', 'org', 'app', 'username', 'logged_in'].map((key) => ({ key })),
      rows,
      empty: `no profiles yet (${profilesPath()})`,
    },
    quiet: profiles.map(([name]) => name).join('\n') || undefined,
  };
}

export function register(noun: Command): void {
  const config = examples(
    noun.description(`profile settings (${SETTINGS.join(', ')}) under $XDG_CONFIG_HOME/idp/`),
    'idp config set url https://idp.example.com --profile prod',
  );
  examples(
    config.command('get').description('print one setting of the profile').argument('<key>', SETTINGS.join(' | ')).action(actLocal(get)),
    'idp config get org',
  );
  examples(
    config
      .command('set')
      .description('change one setting of the profile')
      .argument('<key>', SETTINGS.join(' | '))
      .argument('<value>', 'the new value')
      .action(actLocal(set)),
    'idp config set org demo',
  );
  examples(
    config.command('unset').description('remove one setting from the profile').argument('<key>', SETTINGS.join(' | ')).action(actLocal(unset)),
    'idp config unset app',
  );
  examples(
    config.command('list').description('list the profiles and their settings (* marks the one in use)').action(actLocal(list)),
    'idp config list --json',
  );
}
