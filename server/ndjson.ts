/**
 * An `application/x-ndjson` request body (docs/api.md#bulk-import) read a line at a time, as it
 * arrives: each non-blank line parsed as JSON and held to the limits of a JSON body
 * (request-input.ts `checkJsonLimits`; the line length to the body limit, counted by
 * middleware/body-limit.ts). A line that fails is handed on as refused, with its number, and the
 * reading ends there.
 */
import type { Context } from 'hono';
import type { Env } from './env.js';
import { AppError, BadRequest, InvalidJson } from '../src/errors.js';
import type { ImportLine } from '../src/data/entity-import.js';
import { checkJsonLimits } from './request-input.js';

const NEWLINE = 0x0a;

/** The line `bytes` holds (without its newline, and a carriage return before it) as JSON, or why it is refused. */
function parseLine(c: Context<Env>, line: number, bytes: Buffer): ImportLine {
  const size = bytes.byteLength;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { line, size, error: InvalidJson('the line is not valid JSON') };
  }
  try {
    checkJsonLimits(value, c.get('deps').config.json);
  } catch (error) {
    if (error instanceof AppError) return { line, size, error };
    throw error;
  }
  return { line, size, body: value };
}

/** Whether `bytes` holds nothing but JSON whitespace. */
function isBlank(bytes: Buffer): boolean {
  for (const byte of bytes) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  return true;
}

/** The lines of the request's body, numbered from 1; blank lines are counted, not handed on. */
export async function* ndjsonLines(c: Context<Env>): AsyncGenerator<ImportLine> {
  const reader = c.req.raw.body?.getReader();
  if (reader === undefined) return;
  let line = 0;
  // The start of the line not yet ended, in pieces as they came.
  let pending: Buffer[] = [];
  const ended = (rest: Buffer): ImportLine | undefined => {
    const bytes = pending.length === 0 ? rest : Buffer.concat([...pending, rest]);
    pending = [];
    line++;
    return isBlank(bytes) ? undefined : parseLine(c, line, bytes);
  };
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        yield { line: line + 1, size: 0, error: error instanceof AppError ? error : BadRequest('the request body ended before it was complete') };
        return;
      }
      if (chunk.done) break;
      const bytes = Buffer.from(chunk.value.buffer, chunk.value.byteOffset, chunk.value.byteLength);
      let at = 0;
      for (let newline = bytes.indexOf(NEWLINE, at); newline !== -1; newline = bytes.indexOf(NEWLINE, at)) {
        const item = ended(bytes.subarray(at, newline));
        at = newline + 1;
        if (item === undefined) continue;
        yield item;
        if ('error' in item) return;
      }
      // A copy: the stream may reuse the chunk's memory.
      if (at < bytes.byteLength) pending.push(Buffer.from(bytes.subarray(at)));
    }
    const last = ended(Buffer.alloc(0));
    if (last !== undefined) yield last;
  } finally {
    reader.releaseLock();
  }
}
