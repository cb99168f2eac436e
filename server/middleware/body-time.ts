/**
 * How long a request's body may take to arrive (`IDP_BODY_TIMEOUT`, 300 s). Node's own limit for
 * a whole request (`requestTimeout`, 300 s by default) would end a bulk import
 * (docs/api.md#bulk-import) that streams for longer midway, with a bare 408 that says neither
 * what was stored nor where to go on: `idp serve` runs without it (secure-headers.ts
 * createSecureServer) and holds bodies to this instead. A body that has not arrived in time is
 * treated as a client that went away: its connection is closed, and the request's handler sees
 * its body end unfinished, as when a client disconnects. A bulk import's body has no such limit; it
 * fails with `408 request_timeout`, with the line to resume from, when none of it came for the
 * same time while it was waited for (body-limit.ts).
 */
import type { RequestListener } from 'node:http';
import { formatOfMediaType } from '../request-input.js';

export function limitingBodyTime(listener: RequestListener, timeoutMs: number): RequestListener {
  return (incoming, outgoing) => {
    const { headers } = incoming;
    // A request has a body only with one of these (RFC 9112 6.1): the others are not timed.
    const hasBody = headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
    if (!hasBody || formatOfMediaType(headers['content-type']) === 'ndjson') return listener(incoming, outgoing);
    const timer = setTimeout(() => {
      if (!incoming.complete) incoming.socket.destroy();
    }, timeoutMs);
    timer.unref();
    const done = () => clearTimeout(timer);
    incoming.once('end', done);
    outgoing.once('close', done);
    listener(incoming, outgoing);
  };
}
