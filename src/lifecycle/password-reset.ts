/**
 * Password reset by mail (GET/POST /management/users/resetpw with ResetPWMsg,
 * docs/api.md#account-lifecycle), for admin users and, the same way, for an application's users.
 *
 * Asking: the captcha must be solved, and the answer is the same whether or not the address
 * belongs to an account (OWASP Forgot Password Cheat Sheet), so the mail is handed to the mailer
 * without waiting for it. Too many requests for one address, or from one client, are throttled.
 * Completing: the mailed link opens a form that sets the new password once; then every session
 * and refresh token of the account ends.
 */
import type { Deps } from '../deps.js';
import { NotFound } from '../errors.js';
import { hashPassword } from '../passwords.js';
import { endAllSignIns } from '../identity/sessions/end-sign-ins.js';
import type { LoginContext } from '../identity/sign-in/throttle.js';
import { findAdminUserIn } from '../management/admin-users.js';
import { findAppPasswordPolicy } from '../management/applications.js';
import { assertPasswordAllowed, type PasswordPolicy } from '../password-policy.js';
import { findUserUuidByLogin } from '../data/user-logins.js';
import { findAccount, linkUrl, storePasswordHash, type Account } from './accounts.js';
import { checkLinkToken, issueLinkToken, redeemLinkToken, type UserSubject } from './links.js';
import { composeMail } from './messages.js';
import { verifyCaptcha, type CaptchaAnswer } from './captcha.js';
import { assertMailNotThrottled, countMail } from './mail-throttle.js';

/** Whose passwords: the admin users, or the users of one application. */
export type Realm = { type: 'admin' } | { type: 'app'; appUuid: string };

function realmKey(realm: Realm): string {
  return realm.type === 'admin' ? 'admin' : realm.appUuid;
}

async function findSubjectByEmail(deps: Deps, realm: Realm, email: string): Promise<UserSubject | undefined> {
  if (realm.type === 'admin') {
    const user = await findAdminUserIn(deps.db, email, 'username-email-uuid');
    return user && { type: 'admin_user', uuid: user.uuid };
  }
  const uuid = await findUserUuidByLogin(deps.db, realm.appUuid, email);
  return uuid === undefined ? undefined : { type: 'app_user', uuid, appUuid: realm.appUuid };
}

/** ResetPWMsg: answers nothing either way; a reset mail goes out only to an existing, enabled account. */
export async function requestPasswordReset(deps: Deps, realm: Realm, email: string, captcha: CaptchaAnswer, context: LoginContext): Promise<void> {
  const target = `resetpw:${realmKey(realm)}:${email}`;
  await assertMailNotThrottled(deps, target, context);
  await verifyCaptcha(deps, captcha);
  await countMail(deps, target, context);
  const subject = await findSubjectByEmail(deps, realm, email);
  const account = subject && (await findAccount(deps, subject));
  const to = account?.email;
  if (!subject || !account || !to || account.disabled) return;
  const token = await deps.db.transaction(async (tx) => issueLinkToken(tx, deps, 'resetpw', subject, to));
  const link = await linkUrl(deps, 'resetpw', subject, token);
  void deps.mailer.send(composeMail('resetpw', { ...account, email: to }, { link, ttlSeconds: deps.config.resetTtl }));
}

async function requireAccount(deps: Deps, subject: UserSubject): Promise<Account> {
  const account = await findAccount(deps, subject);
  if (!account) throw NotFound('the account no longer exists');
  return account;
}

/** The policy the account's new password follows: the server's for admin users, the application's for its users. */
export async function passwordPolicyOf(deps: Deps, subject: UserSubject): Promise<PasswordPolicy> {
  return subject.type === 'admin_user' ? deps.config.passwordPolicy : await findAppPasswordPolicy(deps, subject.appUuid);
}

/** The account a reset link is for, when the link can still be used (the form is shown only then). */
export async function checkResetLink(deps: Deps, subject: UserSubject, token: string): Promise<Account> {
  const account = await requireAccount(deps, subject);
  await checkLinkToken(deps.db, deps, 'resetpw', subject, token);
  return account;
}

/** Sets the new password once, then ends every session and token family of the account. */
export async function completePasswordReset(deps: Deps, subject: UserSubject, token: string, newPassword: string): Promise<Account> {
  const account = await requireAccount(deps, subject);
  await checkLinkToken(deps.db, deps, 'resetpw', subject, token);
  await assertPasswordAllowed(await passwordPolicyOf(deps, subject), newPassword, account, 'newpassword');
  // Hash before the transaction (slow); the transaction re-checks and spends the link.
  const passwordHash = await hashPassword(newPassword);
  await deps.db.transaction(async (tx) => {
    await redeemLinkToken(tx, deps, 'resetpw', subject, token);
    await storePasswordHash(tx, subject, passwordHash, deps.now());
  });
  const ended = await endAllSignIns(deps, subject.uuid);
  deps.logger.info({ subject: subject.uuid, type: subject.type, ...ended }, 'password reset by mail; sessions and token families ended');
  if (account.email) void deps.mailer.send(composeMail('password_changed', { ...account, email: account.email }));
  return account;
}
