/**
 * What a request brings, read one way for every route: its body (JSON or a form, told apart by
 * one content-type rule, `bodyFormatOf`), its query, and the names of the parameters that carry
 * secrets and are never shown back. Routes validate what this reads with zod (server/openapi.ts
 * `openapiRoute`), so /openapi.json describes exactly what is checked.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Env } from './env.js';
import type { JsonLimits } from '../src/config.js';
import { BadRequest, InvalidJson, JsonTooDeep, PayloadTooLarge, UnsupportedMediaType, type AppError } from '../src/errors.js';

/**
 * Parameters whose values are secrets: answers that show a request's parameters back (the
 * envelope's `params`, the `parameters` of the Event, Role and Permission models) leave them out.
 */
export const SECRET_PARAMS: ReadonlySet<string> = new Set([
  'access_token',
  'refresh_token',
  'id_token_hint',
  'subject_token',
  'actor_token',
  'token',
  'code_verifier',
  'device_code',
  'user_code',
  'client_secret',
  'client_assertion',
  'password',
  'otp',
  'oldpassword',
  'newpassword',
  'newpassword2',
  'captcha_response',
  'csrf_token',
]);

/**
 * What a body is, by its Content-Type: `text` (text/plain) and `none` are told apart for the data
 * API; `ndjson` (one JSON value per line) is the bulk import's stream (docs/api.md#bulk-import).
 */
export type BodyFormat = 'json' | 'ndjson' | 'form' | 'multipart' | 'text' | 'none' | 'other';

/**
 * The one content-type rule, for a request's Content-Type and for the media types a route
 * declares alike: the media type without its parameters; JSON includes `+json` (RFC 6839 3.1).
 */
export function formatOfMediaType(contentType: string | undefined): BodyFormat {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type === '') return 'none';
  if (type === 'application/json' || /^application\/[\w.-]+\+json$/.test(type)) return 'json';
  if (type === 'application/x-ndjson') return 'ndjson';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type === 'multipart/form-data') return 'multipart';
  if (type === 'text/plain') return 'text';
  return 'other';
}

export function bodyFormatOf(c: Context<Env>): BodyFormat {
  return formatOfMediaType(c.req.header('content-type'));
}

/** What a route reads: the formats it takes, and the refusal of any other. */
export interface BodyRule {
  readonly accept: readonly BodyFormat[];
  readonly refuse?: () => AppError;
}

/** The pages' forms (sign-in, consent, logout, and a client's form-posted request): a form only. */
export const PAGE_FORM: BodyRule = { accept: ['form'], refuse: () => UnsupportedMediaType('send the form as application/x-www-form-urlencoded') };

/** A form value: each parameter a string, or the list of its values when it was sent more than once. */
export type FormValue = Record<string, string | string[]>;

/** Adds one value of a parameter: a second value makes the list of its values. */
export function addFormValue(form: FormValue, name: string, value: string): void {
  const seen = form[name];
  form[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
}

function formValue(entries: Iterable<[string, FormDataEntryValue]>): FormValue {
  const form: FormValue = Object.create(null);
  for (const [name, value] of entries) if (typeof value === 'string') addFormValue(form, name, value);
  return form;
}

/**
 * Refuses a parsed JSON value deeper, or with an object wider or a key longer, than `limits`
 * allow, before anything else reads it. Walks with a stack of its own, not by recursion, so no
 * depth overflows the call stack (JSON.parse itself does not recurse in V8). Each level is a
 * nested array or object: `{"a": [1]}` is two levels deep.
 * @throws 400 `json_too_deep`; 413 `payload_too_large` for too many keys or too long a key.
 */
export function checkJsonLimits(value: unknown, limits: JsonLimits): void {
  const pending: { node: object; depth: number }[] = [];
  const visit = (node: unknown, depth: number) => {
    if (typeof node === 'object' && node !== null) pending.push({ node, depth });
  };
  visit(value, 1);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, depth } = next;
    if (depth > limits.maxDepth) throw JsonTooDeep(`the request body is nested deeper than the limit of ${limits.maxDepth} levels`);
    if (Array.isArray(node)) {
      for (const item of node as unknown[]) visit(item, depth + 1);
      continue;
    }
    const keys = Object.keys(node);
    if (keys.length > limits.maxKeys) throw PayloadTooLarge(`an object of the request body has more than the limit of ${limits.maxKeys} keys`);
    for (const key of keys) {
      if (key.length > limits.maxKeyLength) {
        throw PayloadTooLarge(`a key of the request body is longer than the limit of ${limits.maxKeyLength} characters`);
      }
      visit((node as Record<string, unknown>)[key], depth + 1);
    }
  }
}

/**
 * The body as a value: a form as a FormValue, anything else read as JSON (a blank body is `{}`),
 * within the configured limits of depth, keys and key length (`checkJsonLimits`).
 * @throws 400 `json_parse` for JSON that does not parse, `bad_request` for a multipart body that
 * does not parse; 400 `json_too_deep` or 413 past a limit; the rule's refusal (else 415) for a
 * format it does not take.
 */
export async function readBody(c: Context<Env>, rule: BodyRule): Promise<unknown> {
  const format = bodyFormatOf(c);
  if (!rule.accept.includes(format)) {
    throw rule.refuse?.() ?? UnsupportedMediaType('the request body must be application/json or application/x-www-form-urlencoded');
  }
  if (format === 'form') return formValue(new URLSearchParams(await c.req.text()));
  if (format === 'multipart') return formValue(await multipartForm(c));
  const text = await c.req.text();
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw InvalidJson('the request body is not valid JSON');
  }
  checkJsonLimits(value, c.get('deps').config.json);
  return value;
}

/**
 * A multipart/form-data body, read whole: within the body limit, which the request-wide check
 * lets multipart bodies pass up to the asset size (server/middleware/body-limit.ts). One that
 * does not parse (no boundary, no closing delimiter, not multipart at all) is the client's fault.
 */
async function multipartForm(c: Context<Env>): Promise<FormData> {
  const { bodyLimit } = c.get('deps').config;
  const bytes = await readAtMost(c.req.raw.body, bodyLimit);
  if (bytes === undefined) throw PayloadTooLarge(`the request body is larger than ${bodyLimit} bytes`);
  try {
    return await new Response(new Uint8Array(bytes), { headers: { 'content-type': c.req.header('content-type') ?? '' } }).formData();
  } catch {
    throw BadRequest('the request body is not a valid multipart/form-data body');
  }
}

/** The whole body if it is at most `limit` bytes; undefined (and the rest left unread) if longer. */
async function readAtMost(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Buffer | undefined> {
  const pieces: Uint8Array[] = [];
  const reader = body?.getReader();
  let size = 0;
  for (let next = await reader?.read(); next !== undefined && !next.done; next = await reader!.read()) {
    size += next.value.byteLength;
    if (size > limit) {
      await reader!.cancel();
      return undefined;
    }
    pieces.push(next.value);
  }
  return Buffer.concat(pieces);
}

/** The query exactly as sent, `?` included, for a URL that must be rebuilt unchanged. */
export function rawQuery(c: Context<Env>): string {
  const at = c.req.url.indexOf('?');
  return at === -1 ? '' : c.req.url.slice(at);
}

/** A query or form value as URLSearchParams again, for the code that reads parameters by name (the OAuth core). */
export function paramsOf(value: Record<string, unknown>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, values] of Object.entries(value)) {
    for (const one of Array.isArray(values) ? values : [values]) if (typeof one === 'string') params.append(name, one);
  }
  return params;
}

/**
 * One parameter of a form or a query: a string, at most once (RFC 6749 3.1: a repeated
 * parameter is read as the list of its values, which this refuses).
 */
export function requiredParam() {
  return z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'was sent more than once') });
}

export function formParam() {
  return requiredParam().optional();
}

/** A parameter that may be sent more than once (RFC 8707 `resource`): its value, or the list of its values. */
export function repeatableParam() {
  return z.union([z.string(), z.array(z.string())], { error: 'must be text' }).optional();
}

/** The schema shape of `names`: each at most once, but those `repeatable` as often as sent. */
export function paramsShape(names: readonly string[], repeatable: ReadonlySet<string>) {
  return Object.fromEntries(names.map((name) => [name, repeatable.has(name) ? repeatableParam() : formParam()]));
}
