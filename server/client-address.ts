/**
 * Who a request came from: the one place that reads the client's address and scheme, for the
 * password-guessing throttle, the audit lines, the captcha check and secure cookies.
 *
 * The socket's peer is the client, unless it is one of the proxies named by `--trusted-proxy`.
 * Then the forwarding headers it sent are believed: `Forwarded` (RFC 7239) when present, else
 * `X-Forwarded-For` with `X-Forwarded-Proto`. Each proxy appends the address it got the request
 * from, so the chain is read from the right, skipping trusted proxies: the first address that is
 * not one of them is the client. Everything left of it was written by that client and proves
 * nothing. An entry that is not an address (`unknown`, an obfuscated name) ends the walk at the
 * last trusted proxy. See docs/api.md#proxies.
 *
 * Requests that did not come through a socket (app.request() in tests) share one constant address.
 */
import type { Context } from 'hono';
import { BlockList, isIPv4, isIP } from 'node:net';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Env } from './env.js';
import type { AddressRange } from '../src/config.js';
import { UNKNOWN_ADDRESS, type LoginContext } from '../src/identity/sign-in/throttle.js';

export interface Client {
  /** The client's address; undefined without a socket. */
  readonly address: string | undefined;
  /** The scheme the client used, when a trusted proxy said so; undefined is this server's own (http). */
  readonly proto: 'http' | 'https' | undefined;
}

interface Hop {
  readonly address: string | undefined;
  readonly proto?: string;
}

const blockLists = new WeakMap<readonly AddressRange[], BlockList>();

function trustedList(ranges: readonly AddressRange[]): BlockList {
  let list = blockLists.get(ranges);
  if (list === undefined) {
    list = new BlockList();
    for (const range of ranges) list.addSubnet(range.network, range.prefix, range.family);
    blockLists.set(ranges, list);
  }
  return list;
}

/**
 * An address as the headers write a node (RFC 7239 section 6): `192.0.2.1`, `192.0.2.1:80`,
 * `[2001:db8::1]:80`, `2001:db8::1`; an IPv4-mapped IPv6 address becomes its IPv4 address.
 * Undefined for anything else.
 */
function addressOf(node: string): string | undefined {
  let text = node.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed) text = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(text)) text = text.slice(0, text.lastIndexOf(':'));
  const mapped = /^::ffff:([\d.]+)$/i.exec(text);
  if (mapped && isIPv4(mapped[1])) text = mapped[1];
  return isIP(text) === 0 ? undefined : text.toLowerCase();
}

/** Splits on `separator` outside quoted strings. */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '\\' && quoted) {
      current += char + (text[++i] ?? '');
      continue;
    }
    if (char === '"') quoted = !quoted;
    if (char === separator && !quoted) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  return parts;
}

const unquote = (value: string) => (/^".*"$/s.test(value) ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value);

/** RFC 7239 section 4: `for=…;proto=…, for=…`, one element per proxy, oldest first. */
function forwardedHops(header: string): Hop[] {
  return splitOutsideQuotes(header, ',').map((element) => {
    const pairs = new Map<string, string>();
    for (const pair of splitOutsideQuotes(element, ';')) {
      const equals = pair.indexOf('=');
      if (equals > 0) pairs.set(pair.slice(0, equals).trim().toLowerCase(), unquote(pair.slice(equals + 1).trim()));
    }
    const node = pairs.get('for');
    return { address: node === undefined ? undefined : addressOf(node), proto: pairs.get('proto')?.toLowerCase() };
  });
}

/** `X-Forwarded-For`, with the `X-Forwarded-Proto` entries matched to it from the right (each proxy appends one of each). */
function xForwardedHops(forwardedFor: string, forwardedProto: string | undefined): Hop[] {
  const addresses = forwardedFor.split(',');
  const protos = forwardedProto?.split(',').map((proto) => proto.trim().toLowerCase()) ?? [];
  const offset = protos.length - addresses.length;
  return addresses.map((node, i) => ({ address: addressOf(node), proto: protos[i + offset] }));
}

const lastOf = (list: string | undefined) => list?.split(',').at(-1)?.trim().toLowerCase();

/** The chain a trusted proxy reports, oldest first: `Forwarded` if it sent one, else `X-Forwarded-For`. */
function headerHops(c: Context<Env>): Hop[] {
  const forwarded = c.req.header('forwarded');
  if (forwarded !== undefined) return forwardedHops(forwarded);
  const forwardedFor = c.req.header('x-forwarded-for');
  return forwardedFor === undefined ? [] : xForwardedHops(forwardedFor, c.req.header('x-forwarded-proto'));
}

function peerOf(c: Context<Env>): string | undefined {
  const bindings = c.env as { incoming?: unknown; server?: { incoming?: unknown } } | undefined;
  if (!bindings?.incoming && !bindings?.server?.incoming) return undefined;
  const address = getConnInfo(c).remote.address;
  return address ? addressOf(address) : undefined;
}

export function clientOf(c: Context<Env>): Client {
  const peer = peerOf(c);
  // Optional: the error handler may ask before the request-wide middleware has put deps there.
  const ranges = (c.get('deps') as Env['Variables']['deps'] | undefined)?.config.trustedProxies ?? [];
  if (peer === undefined || ranges.length === 0) return { address: peer, proto: undefined };
  const trusted = trustedList(ranges);
  const isTrusted = (address: string) => trusted.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  if (!isTrusted(peer)) return { address: peer, proto: undefined };
  const hops = headerHops(c);
  hops.push({ address: peer, proto: hops.length === 0 ? lastOf(c.req.header('x-forwarded-proto')) : undefined });
  let chosen = hops[hops.length - 1];
  for (let i = hops.length - 2; i >= 0; i--) {
    if (hops[i].address === undefined) break;
    chosen = hops[i];
    if (!isTrusted(chosen.address!)) break;
  }
  const proto = chosen.proto === 'https' || chosen.proto === 'http' ? chosen.proto : undefined;
  return { address: chosen.address, proto };
}

/** Where a password attempt comes from, for the throttle and the audit lines. */
export function loginContextOf(c: Context<Env>): LoginContext {
  const { address } = clientOf(c);
  return address ? { address } : UNKNOWN_ADDRESS;
}
