/**
 * Files attached to entities over HTTP (docs/api.md#assets): reading an upload (a multipart
 * body whose `file` part is the asset and whose other fields are the entity's properties), and
 * answering an entity's GET with its bytes when the client asks for them by its Accept header.
 */
import { Readable } from 'node:stream';
import type { Context } from 'hono';
import { accepts } from 'hono/accepts';
import type { Env } from '../../env.js';
import { readUpload } from '../../multipart.js';
import { bodyFormatOf } from '../../request-input.js';
import { readEntityBody } from './request.js';
import { discardAsset, findAssetOf, readAsset, storeAsset, type AssetRow, type StoredAsset } from '../../../src/data/assets.js';
import type { EntityRow } from '../../../src/data/entities.js';
import { EntityNotFound, RangeNotSatisfiable } from '../../../src/errors.js';

/** An entity body, and the file that came with it. */
export interface EntityUpload {
  readonly body: unknown;
  readonly asset?: StoredAsset;
}

/**
 * The request's entity body: JSON or a form as readEntityBody reads it, or a multipart body,
 * streamed, whose file is stored as a pending asset (src/data/assets.ts) that the caller attaches
 * with `attachingAsset`. @throws what readEntityBody and readUpload throw.
 */
export async function readEntityUpload(c: Context<Env>): Promise<EntityUpload> {
  if (bodyFormatOf(c) !== 'multipart') return { body: await readEntityBody(c) };
  const deps = c.get('deps');
  const upload = await readUpload(c, {
    field: 'file',
    store: (bytes: Readable) => storeAsset(deps, bytes),
    discard: (asset: StoredAsset) => discardAsset(deps, asset),
  });
  return { body: { ...upload.fields }, asset: upload.file };
}

const JSON_RANGES: ReadonlySet<string> = new Set(['*/*', 'application/*', 'application/json', 'text/javascript', 'application/javascript']);

/**
 * Whether a GET of an entity asks for its asset rather than its JSON: Usergrid answered with the
 * bytes when the Accept header named the asset's type. So no Accept, `*\/*` (curl's and most
 * clients' default) and anything that prefers JSON keep the envelope; a most wanted type that is
 * not JSON (`application/octet-stream`, `image/*`, `image/png`) asks for the bytes.
 */
export function wantsAsset(c: Context<Env>): boolean {
  const choice = accepts(c, {
    header: 'Accept',
    supports: ['asset', 'json'],
    default: 'json',
    // hono parses the header (RFC 9110 12.5.1); the choice is whether its most wanted types are all non-JSON.
    match(parsed) {
      const wanted = parsed.filter(({ q }) => q > 0);
      if (wanted.length === 0) return 'json';
      const most = Math.max(...wanted.map(({ q }) => q));
      const top = wanted.filter(({ q }) => q === most).map(({ type }) => type.toLowerCase());
      return top.some((type) => JSON_RANGES.has(type) || type.endsWith('+json')) ? 'json' : 'asset';
    },
  });
  return choice === 'asset';
}

/**
 * The byte range a Range header asks for within `size` bytes (RFC 9110 14.1.2): one range
 * (`a-b`, `a-`, `-n`), or `unsatisfiable`; undefined (the whole asset) when there is none, or
 * several, or it does not parse, as a server may ignore such a header.
 */
function rangeOf(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec((header ?? '').trim());
  if (match === null || (match[1] === '' && match[2] === '')) return undefined;
  const [first, last] = [match[1] === '' ? undefined : Number(match[1]), match[2] === '' ? undefined : Number(match[2])];
  if (first === undefined) return last! === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - last!), end: size - 1 };
  if (last !== undefined && last < first) return undefined;
  if (first >= size) return 'unsatisfiable';
  return { start: first, end: Math.min(last ?? size - 1, size - 1) };
}

/** Whether an If-None-Match or If-Range header names `etag` (weak comparison for the first, RFC 9110 13.1.2). */
function namesEtag(header: string, etag: string): boolean {
  return header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** Headers that keep an uploaded file from running as a page of this origin, whatever it holds. */
function assetHeaders(row: EntityRow, asset: AssetRow, etag: string): Record<string, string> {
  const filename = encodeURIComponent(row.name ?? row.uuid);
  return {
    'Content-Type': asset.contentType,
    'Content-Disposition': `attachment; filename*=UTF-8''${filename}`,
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox",
    'Cache-Control': 'private, no-cache',
    'Accept-Ranges': 'bytes',
    ETag: etag,
  };
}

/**
 * The entity's asset as the answer: 200 with the bytes, 206 with the range asked for, 304 when
 * the client's copy is current.
 * @throws 404 `entity_not_found` when the entity has no asset; 416 `range_not_satisfiable` for a
 * range past its end.
 */
export async function assetResponse(c: Context<Env>, row: EntityRow): Promise<Response> {
  const deps = c.get('deps');
  const asset = await findAssetOf(deps, row);
  if (asset === undefined) throw EntityNotFound(`${row.collection} '${row.name ?? row.uuid}' has no asset`, { fields: { entity: row.uuid } });
  const etag = `"${asset.checksum}"`;
  const headers = assetHeaders(row, asset, etag);
  if (namesEtag(c.req.header('if-none-match') ?? '', etag)) return new Response(null, { status: 304, headers });
  const ifRange = c.req.header('if-range');
  const range = ifRange === undefined || namesEtag(ifRange, etag) ? rangeOf(c.req.header('range'), asset.size) : undefined;
  if (range === 'unsatisfiable') {
    throw RangeNotSatisfiable(`the asset has ${asset.size} bytes: the range asked for is past its end`, {
      fields: { range: c.req.header('range') ?? '' },
      headers: { 'Content-Range': `bytes */${asset.size}` },
    });
  }
  const { start, end } = range ?? { start: 0, end: asset.size - 1 };
  const bytes = Readable.toWeb(Readable.from(await readAsset(deps, asset, start, end))) as ReadableStream<Uint8Array>;
  headers['Content-Length'] = String(end - start + 1);
  if (range !== undefined) headers['Content-Range'] = `bytes ${start}-${end}/${asset.size}`;
  return new Response(bytes, { status: range === undefined ? 200 : 206, headers });
}
