/**
 * The CLI's failures and what a person or a script reads of them. A usage error is a
 * ConfigError; what the server or the network refuses is an AppError. `failureOf` gives each
 * its exit code and the `{error, error_description, status}` object that `--json` prints, in one
 * place for the top-level catch in commands/index.ts (README "Prompts and exit codes").
 */
import { CommanderError } from 'commander';
import { AppError } from '../../src/errors.js';
import { ConfigError } from '../../src/config.js';
import { DatabaseTooNewError } from '../../src/db/schema-version.js';

/**
 * Exit codes, so that a script can tell a typo from a lapsed login from a missing thing from an
 * outage, and a database a newer idp upgraded (this one refuses it) from everything else.
 */
export const EXIT = { failed: 1, usage: 2, authentication: 3, notFound: 4, server: 5, databaseTooNew: 6 } as const;

export interface Failure {
  exitCode: number;
  error: string;
  error_description: string;
  /** The HTTP status of the server's answer; null when there was none (usage, network). */
  status: number | null;
}

/** The exit code, wire name and words of any error that reached the top of the program. */
export function failureOf(error: unknown): Failure {
  if (error instanceof CommanderError) {
    // `idp` alone (or `idp NOUN`) shows the help: no command was given.
    const description = error.code === 'commander.help' ? 'no command given; see --help' : error.message.replace(/^error: /, '');
    return { exitCode: EXIT.usage, error: 'usage', error_description: description, status: null };
  }
  if (error instanceof DatabaseTooNewError) return { exitCode: EXIT.databaseTooNew, error: 'database_too_new', error_description: error.message, status: null };
  if (error instanceof ConfigError) return { exitCode: EXIT.usage, error: 'usage', error_description: error.message, status: null };
  if (error instanceof NetworkError) return { exitCode: EXIT.server, error: error.error, error_description: error.message, status: null };
  if (error instanceof AppError) return { exitCode: exitCodeOf(error), error: error.error, error_description: error.message, status: error.status || null };
  return { exitCode: EXIT.failed, error: 'failed', error_description: error instanceof Error ? error.message : String(error), status: null };
}

/**
 * Refusals of a credential that some servers answer with 400 (RFC 6749 5.2: a wrong password is
 * invalid_grant; a wrong current password given to change it, Usergrid's auth_invalid_username_or_password).
 */
const AUTHENTICATION_ERRORS = new Set([
  'invalid_grant',
  'invalid_client',
  'invalid_token',
  'expired_token',
  'unauthorized',
  'auth_invalid_username_or_password',
  // The user refused the device sign-in (RFC 8628 3.5).
  'access_denied',
]);

function exitCodeOf(error: AppError): number {
  // An answer that is not idp's JSON: something else listens at --url, or a proxy failed.
  if (error.error === 'unexpected_response' || error.status >= 500) return EXIT.server;
  if (error.status === 401 || error.status === 403 || AUTHENTICATION_ERRORS.has(error.error)) return EXIT.authentication;
  if (error.status === 404) return EXIT.notFound;
  return EXIT.failed;
}

export class UsageError extends ConfigError {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Some of a command's work failed; its result, already printed, says which. */
export class PartialFailure extends AppError {
  constructor(description: string) {
    super(0, 'failed', description);
    this.name = 'PartialFailure';
  }
}

/** The server answered with an error body: its `error_description` is what the user reads. */
export class ServerError extends AppError {
  readonly body: unknown;
  constructor(status: number, error: string, description: string, body: unknown) {
    super(status, error, description);
    this.name = 'ServerError';
    this.body = body;
  }
}

/** The request never got an answer: connection refused, unknown host, time-out. */
export class NetworkError extends AppError {
  constructor(description: string, cause?: unknown) {
    super(0, 'network', description, { cause });
    this.name = 'NetworkError';
  }
}
