/**
 * Who is calling: resolved once per request by the server's principal middleware, kept with the
 * token families and sign-in sessions it holds, and read by the access policy.
 */
export type Principal =
  | { kind: 'sysadmin'; userUuid: string; username: string }
  | { kind: 'admin'; userUuid: string; username: string }
  | { kind: 'organization'; orgUuid: string; clientId: string }
  | { kind: 'application'; orgUuid: string; appUuid: string; clientId: string }
  | { kind: 'app-user'; appUuid: string; userUuid: string; username: string }
  | { kind: 'guest' };

export const GUEST: Principal = { kind: 'guest' };

/** The admin user behind a principal, for the management feed's actor. */
export function actorOf(principal: Principal): string | null {
  return principal.kind === 'admin' || principal.kind === 'sysadmin' ? principal.userUuid : null;
}
