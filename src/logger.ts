/**
 * Structured JSON logs on stderr (pino), so stdout carries only what a user reads (the
 * `listening on` line). Fields named like secrets are redacted wherever they appear.
 */
import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger };

export function createLogger(level: LogLevel): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: ['password', 'newpassword', 'client_secret', 'secret', '*.password', '*.client_secret', '*.token', 'token'],
        censor: '[redacted]',
      },
    },
    pino.destination({ fd: 2, sync: true }),
  );
}
