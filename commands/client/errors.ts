/**
 * The CLI's two kinds of failure: a usage error (exit code 2) is a
 * ConfigError, so the top-level catch in commands/index.ts maps it; everything the server or the
 * network refuses is an AppError (exit code 1) that prints `error: <description>`.
 */
import { AppError } from '../../src/errors.js';
import { ConfigError } from '../../src/config.js';

export class UsageError extends ConfigError {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
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
