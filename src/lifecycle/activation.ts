/**
 * Activation (GET …/activate and …/reactivate; docs/api.md#account-lifecycle). With
 * `--require-activation` new organizations and admin users start not activated and are mailed a
 * link; following it activates the account (and with `confirm_email=true` mails a confirmation).
 * `reactivate` mails a fresh link to an account that is not activated — the old one expired or was
 * lost.
 */
import type { Deps } from '../deps.js';
import { Conflict, Forbidden, IllegalArgument, NotFound } from '../errors.js';
import type { LoginContext } from '../identity/sign-in/throttle.js';
import { findAccount, linkUrl, markActivated, type Account } from './accounts.js';
import { issueLinkToken, redeemLinkToken, type Subject } from './links.js';
import { composeMail } from './messages.js';
import { throttleMail } from './mail-throttle.js';

async function requireAccount(deps: Deps, subject: Subject): Promise<Account> {
  const account = await findAccount(deps, subject);
  if (!account) throw NotFound('the account no longer exists');
  return account;
}

/**
 * Issues an activation link and hands its mail to the mailer. Returns false when the account has
 * no address to write to (an administrator can still activate it).
 */
export async function sendActivationLink(deps: Deps, subject: Subject): Promise<boolean> {
  const account = await requireAccount(deps, subject);
  const email = account.email;
  if (!email) return false;
  const token = await deps.db.transaction(async (tx) => issueLinkToken(tx, deps, 'activate', subject, email));
  const link = await linkUrl(deps, 'activate', subject, token);
  void deps.mailer.send(composeMail('activate', { ...account, email }, { link, ttlSeconds: deps.config.activationTtl }));
  return true;
}

/** `confirm_email` as Usergrid read it: absent or `false` sends nothing, `true` a confirmation. */
export function parseConfirmEmail(value: string | undefined): boolean {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw IllegalArgument(`confirm_email must be true or false, not '${value}'`, { fields: { confirm_email: 'must be true or false' } });
}

/** Spends the link and activates the account, in one transaction. */
export async function activateAccount(deps: Deps, subject: Subject, token: string, confirmEmail: boolean): Promise<Account> {
  const account = await requireAccount(deps, subject);
  await deps.db.transaction(async (tx) => {
    await redeemLinkToken(tx, deps, 'activate', subject, token);
    await markActivated(tx, subject, deps.now());
  });
  const activated = { ...account, activated: true };
  if (confirmEmail && activated.email) void deps.mailer.send(composeMail('activated', { ...activated, email: activated.email }));
  return activated;
}

/** Mails a fresh activation link to an account that is not activated (throttled per account). */
export async function reactivateAccount(deps: Deps, subject: Subject, context: LoginContext): Promise<Account> {
  const account = await requireAccount(deps, subject);
  if (account.disabled) throw Forbidden('this account was disabled by an administrator and cannot be reactivated by mail');
  if (account.activated) throw Conflict('this account is already activated', { fields: { activated: 'already true' } });
  if (!account.email) throw IllegalArgument('this account has no email address to send a link to', { fields: { email: 'missing' } });
  await throttleMail(deps, `reactivate:${subject.uuid}`, context);
  await sendActivationLink(deps, subject);
  return account;
}
