/**
 * One Config for `idp serve`: every default written once, each with why. Flags beat environment
 * variables beat defaults; `resolveConfig` is pure so it is tested alone.
 */
import { isIP } from 'node:net';
import { AppError } from './errors.js';
import {
  BLOCKLISTS,
  CHARACTER_CLASSES,
  DEFAULT_PASSWORD_POLICY,
  MAX_PASSWORD_LENGTH,
  type Blocklist,
  type CharacterClass,
  type PasswordPolicy,
} from './password-policy.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface Config {
  host: string;
  port: number;
  /** SQLite file or ':memory:'. */
  db: string;
  databaseUrl?: string;
  /** PostgreSQL connections each instance keeps open. */
  databasePoolSize: number;
  /** Redis for the login throttle's counters (instead of the database), when given. */
  redisUrl?: string;
  /** The issuer exactly as published; resolved from host and the bound port when not given. */
  issuer?: string;
  fixtures?: string;
  signup: 'open' | 'closed';
  superuser?: { username: string; password: string };
  logLevel: LogLevel;
  smtpUrl?: string;
  /** Sender of outgoing mail; `no-reply@<issuer host>` when not given. */
  mailFrom?: string;
  /** Whether new organizations and admin users must follow an emailed link before use. */
  requireActivation: boolean;
  /** Whether /connect/authorize takes only pushed authorization requests (RFC 9126 5), from every client. */
  requirePushedAuthorizationRequests: boolean;
  /** Lifetimes of emailed links in seconds. */
  activationTtl: number;
  resetTtl: number;
  captcha: CaptchaConfig;
  apnsUrl?: string;
  fcmUrl?: string;
  /** How long the push worker holds a delivery it is sending; a killed worker's leases run out. */
  pushLeaseMs: number;
  /** Entities per transaction of the property index's backfill (docs/design.md#filling-the-index-of-an-older-database). */
  propertyIndexBatch: number;
  /** Entities per transaction of a bulk import (docs/api.md#bulk-import). */
  importBatch: number;
  /** Largest request body accepted, in bytes. */
  bodyLimit: number;
  /** Seconds a request body may take to arrive; a bulk import's, between two of its chunks (server/middleware/body-time.ts). */
  bodyTimeout: number;
  /** What a JSON body may hold: nested levels, keys in one object, characters in one key. */
  json: JsonLimits;
  /** Largest file attached to an entity, in bytes (docs/api.md#assets). */
  maxAssetSize: number;
  /** A folder for the bytes of assets instead of the database, when given. */
  assetsDir?: string;
  /** Token lifetimes in seconds (docs/api.md#tokens). */
  accessTokenTtl: number;
  idTokenTtl: number;
  codeTtl: number;
  /** How long a device code and its user code wait for the user (RFC 8628 3.2 `expires_in`). */
  deviceCodeTtl: number;
  refreshTokenTtl: number;
  /** Lifetime of a browser sign-in session in seconds, extended by each use (single sign-on). */
  sessionTtl: number;
  /** JWS algorithms of access tokens and ID tokens. */
  accessTokenAlg: SigningAlg;
  idTokenAlg: SigningAlg;
  /** Peers whose forwarding headers are believed (docs/api.md#proxies); none by default. */
  trustedProxies: readonly AddressRange[];
  /** A bearer token that may read /metrics besides a sysadmin's access token. */
  metricsToken?: string;
  /** A second port, on the same host, that serves /metrics without a token. */
  metricsPort?: number;
  /** One log line per request answered. */
  accessLog: boolean;
  /** Whether /console serves the admin console, and its client `idp-console` exists (docs/console.md). */
  console: boolean;
  /** What a new password must be (docs/api.md#passwords); an application may override it for its users. */
  passwordPolicy: PasswordPolicy;
}

/** A CIDR range: `network`/`prefix`, a bare address being its own range. */
export interface AddressRange {
  readonly network: string;
  readonly prefix: number;
  readonly family: 'ipv4' | 'ipv6';
}

export interface JsonLimits {
  readonly maxDepth: number;
  readonly maxKeys: number;
  readonly maxKeyLength: number;
}

export type CaptchaProvider = 'altcha' | 'recaptcha' | 'hcaptcha' | 'turnstile';
export const CAPTCHA_PROVIDERS: readonly CaptchaProvider[] = ['altcha', 'recaptcha', 'hcaptcha', 'turnstile'];

/** The captcha of the password-reset form: self-hosted proof of work, or a provider's check. */
export type CaptchaConfig =
  { provider: 'altcha'; maxNumber: number } | { provider: Exclude<CaptchaProvider, 'altcha'>; secret: string; siteKey?: string; verifyUrl: string };

// Each provider's documented server-side verification endpoint.
export const CAPTCHA_VERIFY_URLS: Record<Exclude<CaptchaProvider, 'altcha'>, string> = {
  recaptcha: 'https://www.google.com/recaptcha/api/siteverify',
  hcaptcha: 'https://api.hcaptcha.com/siteverify',
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
};

export type SigningAlg = 'ES256' | 'RS256' | 'PS256' | 'EdDSA';
export const SIGNING_ALGS: readonly SigningAlg[] = ['ES256', 'RS256', 'PS256', 'EdDSA'];

export const DEFAULTS = {
  // Loopback only: a fresh install must not be reachable from the network by accident.
  host: '127.0.0.1',
  // The port the README's quick start and the demo fixtures assume.
  port: 8080,
  // Next to where the user ran the command, as PocketBase keeps pb_data.
  db: './idp.db',
  // Local use starts with open signup so `npm start` needs no setup.
  signup: 'open',
  logLevel: 'info',
  // Twice the push request time-out, so an answer always lands before another worker may resend.
  pushLeaseMs: 30_000,
  // A few thousand entities: a transaction of tens of milliseconds, so writes wait little.
  propertyIndexBatch: 2000,
  // Several seconds of one transaction on SQLite, which other requests wait for: at a million
  // entities a batch of 20,000 still dirties most of the property index's pages, one of 100,000
  // spreads that over five times the entities (docs/benchmarks.md#the-bulk-import).
  importBatch: 100_000,
  // Per instance; PostgreSQL's default max_connections (100) leaves room for several instances.
  databasePoolSize: 10,
  // 1 MiB: entity documents are small; larger bodies are refused with 413 before parsing.
  bodyLimit: 1024 * 1024,
  // Node's own limit for a whole request, which it replaces (server/middleware/body-time.ts).
  bodyTimeout: 300,
  // 32 levels, as the query language caps its own nesting; far below the 1,000 levels SQLite's
  // JSON functions read. A thousand keys in one object and 256 characters in one key leave room
  // for any entity and keep a single object from costing more than the documents around it.
  json: { maxDepth: 32, maxKeys: 1000, maxKeyLength: 256 },
  // 50 MiB: photos, documents and short recordings, as Usergrid's hosted service allowed; larger
  // media belongs in an object store.
  maxAssetSize: 50 * 1024 * 1024,
  // An hour, as IdentityServer and Keycloak issue by default.
  accessTokenTtl: 3600,
  // ID tokens are read once at sign-in; five minutes covers clock skew.
  idTokenTtl: 300,
  // RFC 6749 4.1.2 recommends at most ten minutes; one is enough for a redirect.
  codeTtl: 60,
  // Ten minutes to walk to a computer, find the page and sign in (Keycloak's and Okta's default).
  deviceCodeTtl: 600,
  // Thirty days, sliding: each rotation starts a new period.
  refreshTokenTtl: 30 * 24 * 3600,
  // Off: a local `idp serve` works without a mail server; production turns it on.
  requireActivation: false,
  // Off: clients choose PAR (RFC 9126), or their metadata requires it; FAPI 2.0 deployments turn it on.
  requirePushedAuthorizationRequests: false,
  // A day: long enough to find the mail the next morning, short enough that an old inbox is not a key.
  activationTtl: 24 * 3600,
  // An hour, as OWASP's Forgot Password Cheat Sheet advises for reset links.
  resetTtl: 3600,
  // Self-hosted proof of work needs no third party and works offline; its search space (ALTCHA's
  // maxnumber) costs a browser about a tenth of a second and a bot sending in bulk real CPU.
  captcha: { provider: 'altcha', maxNumber: 100_000 },
  // Two weeks, sliding, as Keycloak's and IdentityServer's remember-me sessions: a user who comes
  // back within that time is signed in silently.
  sessionTtl: 14 * 24 * 3600,
  // RFC 9068 tokens are read by our own API; ES256 is small and fast to verify.
  accessTokenAlg: 'ES256',
  // OIDC Core 15.1: RS256 is the one algorithm every relying party must support.
  idTokenAlg: 'RS256',
  // None: until a proxy is named, a forwarding header is whatever the client chose to write.
  trustedProxies: [],
  // Off: every request is already counted in /metrics; a line each is for debugging a client.
  accessLog: false,
  // On: the admin console is how most people who run idp see their data.
  console: true,
  // NIST SP 800-63B; password-policy.ts gives the reason for each rule.
  passwordPolicy: DEFAULT_PASSWORD_POLICY,
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
  databasePoolSize?: string;
  redisUrl?: string;
  issuer?: string;
  fixtures?: string;
  signup?: string;
  superuser?: string;
  logLevel?: string;
  smtpUrl?: string;
  mailFrom?: string;
  requireActivation?: boolean;
  requirePar?: boolean;
  activationTtl?: string;
  resetTtl?: string;
  captchaProvider?: string;
  captchaSecret?: string;
  captchaSiteKey?: string;
  captchaVerifyUrl?: string;
  accessTokenTtl?: string;
  idTokenTtl?: string;
  codeTtl?: string;
  deviceCodeTtl?: string;
  refreshTokenTtl?: string;
  sessionTtl?: string;
  maxJsonDepth?: string;
  maxAssetSize?: string;
  assetsDir?: string;
  accessTokenAlg?: string;
  idTokenAlg?: string;
  trustedProxy?: string;
  metricsToken?: string;
  metricsPort?: string;
  accessLog?: boolean;
  /** commander's `--no-console` gives false; otherwise absent. */
  console?: boolean;
  passwordMinLength?: string;
  passwordRequire?: string;
  passwordBlocklist?: string;
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
  const redisUrl = pick(flags.redisUrl, 'IDP_REDIS_URL');
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) throw new ConfigError(`--redis-url must be a redis:// URL`);
  const superuser = pick(flags.superuser, 'IDP_SUPERUSER');
  return {
    host,
    port,
    db: pick(flags.db, 'IDP_DB') ?? DEFAULTS.db,
    databaseUrl,
    databasePoolSize: parseSeconds(pick(flags.databasePoolSize, 'IDP_DATABASE_POOL_SIZE'), DEFAULTS.databasePoolSize, '--database-pool-size', 'connections'),
    redisUrl,
    issuer: issuer?.replace(/\/+$/, ''),
    fixtures: pick(flags.fixtures, 'IDP_FIXTURES'),
    signup,
    superuser: superuser === undefined ? undefined : parseSuperuser(superuser),
    logLevel: logLevel as LogLevel,
    smtpUrl: pick(flags.smtpUrl, 'IDP_SMTP_URL'),
    mailFrom: pick(flags.mailFrom, 'IDP_MAIL_FROM'),
    requireActivation:
      flags.requireActivation ?? parseBoolean(emptyToUndefined(env.IDP_REQUIRE_ACTIVATION), DEFAULTS.requireActivation, 'IDP_REQUIRE_ACTIVATION'),
    requirePushedAuthorizationRequests:
      flags.requirePar ?? parseBoolean(emptyToUndefined(env.IDP_REQUIRE_PAR), DEFAULTS.requirePushedAuthorizationRequests, 'IDP_REQUIRE_PAR'),
    activationTtl: parseSeconds(pick(flags.activationTtl, 'IDP_ACTIVATION_TTL'), DEFAULTS.activationTtl, '--activation-ttl'),
    resetTtl: parseSeconds(pick(flags.resetTtl, 'IDP_RESET_TTL'), DEFAULTS.resetTtl, '--reset-ttl'),
    captcha: parseCaptcha({
      provider: pick(flags.captchaProvider, 'IDP_CAPTCHA_PROVIDER'),
      secret: pick(flags.captchaSecret, 'IDP_CAPTCHA_SECRET'),
      siteKey: pick(flags.captchaSiteKey, 'IDP_CAPTCHA_SITE_KEY'),
      verifyUrl: pick(flags.captchaVerifyUrl, 'IDP_CAPTCHA_VERIFY_URL'),
    }),
    apnsUrl: emptyToUndefined(env.IDP_APNS_URL),
    fcmUrl: emptyToUndefined(env.IDP_FCM_URL),
    pushLeaseMs: parseSeconds(emptyToUndefined(env.IDP_PUSH_LEASE_MS), DEFAULTS.pushLeaseMs, 'IDP_PUSH_LEASE_MS', 'milliseconds'),
    propertyIndexBatch: parseSeconds(emptyToUndefined(env.IDP_PROPERTY_INDEX_BATCH), DEFAULTS.propertyIndexBatch, 'IDP_PROPERTY_INDEX_BATCH', 'entities'),
    importBatch: parseSeconds(emptyToUndefined(env.IDP_IMPORT_BATCH), DEFAULTS.importBatch, 'IDP_IMPORT_BATCH', 'entities'),
    bodyLimit: DEFAULTS.bodyLimit,
    bodyTimeout: parseSeconds(emptyToUndefined(env.IDP_BODY_TIMEOUT), DEFAULTS.bodyTimeout, 'IDP_BODY_TIMEOUT'),
    json: { ...DEFAULTS.json, maxDepth: parseJsonDepth(pick(flags.maxJsonDepth, 'IDP_MAX_JSON_DEPTH')) },
    maxAssetSize: parseSize(pick(flags.maxAssetSize, 'IDP_MAX_ASSET_SIZE'), DEFAULTS.maxAssetSize, '--max-asset-size'),
    assetsDir: pick(flags.assetsDir, 'IDP_ASSETS_DIR'),
    accessTokenTtl: parseSeconds(pick(flags.accessTokenTtl, 'IDP_ACCESS_TOKEN_TTL'), DEFAULTS.accessTokenTtl, '--access-token-ttl'),
    idTokenTtl: parseSeconds(pick(flags.idTokenTtl, 'IDP_ID_TOKEN_TTL'), DEFAULTS.idTokenTtl, '--id-token-ttl'),
    codeTtl: parseSeconds(pick(flags.codeTtl, 'IDP_CODE_TTL'), DEFAULTS.codeTtl, '--code-ttl'),
    deviceCodeTtl: parseSeconds(pick(flags.deviceCodeTtl, 'IDP_DEVICE_CODE_TTL'), DEFAULTS.deviceCodeTtl, '--device-code-ttl'),
    refreshTokenTtl: parseSeconds(pick(flags.refreshTokenTtl, 'IDP_REFRESH_TOKEN_TTL'), DEFAULTS.refreshTokenTtl, '--refresh-token-ttl'),
    sessionTtl: parseSeconds(pick(flags.sessionTtl, 'IDP_SESSION_TTL'), DEFAULTS.sessionTtl, '--session-ttl'),
    accessTokenAlg: parseAlg(pick(flags.accessTokenAlg, 'IDP_ACCESS_TOKEN_ALG'), DEFAULTS.accessTokenAlg, '--access-token-alg'),
    idTokenAlg: parseAlg(pick(flags.idTokenAlg, 'IDP_ID_TOKEN_ALG'), DEFAULTS.idTokenAlg, '--id-token-alg'),
    trustedProxies: parseRanges(pick(flags.trustedProxy, 'IDP_TRUSTED_PROXY')),
    ...parseMetrics(pick(flags.metricsToken, 'IDP_METRICS_TOKEN'), pick(flags.metricsPort, 'IDP_METRICS_PORT'), port),
    accessLog: flags.accessLog ?? parseBoolean(emptyToUndefined(env.IDP_ACCESS_LOG), DEFAULTS.accessLog, 'IDP_ACCESS_LOG'),
    // commander sets `console: true` when --no-console is absent: only false is the flag speaking.
    console: flags.console === false ? false : parseBoolean(emptyToUndefined(env.IDP_CONSOLE), DEFAULTS.console, 'IDP_CONSOLE'),
    passwordPolicy: parsePasswordPolicy(
      pick(flags.passwordMinLength, 'IDP_PASSWORD_MIN_LENGTH'),
      pick(flags.passwordRequire, 'IDP_PASSWORD_REQUIRE'),
      pick(flags.passwordBlocklist, 'IDP_PASSWORD_BLOCKLIST'),
    ),
  };
}

function parsePasswordPolicy(minLength: string | undefined, require: string | undefined, blocklist: string | undefined): PasswordPolicy {
  const fallback = DEFAULTS.passwordPolicy;
  const length = parseSeconds(minLength, fallback.minLength, '--password-min-length', 'characters');
  if (length > MAX_PASSWORD_LENGTH) throw new ConfigError(`--password-min-length must be at most ${MAX_PASSWORD_LENGTH}, not '${minLength}'`);
  const classes = require === undefined || require === 'none' ? fallback.require : require.split(',').map((name) => name.trim());
  const unknown = classes.find((name) => !CHARACTER_CLASSES.includes(name as CharacterClass));
  if (unknown !== undefined)
    throw new ConfigError(`--password-require must be a comma-separated list of ${CHARACTER_CLASSES.join(', ')} (or none), not '${unknown}'`);
  const list = blocklist ?? fallback.blocklist;
  if (!BLOCKLISTS.includes(list as Blocklist)) throw new ConfigError(`--password-blocklist must be one of ${BLOCKLISTS.join(', ')}, not '${list}'`);
  return { minLength: length, require: [...new Set(classes as CharacterClass[])], blocklist: list as Blocklist };
}

function emptyToUndefined(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function parsePort(text: string, flag = '--port'): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new ConfigError(`${flag} must be a number from 0 to 65535, not '${text}'`);
  return port;
}

// A token short enough to guess would open /metrics to anyone who can reach the port.
const MIN_METRICS_TOKEN_LENGTH = 16;

function parseMetrics(token: string | undefined, portText: string | undefined, port: number): { metricsToken?: string; metricsPort?: number } {
  // A bearer token is one run of visible characters (RFC 6750 2.1).
  if (token !== undefined && (token.length < MIN_METRICS_TOKEN_LENGTH || /\s/.test(token))) {
    throw new ConfigError(`--metrics-token must be at least ${MIN_METRICS_TOKEN_LENGTH} characters, without spaces`);
  }
  if (portText === undefined) return { metricsToken: token, metricsPort: undefined };
  const metricsPort = parsePort(portText, '--metrics-port');
  if (metricsPort !== 0 && metricsPort === port) throw new ConfigError(`--metrics-port must differ from --port (${port})`);
  return { metricsToken: token, metricsPort };
}

function parseSeconds(text: string | undefined, fallback: number, flag: string, unit = 'seconds'): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new ConfigError(`${flag} must be a whole number of ${unit}, not '${text}'`);
  return Number(text);
}

// A document deeper than SQLite's JSON functions read (1,000 levels) would break every query over
// its collection; the stored document wraps a body in a few levels of its own, hence the margin.
const MAX_JSON_DEPTH = 512;

function parseJsonDepth(text: string | undefined): number {
  const depth = parseSeconds(text, DEFAULTS.json.maxDepth, '--max-json-depth', 'levels');
  if (depth > MAX_JSON_DEPTH) throw new ConfigError(`--max-json-depth must be at most ${MAX_JSON_DEPTH}, not '${text}'`);
  return depth;
}

const SIZE_UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** A size in bytes, or in KiB, MiB or GiB with a suffix `k`, `m` or `g` (`50m`). */
function parseSize(text: string | undefined, fallback: number, flag: string): number {
  if (text === undefined) return fallback;
  const match = /^(\d+)\s*([kmg]?)i?b?$/i.exec(text.trim());
  const size = match === null ? 0 : Number(match[1]) * SIZE_UNITS[match[2].toLowerCase()];
  if (!Number.isSafeInteger(size) || size < 1)
    throw new ConfigError(`${flag} must be a number of bytes, or of KiB, MiB or GiB with k, m or g (50m), not '${text}'`);
  return size;
}

function parseAlg(text: string | undefined, fallback: SigningAlg, flag: string): SigningAlg {
  if (text === undefined) return fallback;
  if (!SIGNING_ALGS.includes(text as SigningAlg)) throw new ConfigError(`${flag} must be one of ${SIGNING_ALGS.join(', ')}, not '${text}'`);
  return text as SigningAlg;
}

function parseBoolean(text: string | undefined, fallback: boolean, name: string): boolean {
  if (text === undefined) return fallback;
  if (/^(true|1|yes|on)$/i.test(text)) return true;
  if (/^(false|0|no|off)$/i.test(text)) return false;
  throw new ConfigError(`${name} must be true or false, not '${text}'`);
}

function parseCaptcha(given: { provider?: string; secret?: string; siteKey?: string; verifyUrl?: string }): CaptchaConfig {
  const provider = given.provider ?? DEFAULTS.captcha.provider;
  if (!CAPTCHA_PROVIDERS.includes(provider as CaptchaProvider)) {
    throw new ConfigError(`--captcha-provider must be one of ${CAPTCHA_PROVIDERS.join(', ')}, not '${provider}'`);
  }
  if (provider === 'altcha') {
    if (given.secret !== undefined) throw new ConfigError('--captcha-secret needs --captcha-provider recaptcha, hcaptcha or turnstile');
    return { ...DEFAULTS.captcha };
  }
  if (given.secret === undefined) throw new ConfigError(`--captcha-provider ${provider} needs --captcha-secret`);
  const verifyUrl = given.verifyUrl ?? CAPTCHA_VERIFY_URLS[provider as Exclude<CaptchaProvider, 'altcha'>];
  if (!/^https?:\/\//.test(verifyUrl)) throw new ConfigError(`--captcha-verify-url must be an http(s) URL, not '${verifyUrl}'`);
  return { provider: provider as Exclude<CaptchaProvider, 'altcha'>, secret: given.secret, siteKey: given.siteKey, verifyUrl };
}

/** The issuer as published: --issuer, or the address the server listens on. */
export function issuerUrl(config: Pick<Config, 'issuer' | 'host' | 'port'>): string {
  return config.issuer ?? `http://${config.host}:${config.port}`;
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

/** `--trusted-proxy 10.0.0.0/8,192.168.1.7,fd00::/8`: IPv4 or IPv6 addresses, each with an optional prefix length. */
function parseRanges(text: string | undefined): AddressRange[] {
  if (text === undefined) return [...DEFAULTS.trustedProxies];
  return text.split(',').map((item) => {
    const entry = item.trim();
    const [network, prefixText, extra] = entry.split('/');
    const version = isIP(network ?? '');
    const family = version === 6 ? 'ipv6' : 'ipv4';
    const bits = version === 6 ? 128 : 32;
    const prefix = prefixText === undefined ? bits : Number(prefixText);
    if (version === 0 || extra !== undefined || (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) || prefix > bits) {
      throw new ConfigError(`--trusted-proxy must be a comma-separated list of addresses or CIDR ranges (10.0.0.0/8, ::1), not '${entry}'`);
    }
    return { network, prefix, family };
  });
}

function parseSuperuser(text: string): { username: string; password: string } {
  const colon = text.indexOf(':');
  if (colon <= 0 || colon === text.length - 1) throw new ConfigError('--superuser must be USER:PASSWORD');
  return { username: text.slice(0, colon), password: text.slice(colon + 1) };
}
