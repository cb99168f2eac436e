/**
 * The audit trail of token issuance (Duende-style events): every token issued or refused is one
 * JSON line at info level, `event: "token_issued" | "token_refused"`. Lines carry who and what,
 * never a secret, a password or a token.
 */
import type { Deps } from '../../deps.js';
import { isAppError } from '../../errors.js';
import type { Logger } from '../../logger.js';

export interface AuditContext {
  /** The endpoint that was asked, e.g. `/connect/token`. */
  endpoint: string;
  grant_type?: string;
  client_id?: string;
  address: string;
}

export interface IssuedFacts {
  client_id: string;
  subject: string;
  subject_kind: string;
  scope: string;
  /** The access token's id, so a line can be matched with a later revocation. */
  jti: string;
  refresh_token_issued?: boolean;
  id_token_issued?: boolean;
}

const auditLoggers = new WeakMap<Logger, Logger>();

/**
 * The server's logger without its redaction of secret-named fields: an audit line's fields are
 * the fixed ones above, none of them so named, and walking the redaction paths for every token
 * was about 4% of the token endpoint's time.
 */
function auditLogger(logger: Logger): Logger {
  let audit = auditLoggers.get(logger);
  if (!audit) auditLoggers.set(logger, (audit = logger.child({}, { redact: [] })));
  return audit;
}

/** Runs `issue` and writes one audit line for its outcome; the outcome itself is passed on. */
export async function withTokenAudit<T>(deps: Deps, context: AuditContext, issue: () => Promise<T>, describe: (result: T) => IssuedFacts): Promise<T> {
  try {
    const result = await issue();
    auditLogger(deps.logger).info({ event: 'token_issued', ...context, ...describe(result) }, 'token issued');
    return result;
  } catch (error) {
    auditLogger(deps.logger).info(
      {
        event: 'token_refused',
        ...context,
        error: isAppError(error) ? error.error : 'server_error',
        ...(isAppError(error) && { error_description: error.message, status: error.status }),
      },
      'token refused',
    );
    throw error;
  }
}
