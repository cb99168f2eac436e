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
    // Asynchronous writes: lines written while one write is in flight go out together, instead of
    // one blocking syscall per line on the token endpoint's path (every token is an audit line).
    // pino flushes what is buffered when the process exits.
    pino.destination({ fd: 2, sync: false }),
  );
}
