/**
 * The password policy every new password is checked against (docs/api.md#passwords): NIST SP
 * 800-63B 5.1.1.2 by default — at least 8 characters, long passphrases allowed, no composition
 * rules, and no password from a list of commonly used or breached ones, nor the account's own
 * name. The server's policy (`idp serve --password-*`) covers admin users; an application's
 * `passwordPolicy` overrides it for that application's users.
 */
import { IllegalArgument } from './errors.js';

export const CHARACTER_CLASSES = ['lower', 'upper', 'digit', 'symbol'] as const;
export type CharacterClass = (typeof CHARACTER_CLASSES)[number];

/** `common`: the built-in list of common and breached passwords; `off`: no list. */
export const BLOCKLISTS = ['common', 'off'] as const;
export type Blocklist = (typeof BLOCKLISTS)[number];

export interface PasswordPolicy {
  /** Fewest characters (Unicode code points after NFKC normalization). */
  readonly minLength: number;
  /** Character classes a password must contain each of; none by default. */
  readonly require: readonly CharacterClass[];
  readonly blocklist: Blocklist;
}

/** An application's overrides of the server's policy, as stored in its settings. */
export type PasswordPolicySettings = Partial<PasswordPolicy>;

// Bounded so that hashing cannot be used to burn CPU; far above any passphrase (800-63B asks
// verifiers to accept at least 64 characters).
export const MAX_PASSWORD_LENGTH = 1024;

export const DEFAULT_PASSWORD_POLICY: PasswordPolicy = {
  // NIST SP 800-63B 5.1.1.2: at least 8 characters. Its revision 4 asks for 15 where a password
  // is the only factor; that choice is the operator's (--password-min-length).
  minLength: 8,
  // 800-63B: no composition rules; they push users to predictable
  // substitutions ("Password1!") rather than stronger passwords.
  require: [],
  // 800-63B: a new password SHALL be compared against a blocklist of commonly used, expected or
  // compromised values.
  blocklist: 'common',
};

/** The account a password is for: the password must not be its name or address. */
export interface PasswordOwner {
  username?: string | null;
  email?: string | null;
}

const CLASS_PATTERNS: Record<CharacterClass, { pattern: RegExp; noun: string }> = {
  lower: { pattern: /\p{Ll}/u, noun: 'a lowercase letter' },
  upper: { pattern: /\p{Lu}/u, noun: 'an uppercase letter' },
  digit: { pattern: /\p{Nd}/u, noun: 'a digit' },
  // Anything that is neither a letter nor a number, spaces included (Keycloak's specialChars).
  symbol: { pattern: /[^\p{L}\p{N}]/u, noun: 'a symbol' },
};

// About 49,000 entries (zxcvbn-ts's passwords-common: leaked-password frequency lists), loaded on
// the first check so that starting the server and the CLI does not pay for it. A CommonJS
// package: its `default` is its exports under Node's loader and inside the bundle alike, where
// its chunk exports nothing else (scripts/build-bundle.js).
let commonPasswords: Promise<ReadonlySet<string>> | undefined;

function loadCommonPasswords(): Promise<ReadonlySet<string>> {
  commonPasswords ??= import('@zxcvbn-ts/language-common').then(
    ({ default: { dictionary } }) => new Set(dictionary['passwords-common'].map((entry) => entry.toLowerCase())),
  );
  return commonPasswords;
}

/**
 * What is wrong with `password` under `policy`, or undefined when it may be used. `field` names
 * the request field in the message ("newpassword must be at least 8 characters").
 */
export async function findPasswordProblem(policy: PasswordPolicy, password: string, owner: PasswordOwner, field = 'password'): Promise<string | undefined> {
  // 800-63B 5.1.1.2: each code point of the NFKC form counts as one character, as hashed (passwords.ts).
  const normalized = password.normalize('NFKC');
  const length = [...normalized].length;
  if (length < policy.minLength) return `${field} must be at least ${policy.minLength} characters`;
  if (length > MAX_PASSWORD_LENGTH) return `${field} must be at most ${MAX_PASSWORD_LENGTH} characters`;
  const missing = policy.require.find((name) => !CLASS_PATTERNS[name].pattern.test(normalized));
  if (missing !== undefined) return `${field} must contain ${CLASS_PATTERNS[missing].noun}`;
  const folded = normalized.toLowerCase();
  const fold = (value: string | null | undefined) => value?.normalize('NFKC').toLowerCase();
  if (folded === fold(owner.username)) return `${field} must not be the username`;
  if (folded === fold(owner.email)) return `${field} must not be the email address`;
  if (policy.blocklist === 'common' && (await loadCommonPasswords()).has(folded)) return `${field} is too common`;
  return undefined;
}

/**
 * @returns `password` when the policy allows it.
 * @throws AppError `illegal_argument` (400) whose `fields[field]` says which rule failed.
 */
export async function assertPasswordAllowed(policy: PasswordPolicy, password: string, owner: PasswordOwner, field = 'password'): Promise<string> {
  const problem = await findPasswordProblem(policy, password, owner, field);
  if (problem !== undefined) throw IllegalArgument(problem, { fields: { [field]: problem } });
  return password;
}

/** The server's policy with an application's overrides on top. */
export function mergePasswordPolicy(server: PasswordPolicy, settings: PasswordPolicySettings | undefined): PasswordPolicy {
  return { ...server, ...settings };
}
