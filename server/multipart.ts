/**
 * A multipart/form-data upload read as it arrives (busboy): the form fields as a FormValue, and
 * the one file part handed to `store` as a stream while the request is still coming in, so a
 * file is never whole in memory (hono's parseBody and `Request.formData()` buffer the body).
 * request-input.ts reads the small forms of other routes.
 */
import { Readable } from 'node:stream';
import busboy from 'busboy';
import type { Context } from 'hono';
import type { Env } from './env.js';
import { addFormValue, type FormValue } from './request-input.js';
import { BadRequest, IllegalArgument, PayloadTooLarge } from '../src/errors.js';

export interface Upload<T> {
  readonly fields: FormValue;
  /** What `store` made of the file part, when there was one. */
  readonly file?: T;
}

/** How an upload's file is kept: `store` writes it, `discard` removes it again when the request fails after all. */
export interface FileStore<T> {
  /** The name of the one part that may hold a file. */
  readonly field: string;
  store(bytes: Readable): Promise<T>;
  discard(file: T): Promise<void>;
}

const NOT_MULTIPART = 'the request body is not a valid multipart/form-data body';

/**
 * Reads the request's multipart body: its fields within the JSON limits (as many fields as an
 * object may have keys, each no longer than the body limit), and at most one file, in the part
 * `files.field`. Whatever fails, a file already stored is discarded before this throws.
 * @throws 400 `bad_request` for a body that does not parse, `illegal_argument` for another file
 * part; 413 past a limit (the store's own, such as the asset size, included).
 */
export async function readUpload<T>(c: Context<Env>, files: FileStore<T>): Promise<Upload<T>> {
  const { bodyLimit, json } = c.get('deps').config;
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': c.req.header('content-type') },
      defParamCharset: 'utf8',
      limits: { fields: json.maxKeys, fieldNameSize: json.maxKeyLength, fieldSize: bodyLimit, files: 1 },
    });
  } catch {
    throw BadRequest(NOT_MULTIPART);
  }
  const body = c.req.raw.body;
  const input = body === null ? Readable.from([]) : Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>);
  const fields: FormValue = Object.create(null);
  let stored: Promise<T> | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      // The rest of the body is read and dropped, as Node's server would before the next request
      // on the connection; cancelling it instead leaves some senders enqueuing into a closed stream.
      const fail = (error: unknown) => {
        reject(error);
        input.unpipe(parser);
        input.resume();
        parser.destroy(error instanceof Error ? error : undefined);
      };
      const unexpectedFile = (name: string, stream?: Readable) => {
        stream?.on('error', () => undefined).resume();
        fail(IllegalArgument(`send one file, in the form field '${files.field}'`, { fields: { [name]: 'unexpected file' } }));
      };
      parser.on('field', (name, value, info) => {
        if (info.nameTruncated || info.valueTruncated) return fail(PayloadTooLarge(`a form field is longer than the limit of ${bodyLimit} bytes`));
        addFormValue(fields, name, value);
      });
      parser.on('file', (name, stream) => {
        if (name !== files.field) return unexpectedFile(name, stream);
        stored = files.store(stream);
        stored.catch(fail);
      });
      parser.on('filesLimit', () => unexpectedFile(files.field));
      parser.on('fieldsLimit', () => fail(PayloadTooLarge(`the form has more than the limit of ${json.maxKeys} fields`)));
      parser.on('error', () => fail(BadRequest(NOT_MULTIPART)));
      // The body limit's 413 (server/middleware/body-limit.ts), or a client that went away.
      input.on('error', fail);
      parser.on('close', resolve);
      input.pipe(parser);
    });
    return { fields, file: await stored };
  } catch (error) {
    // A store that failed removed what it wrote; one that finished is undone here.
    const file = await stored?.catch(() => undefined);
    if (file !== undefined) await files.discard(file);
    throw error;
  }
}
