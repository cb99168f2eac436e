import type { Command } from 'commander';
import { DEFAULTS, resolveConfig, SIGNING_ALGS, type ServeFlags } from '../src/config.js';
import { CHARACTER_CLASSES } from '../src/password-policy.js';
import { codeCacheStatus } from '../src/runtime/code-cache.js';

export function register(noun: Command): void {
  noun
    .description('run the identity provider and application backend')
    .option('--host <host>', 'interface to listen on [IDP_HOST] (default 127.0.0.1)')
    .option('--port <port>', 'port to listen on, 0 = any free port [IDP_PORT] (default 8080)')
    .option('--db <path>', 'SQLite database file or :memory: [IDP_DB] (default ./idp.db)')
    .option('--database-url <url>', 'postgres:// URL instead of SQLite; `?options=-c search_path=NAME` picks a schema [IDP_DATABASE_URL]')
    .option('--database-pool-size <n>', 'PostgreSQL connections per instance [IDP_DATABASE_POOL_SIZE] (default 10)')
    .option('--redis-url <url>', 'redis:// URL: keep the login throttle counters in Redis instead of the database [IDP_REDIS_URL]')
    .option('--issuer <url>', 'OpenID issuer URL [IDP_ISSUER] (default http://HOST:PORT)')
    .option('--fixtures <file>', 'apply a fixtures file at start, idempotently [IDP_FIXTURES]')
    .option('--signup <mode>', 'open|closed: whether POST /management/orgs needs no token [IDP_SIGNUP] (default open)')
    .option('--superuser <user:password>', 'create or update a sysadmin [IDP_SUPERUSER]')
    .option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent [IDP_LOG_LEVEL] (default info)')
    .option('--access-log', 'one log line per request answered [IDP_ACCESS_LOG] (default off)')
    .option('--no-console', 'do not serve the admin console at /console, nor its client idp-console [IDP_CONSOLE=false] (default on)')
    .option('--metrics-token <token>', "a bearer token that may read /metrics, besides a sysadmin's [IDP_METRICS_TOKEN]")
    .option('--metrics-port <port>', 'also serve /metrics without a token on this port of the same host [IDP_METRICS_PORT]')
    .option('--smtp-url <url>', 'outgoing mail server, smtp://user:pass@host:587; without it mail goes to outbox/ beside the database [IDP_SMTP_URL]')
    .option('--mail-from <address>', 'sender of outgoing mail [IDP_MAIL_FROM] (default no-reply@ISSUER-HOST)')
    .option('--require-activation', 'new organizations and admin users must follow an emailed link before use [IDP_REQUIRE_ACTIVATION] (default off)')
    .option('--require-par', 'authorization requests only as pushed ones, /connect/par (RFC 9126) [IDP_REQUIRE_PAR] (default off)')
    .option('--activation-ttl <seconds>', 'lifetime of activation links [IDP_ACTIVATION_TTL] (default 86400)')
    .option('--reset-ttl <seconds>', 'lifetime of password-reset links [IDP_RESET_TTL] (default 3600)')
    .option('--password-min-length <n>', `fewest characters a new password may have [IDP_PASSWORD_MIN_LENGTH] (default ${DEFAULTS.passwordPolicy.minLength})`)
    .option(
      '--password-require <classes>',
      `character classes a new password must contain: ${CHARACTER_CLASSES.join(',')} [IDP_PASSWORD_REQUIRE] (default none)`,
    )
    .option('--password-blocklist <list>', 'common|off: refuse common and breached passwords [IDP_PASSWORD_BLOCKLIST] (default common)')
    .option('--access-token-ttl <seconds>', `access-token lifetime [IDP_ACCESS_TOKEN_TTL] (default ${DEFAULTS.accessTokenTtl})`)
    .option('--id-token-ttl <seconds>', `ID-token lifetime [IDP_ID_TOKEN_TTL] (default ${DEFAULTS.idTokenTtl})`)
    .option('--code-ttl <seconds>', `authorization-code lifetime [IDP_CODE_TTL] (default ${DEFAULTS.codeTtl})`)
    .option('--device-code-ttl <seconds>', `device-code lifetime (RFC 8628) [IDP_DEVICE_CODE_TTL] (default ${DEFAULTS.deviceCodeTtl})`)
    .option('--refresh-token-ttl <seconds>', `refresh-token lifetime, sliding [IDP_REFRESH_TOKEN_TTL] (default ${DEFAULTS.refreshTokenTtl})`)
    .option('--session-ttl <seconds>', `browser sign-in session lifetime, sliding [IDP_SESSION_TTL] (default ${DEFAULTS.sessionTtl})`)
    .option('--access-token-alg <alg>', `access-token signature: ${SIGNING_ALGS.join('|')} [IDP_ACCESS_TOKEN_ALG] (default ${DEFAULTS.accessTokenAlg})`)
    .option('--id-token-alg <alg>', `ID-token signature, the same choices [IDP_ID_TOKEN_ALG] (default ${DEFAULTS.idTokenAlg})`)
    .option('--captcha-provider <name>', 'altcha|recaptcha|hcaptcha|turnstile [IDP_CAPTCHA_PROVIDER] (default altcha, self-hosted)')
    .option('--captcha-secret <secret>', "the provider's secret key [IDP_CAPTCHA_SECRET]")
    .option('--captcha-site-key <key>', "the provider's site key, for the form's widget [IDP_CAPTCHA_SITE_KEY]")
    .option('--captcha-verify-url <url>', "the provider's verify endpoint [IDP_CAPTCHA_VERIFY_URL] (default: the provider's own)")
    .option('--max-json-depth <levels>', `deepest nesting a JSON body may have [IDP_MAX_JSON_DEPTH] (default ${DEFAULTS.json.maxDepth})`)
    .option('--max-asset-size <bytes>', 'largest file attached to an entity; k, m or g for KiB, MiB, GiB [IDP_MAX_ASSET_SIZE] (default 50m)')
    .option('--assets-dir <dir>', "keep attached files' bytes in this folder instead of the database [IDP_ASSETS_DIR]")
    .option(
      '--trusted-proxy <cidrs>',
      'proxies whose X-Forwarded-For, Forwarded and X-Forwarded-Proto are believed, e.g. 10.0.0.0/8,::1 [IDP_TRUSTED_PROXY] (default none)',
    )
    .addHelpText('after', '\nExample:\n  $ idp serve --port 0 --db :memory: --fixtures fixtures/demo.json')
    .action(async (flags: ServeFlags) => {
      const config = resolveConfig(flags, process.env);
      const { startServer } = await import('../server/serve.js');
      const server = await startServer(config);
      const codeCache = codeCacheStatus();
      if (codeCache) server.deps.logger.debug({ codeCache }, 'server code loaded from dist/bundle/serve.cjs');
      // Install the handlers before announcing the address: a supervisor may signal at once.
      const stopped = new Promise<void>((resolve) => {
        const stop = async (signal: NodeJS.Signals) => {
          server.deps.logger.info({ signal }, 'shutting down');
          await server.close().then(resolve, resolve);
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      const issuer = server.deps.config.issuer;
      process.stdout.write(`idp ${issuer === server.url ? '' : `(issuer ${issuer}) `}listening on ${server.url}\n`);
      if (server.metricsUrl) process.stdout.write(`metrics on ${server.metricsUrl}/metrics\n`);
      await stopped;
    });
}
