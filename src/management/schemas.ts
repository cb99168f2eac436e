/**
 * Request schemas of the management API (Usergrid's request models), validated at the edge and
 * published in /openapi.json from the same definitions. The core receives these typed values.
 */
import { z } from 'zod';
import { isUuid } from '../ids.js';
import { IllegalArgument } from '../errors.js';
import { BLOCKLISTS, CHARACTER_CLASSES, MAX_PASSWORD_LENGTH } from '../password-policy.js';

// Usergrid organization and application names: letters, digits, '-', '_' and '.', starting with
// a letter or digit; not a UUID, because a UUID path segment always means an id.
/** A string field whose messages tell "missing" from "not a string". */
export const str = (field: string) => z.string({ error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a string`) });

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
// Usergrid usernames: word characters, '.', '-', '+' and '@'.
const USERNAME = /^[\w.@+-]+$/;

export const resourceName = (what: string) =>
  str(what)
    .trim()
    .min(1, `${what} is required`)
    .max(64, `${what} must be at most 64 characters`)
    .regex(NAME, `${what} may contain only letters, digits, '-', '_' and '.', and must start with a letter or digit`)
    .refine((value) => !isUuid(value), `${what} must not be a UUID`);

export const username = str('username')
  .trim()
  .min(1, 'username is required')
  .max(64, 'username must be at most 64 characters')
  .regex(USERNAME, "username may contain only letters, digits, '_', '.', '-', '+' and '@'")
  .refine((value) => value.toLowerCase() !== 'me' && !isUuid(value), "username must not be 'me' or a UUID");

export const email = z
  .email({ error: (issue) => (issue.input === undefined ? 'email is required' : 'email must be a valid email address') })
  .max(254, 'email must be at most 254 characters');

export const displayName = str('name').trim().max(128, 'name must be at most 128 characters');

// What a password must be depends on the server's and the application's policy, so it is checked
// where the password is set (src/password-policy.ts), not here.
export const password = str('password').meta({ description: 'Checked against the password policy (docs/api.md#passwords).' });

/** CreateOrg: every field required, as Usergrid's model has it. */
export const CreateOrg = z.object({
  organization: resourceName('organization'),
  username,
  name: displayName.min(1, 'name is required'),
  email,
  password,
});
export type CreateOrg = z.infer<typeof CreateOrg>;

/** CreateApp: Usergrid's model minus `token`, which travels in the Authorization header. */
export const CreateApp = z.object({ name: resourceName('name') });
export type CreateApp = z.infer<typeof CreateApp>;

const oneOf = (values: readonly string[]) => `must be one of ${values.join(', ')}`;

/** An application's password policy (docs/api.md#passwords): a rule left out follows the server's. */
export const PasswordPolicySettings = z
  .object({
    minLength: z
      .int({ error: `must be a whole number from 1 to ${MAX_PASSWORD_LENGTH}` })
      .min(1, `must be a whole number from 1 to ${MAX_PASSWORD_LENGTH}`)
      .max(MAX_PASSWORD_LENGTH, `must be a whole number from 1 to ${MAX_PASSWORD_LENGTH}`)
      .optional(),
    require: z.array(z.enum(CHARACTER_CLASSES, { error: oneOf(CHARACTER_CLASSES) }), { error: `must be a list of ${CHARACTER_CLASSES.join(', ')}` }).optional(),
    blocklist: z.enum(BLOCKLISTS, { error: oneOf(BLOCKLISTS) }).optional(),
  })
  .strict();

/** `secondFactorRequired` (docs/account.md#second-factor-required): users must enroll a factor before they get a token. */
const secondFactorRequired = z.boolean({ error: 'secondFactorRequired must be true or false' }).nullable().optional();

/**
 * An application's settings: `passwordPolicy` replaces the stored one whole, `null` removes it;
 * `openClientRegistration` lets clients register without an initial access token;
 * `secondFactorRequired` holds its users to a second factor.
 */
export const UpdateApp = z
  .object({
    passwordPolicy: PasswordPolicySettings.nullable().optional(),
    openClientRegistration: z.boolean({ error: 'openClientRegistration must be true or false' }).nullable().optional(),
    secondFactorRequired,
  })
  .strict();
export type UpdateApp = z.infer<typeof UpdateApp>;

/** An organization's settings: `secondFactorRequired` holds its admin users to a second factor. */
export const UpdateOrg = z.object({ secondFactorRequired }).strict();
export type UpdateOrg = z.infer<typeof UpdateOrg>;

/**
 * Fields of a user record, admin user or app user, that only the server or an administrator
 * sets (docs/api.md#entities): the account's standing (`adminUser`, `roles`, `activated`,
 * `disabled`), its identity and timestamps, and password hashes. A user writing them about
 * themself, or a guest signing up with them, is refused with the field named, so no reader of
 * the record is misled about what the account is.
 */
const RESERVED_USER_FIELD_NAMES = [
  'adminUser',
  'roles',
  'activated',
  'disabled',
  'uuid',
  'type',
  'created',
  'modified',
  'metadata',
  'passwordHash',
  'credentials',
  // Nothing here checks a phone number, so only an administrator can vouch for it (docs/api.md#claims).
  'phone_number_verified',
] as const;
export const RESERVED_USER_FIELDS: ReadonlySet<string> = new Set(RESERVED_USER_FIELD_NAMES);

const RESERVED = 'set only by the server or an administrator';

/** @throws AppError `illegal_argument` (400) naming every reserved field of `body`. */
export function refuseReservedUserFields(body: object): void {
  const named = Object.keys(body).filter((key) => RESERVED_USER_FIELDS.has(key));
  if (named.length === 0) return;
  const list = named.map((key) => `'${key}'`).join(', ');
  throw IllegalArgument(`${list} ${named.length === 1 ? 'is' : 'are'} ${RESERVED}`, { fields: Object.fromEntries(named.map((key) => [key, RESERVED])) });
}

/** A reserved field in a request schema: published, and refused whatever its value (null too). */
const reservedField = (key: string) =>
  z
    .unknown()
    .refine((value) => value === undefined, `${key} is ${RESERVED}`)
    .optional()
    .meta({ description: `Refused: ${RESERVED}.` });

const reservedShape = Object.fromEntries(RESERVED_USER_FIELD_NAMES.map((key) => [key, reservedField(key)])) as Record<
  (typeof RESERVED_USER_FIELD_NAMES)[number],
  ReturnType<typeof reservedField>
>;

/** An admin user's own fields: username required and unique; email, name, password optional. */
export const AdminUserFields = z.object({
  username,
  email: email.optional(),
  name: displayName.optional(),
  password: password.optional(),
});

/** CreateAdminUser, a sign-up: the admin user's own fields, and none of the reserved ones. */
export const CreateAdminUser = AdminUserFields.extend(reservedShape);
export type CreateAdminUser = z.infer<typeof CreateAdminUser>;

const profileValue = z.string().max(256, 'must be at most 256 characters');

/** AdminUserUpdate (city, state) plus the profile fields of CreateAdminUser. */
export const AdminUserUpdate = z
  .object({
    ...reservedShape,
    username: username.optional(),
    email: email.optional(),
    name: displayName.optional(),
    city: profileValue.optional(),
    state: profileValue.optional(),
  })
  .strict();
export type AdminUserUpdate = z.infer<typeof AdminUserUpdate>;

/** ResetPW: the old password and the new one. */
export const ResetPW = z.object({
  password: str('password').min(1, 'password (the current password) is required'),
  newpassword: str('newpassword').meta({ description: 'Checked against the password policy (docs/api.md#passwords).' }),
});
export type ResetPW = z.infer<typeof ResetPW>;
