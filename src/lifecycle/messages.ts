/**
 * The mails of the account lifecycle, written here in code rather than read from template files
 * so the single executable has nothing extra to embed. Each is plain text plus the same words in
 * minimal HTML; every interpolated value is escaped in the HTML part.
 */
import type { MailMessage } from '../mail/mailer.js';
import type { Account } from './accounts.js';

export type MailKind = 'activate' | 'activated' | 'resetpw' | 'password_changed';

interface Wording {
  subject(account: Account): string;
  /** Paragraphs; the link, when there is one, is placed after the first. */
  body(account: Account, expiresIn: string): string[];
}

const WHAT: Record<Account['subject']['type'], string> = {
  organization: 'organization',
  admin_user: 'administrator account',
  app_user: 'account',
};

const WORDINGS: Record<MailKind, Wording> = {
  activate: {
    subject: (account) => `Activate your ${WHAT[account.subject.type]} ${account.displayName}`,
    body: (account, expiresIn) => [
      `Open this link to activate the ${WHAT[account.subject.type]} ${account.displayName}:`,
      `The link works once and expires in ${expiresIn}. If it has expired, ask for a new one at the same address with /reactivate in place of /activate.`,
    ],
  },
  activated: {
    subject: (account) => `Your ${WHAT[account.subject.type]} ${account.displayName} is active`,
    body: (account) => [`The ${WHAT[account.subject.type]} ${account.displayName} is now activated. Nothing more needs to be done.`],
  },
  resetpw: {
    subject: () => 'Reset your password',
    body: (account, expiresIn) => [
      `Someone asked to reset the password of ${account.displayName}. Open this link to choose a new one:`,
      `The link works once and expires in ${expiresIn}. If you did not ask for it, ignore this mail: your password stays as it is.`,
    ],
  },
  password_changed: {
    subject: () => 'Your password was changed',
    body: (account) => [
      `The password of ${account.displayName} was changed through a reset link, and every session and refresh token of this account was ended.`,
      'If this was not you, reset your password again at once and tell your administrator.',
    ],
  },
};

/** `one hour`, `24 hours`, `10 minutes`. */
function durationOf(seconds: number): string {
  const [count, unit] = seconds >= 3600 ? [Math.round(seconds / 3600), 'hour'] : [Math.max(1, Math.round(seconds / 60)), 'minute'];
  return count === 1 ? `one ${unit}` : `${count} ${unit}s`;
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/** The mail of `kind` for an account with an address; `link` is the one it carries, if any. */
export function composeMail(kind: MailKind, account: Account & { email: string }, options: { link?: string; ttlSeconds?: number } = {}): MailMessage {
  const wording = WORDINGS[kind];
  const [first, ...rest] = wording.body(account, durationOf(options.ttlSeconds ?? 0));
  const link = options.link;
  const text = [first, ...(link ? [link] : []), ...rest].join('\n\n');
  const html = [
    `<p>${escapeHtml(first)}</p>`,
    ...(link ? [`<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>`] : []),
    ...rest.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`),
  ].join('\n');
  return { to: account.email, subject: wording.subject(account), text: `${text}\n`, html, link: link ?? '' };
}
