/**
 * Sending a page: HTML that is never cached, may not be framed (X-Frame-Options DENY is set for
 * every response in app.ts; CSP frame-ancestors here), loads only our stylesheet, runs no script
 * except a nonce'd one, and posts forms only to us and to the client the flow returns to.
 */
import type { Context } from 'hono';
import type { Env } from '../env.js';
import type { Html } from './layout.js';

export interface PageSecurity {
  /** Addresses (besides this server) the page's forms, and redirects after them, may go to. */
  formTargets?: readonly string[];
  scriptNonce?: string;
  /** Origins a third-party widget (a captcha provider's) loads scripts and frames from. */
  widgetOrigins?: readonly string[];
  /** The page's script may fetch from this server (connect-src 'self'). */
  connectSelf?: boolean;
  /** Pages the page loads in iframes (front-channel logout): exactly these, by origin and path. */
  frames?: readonly string[];
}

/** A URL as a CSP source expression: its origin and path, `;` and `,` escaped (CSP 3, 2.3.1). */
function frameSource(address: string): string | undefined {
  const origin = originOf(address);
  return origin && origin + new URL(address).pathname.replaceAll(';', '%3B').replaceAll(',', '%2C');
}

function originOf(address: string): string | undefined {
  try {
    const url = new URL(address);
    return /^https?:$/.test(url.protocol) ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

export function contentSecurityPolicy(security: PageSecurity): string {
  const targets = (security.formTargets ?? []).map(originOf).filter((origin): origin is string => origin !== undefined);
  const widgets = security.widgetOrigins ?? [];
  const connect = [...(security.connectSelf ? ["'self'"] : []), ...widgets];
  const frames = [...widgets, ...new Set((security.frames ?? []).map(frameSource).filter((source): source is string => source !== undefined))];
  return [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self' data:",
    `form-action ${["'self'", ...new Set(targets)].join(' ')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    ...(security.scriptNonce ? [[`script-src 'nonce-${security.scriptNonce}'`, ...widgets].join(' ')] : []),
    ...(frames.length ? [`frame-src ${frames.join(' ')}`] : []),
    ...(connect.length ? [`connect-src ${connect.join(' ')}`] : []),
  ].join('; ');
}

export async function sendPage(c: Context<Env>, page: Html, status: 200 | 400 | 403 | 429 = 200, security: PageSecurity = {}): Promise<Response> {
  c.header('Cache-Control', 'no-store');
  c.header('Pragma', 'no-cache');
  c.header('Content-Security-Policy', contentSecurityPolicy(security));
  c.header('X-Frame-Options', 'DENY');
  return c.html(await page, status);
}
