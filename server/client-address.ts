/**
 * The address a request came from, for the password-guessing throttle. Only the socket's peer
 * address is trusted (a forwarded-for header is whatever the client wrote); requests that did not
 * come through a socket (app.request() in tests) share one constant address.
 */
import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Env } from './env.js';
import { UNKNOWN_ADDRESS, type LoginContext } from '../src/identity/sign-in/throttle.js';

export function loginContextOf(c: Context<Env>): LoginContext {
  const bindings = c.env as { incoming?: unknown; server?: { incoming?: unknown } } | undefined;
  if (!bindings?.incoming && !bindings?.server?.incoming) return UNKNOWN_ADDRESS;
  const address = getConnInfo(c).remote.address;
  return address ? { address } : UNKNOWN_ADDRESS;
}
