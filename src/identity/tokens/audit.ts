/**
 * The audit trail of token issuance (Duende-style events): every token issued or refused is one
 * JSON line, `event: "token_issued"` at debug level and `"token_refused"` at info. Lines carry who and what,
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

/**
 * Runs `issue`, counts its outcome (metrics.ts) and writes one audit line: a token issued at
 * debug (a busy server issues thousands a minute; the count is what an operator watches), a
 * refusal at info. The outcome itself is passed on.
 */
export async function withTokenAudit<T>(deps: Deps, context: AuditContext, issue: () => Promise<T>, describe: (result: T) => IssuedFacts): Promise<T> {
  const audit = auditLogger(deps.logger);
  try {
    const result = await issue();
    // Only a grant type that was honoured becomes a label: a refused request may name any.
    deps.metrics.tokensIssued.inc({ grant_type: context.grant_type ?? 'unknown' });
    if (audit.isLevelEnabled('debug')) audit.debug({ event: 'token_issued', ...context, ...describe(result) }, 'token issued');
    return result;
  } catch (error) {
    const name = isAppError(error) ? error.error : 'server_error';
    deps.metrics.tokenErrors.inc({ error: name });
    // A device polling before its user has decided (RFC 8628 3.5) is the flow, not a refusal worth a line.
    audit[name === 'authorization_pending' ? 'debug' : 'info'](
      {
        event: 'token_refused',
        ...context,
        error: name,
        ...(isAppError(error) && { error_description: error.message, status: error.status }),
      },
      'token refused',
    );
    throw error;
  }
}
