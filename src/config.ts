/**
 * One Config for `idp serve`: every default written once, each with why. Flags beat environment
 * variables beat defaults (CONTRACT.md section 1); `resolveConfig` is pure so it is tested alone.
 */
import { AppError } from './errors.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface Config {
  host: string;
  port: number;
  /** SQLite file or ':memory:'. */
  db: string;
  databaseUrl?: string;
  /** The issuer exactly as published; resolved from host and the bound port when not given. */
  issuer?: string;
  fixtures?: string;
  signup: 'open' | 'closed';
  superuser?: { username: string; password: string };
  logLevel: LogLevel;
  smtpUrl?: string;
  apnsUrl?: string;
  fcmUrl?: string;
  /** Largest request body accepted, in bytes. */
  bodyLimit: number;
}

export const DEFAULTS = {
  // Loopback only: a fresh install must not be reachable from the network by accident.
  host: '127.0.0.1',
  // The port the README's quick start and the demo fixtures assume.
  port: 8080,
  // Next to where the user ran the command, as PocketBase keeps pb_data.
  db: './idp.db',
  // Local use starts with open signup so `npm start` needs no setup (CONTRACT.md section 1).
  signup: 'open',
  logLevel: 'info',
  // 1 MiB: entity documents are small; larger bodies are refused with 413 before parsing.
  bodyLimit: 1024 * 1024,
} as const satisfies Partial<Config>;

/** A flag or variable that cannot be used: `idp serve` prints one line and exits with code 2. */
export class ConfigError extends AppError {
  constructor(message: string) {
    super(2, 'usage', message);
    this.name = 'ConfigError';
  }
}

export interface ServeFlags {
  host?: string;
  port?: string;
  db?: string;
  databaseUrl?: string;
  issuer?: string;
  fixtures?: string;
  signup?: string;
  superuser?: string;
  logLevel?: string;
  smtpUrl?: string;
}

export function resolveConfig(flags: ServeFlags, env: NodeJS.ProcessEnv): Config {
  const pick = (flag: string | undefined, name: string) => flag ?? emptyToUndefined(env[name]);
  const host = pick(flags.host, 'IDP_HOST') ?? DEFAULTS.host;
  const port = parsePort(pick(flags.port, 'IDP_PORT') ?? String(DEFAULTS.port));
  const signup = pick(flags.signup, 'IDP_SIGNUP') ?? DEFAULTS.signup;
  if (signup !== 'open' && signup !== 'closed') throw new ConfigError(`--signup must be 'open' or 'closed', not '${signup}'`);
  const logLevel = pick(flags.logLevel, 'IDP_LOG_LEVEL') ?? DEFAULTS.logLevel;
  if (!LOG_LEVELS.includes(logLevel as LogLevel)) {
    throw new ConfigError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, not '${logLevel}'`);
  }
  const issuer = pick(flags.issuer, 'IDP_ISSUER');
  if (issuer !== undefined) checkIssuer(issuer);
  const databaseUrl = pick(flags.databaseUrl, 'IDP_DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(`--database-url must be a postgres:// URL`);
  }
  const superuser = pick(flags.superuser, 'IDP_SUPERUSER');
  return {
    host,
    port,
    db: pick(flags.db, 'IDP_DB') ?? DEFAULTS.db,
    databaseUrl,
    issuer: issuer?.replace(/\/+$/, ''),
    fixtures: pick(flags.fixtures, 'IDP_FIXTURES'),
    signup,
    superuser: superuser === undefined ? undefined : parseSuperuser(superuser),
    logLevel: logLevel as LogLevel,
    smtpUrl: pick(flags.smtpUrl, 'IDP_SMTP_URL'),
    apnsUrl: emptyToUndefined(env.IDP_APNS_URL),
    fcmUrl: emptyToUndefined(env.IDP_FCM_URL),
    bodyLimit: DEFAULTS.bodyLimit,
  };
}

function emptyToUndefined(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new ConfigError(`--port must be a number from 0 to 65535, not '${text}'`);
  return port;
}

function checkIssuer(issuer: string): void {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new ConfigError(`--issuer must be an absolute http(s) URL, not '${issuer}'`);
  }
  // OIDC Discovery 3: the issuer is an https (or, for local use, http) URL without query or fragment.
  if (!/^https?:$/.test(url.protocol) || url.search || url.hash) {
    throw new ConfigError(`--issuer must be an http(s) URL without query or fragment, not '${issuer}'`);
  }
}

function parseSuperuser(text: string): { username: string; password: string } {
  const colon = text.indexOf(':');
  if (colon <= 0 || colon === text.length - 1) throw new ConfigError('--superuser must be USER:PASSWORD');
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}
