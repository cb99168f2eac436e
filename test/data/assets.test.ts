/**
 * Files attached to entities (docs/api.md#assets): multipart uploads that create or update an
 * entity, the bytes back by the Accept header with ranges and validators, the size limit, and
 * removal with the entity, in the database and in a folder.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { APP, appUser, createDataTest, type DataTest } from './setup.js';
import { expectRefusal, expectRefusedUnchanged, type TestResponse } from '../helpers.js';
import { ASSET_CHUNK_SIZE } from '../../src/data/assets.js';

let d: DataTest;
let folder: string | undefined;
afterEach(async () => {
  await d.t.close();
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
  folder = undefined;
});

/** Every byte value, twice: no text encoding survives it unchanged by accident. */
const EVERY_BYTE = Buffer.from([...Array(512).keys()].map((i) => i % 256));
const PNG_HEAD = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');

function form(file: Buffer | undefined, fields: Record<string, string> = {}, filename = 'upload.bin'): FormData {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  if (file !== undefined) body.append('file', new Blob([new Uint8Array(file)], { type: 'text/html' }), filename);
  return body;
}

function upload(method: string, path: string, file: Buffer | undefined, fields: Record<string, string> = {}, token = d.admin): Promise<TestResponse> {
  return d.t.request(method, `${APP}${path}`, { body: form(file, fields), token });
}

/** The entity's bytes as `token`'s holder (null: no token) asks for them. */
async function download(path: string, headers: Record<string, string> = {}, token: string | null = d.admin) {
  const res = await d.t.send(`${APP}${path}`, {
    headers: { accept: 'application/octet-stream', ...(token && { authorization: `Bearer ${token}` }), ...headers },
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

async function countRows(table: string): Promise<number> {
  const [row] = await d.t.deps.db.$client.query<{ n: number | string }>(`select count(*) as n from ${table}`);
  return Number(row!.n);
}

describe('assets in the database', () => {
  it('a multipart POST creates the entity from its fields and attaches the file, described in file-metadata', async () => {
    d = await createDataTest();
    const res = await upload('POST', '/dogs', EVERY_BYTE, { name: 'rex', color: 'brown' });
    expect(res.status, res.text).toBe(200);
    const dog = res.body.entities[0];
    expect(dog).toMatchObject({ type: 'dog', name: 'rex', color: 'brown' });
    expect(dog['file-metadata']).toEqual({
      'content-type': 'application/octet-stream',
      'content-length': EVERY_BYTE.length,
      checksum: md5(EVERY_BYTE),
      etag: `"${md5(EVERY_BYTE)}"`,
      'last-modified': expect.any(Number),
    });
    const got = await download('/dogs/rex');
    expect(got.status).toBe(200);
    expect(got.bytes.equals(EVERY_BYTE)).toBe(true);
    expect(got.headers.get('content-length')).toBe(String(EVERY_BYTE.length));
    expect(got.headers.get('etag')).toBe(`"${md5(EVERY_BYTE)}"`);
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    expect(got.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''rex");
    expect(got.headers.get('accept-ranges')).toBe('bytes');
  });

  it('GET without Accept, with JSON or */* still answers the envelope', async () => {
    d = await createDataTest();
    await upload('POST', '/dogs', EVERY_BYTE, { name: 'rex' });
    for (const accept of [undefined, 'application/json', '*/*', 'application/json, */*;q=0.8', 'application/octet-stream;q=0.5, application/json']) {
      const res = await d.t.request('GET', `${APP}/dogs/rex`, { token: d.admin, headers: accept === undefined ? {} : { accept } });
      expect(res.status, accept).toBe(200);
      expect(res.body.entities[0]['file-metadata']['content-length'], accept).toBe(EVERY_BYTE.length);
    }
  });

  it('streams a file of several chunks back whole and by range; 416 past its end; 304 for a current copy', async () => {
    d = await createDataTest();
    const big = randomBytes(ASSET_CHUNK_SIZE * 5 + 1234);
    expect((await upload('POST', '/dogs', big, { name: 'rex' })).status).toBe(200);
    expect(await countRows('asset_chunks')).toBe(6);
    expect((await download('/dogs/rex')).bytes.equals(big)).toBe(true);

    const across = await download('/dogs/rex', { range: `bytes=${ASSET_CHUNK_SIZE - 10}-${2 * ASSET_CHUNK_SIZE + 9}` });
    expect(across.status).toBe(206);
    expect(across.headers.get('content-range')).toBe(`bytes ${ASSET_CHUNK_SIZE - 10}-${2 * ASSET_CHUNK_SIZE + 9}/${big.length}`);
    expect(across.bytes.equals(big.subarray(ASSET_CHUNK_SIZE - 10, 2 * ASSET_CHUNK_SIZE + 10))).toBe(true);
    const suffix = await download('/dogs/rex', { range: 'bytes=-100' });
    expect(suffix.status).toBe(206);
    expect(suffix.bytes.equals(big.subarray(big.length - 100))).toBe(true);
    const open = await download('/dogs/rex', { range: `bytes=${big.length - 5}-` });
    expect(open.bytes.equals(big.subarray(big.length - 5))).toBe(true);

    const past = await d.t.request('GET', `${APP}/dogs/rex`, {
      token: d.admin,
      headers: { accept: 'application/octet-stream', range: `bytes=${big.length}-` },
    });
    expectRefusal(past, 416, 'range_not_satisfiable');
    expect(past.headers.get('content-range')).toBe(`bytes */${big.length}`);

    const etag = `"${md5(big)}"`;
    const current = await download('/dogs/rex', { 'if-none-match': etag });
    expect(current.status).toBe(304);
    expect(current.bytes.length).toBe(0);
    expect((await download('/dogs/rex', { 'if-none-match': '"other"' })).status).toBe(200);
    // A range of a copy that changed since is answered whole.
    expect((await download('/dogs/rex', { range: 'bytes=0-9', 'if-range': '"other"' })).status).toBe(200);
  });

  it('attaches to an existing entity by POST and PUT; a new file replaces the bytes and the old chunks go', async () => {
    d = await createDataTest();
    await d.t.request('POST', `${APP}/dogs`, { json: { name: 'rex', age: 3 }, token: d.admin });
    const first = randomBytes(ASSET_CHUNK_SIZE + 1);
    const posted = await upload('POST', '/dogs/rex', first);
    expect(posted.status, posted.text).toBe(200);
    expect(posted.body.entities[0]).toMatchObject({ name: 'rex', age: 3, 'file-metadata': { 'content-length': first.length } });
    expect(await countRows('asset_chunks')).toBe(2);

    const second = Buffer.from('a short one');
    const put = await upload('PUT', '/dogs/rex', second, { color: 'black' });
    expect(put.status, put.text).toBe(200);
    expect(put.body.entities[0]).toMatchObject({ age: 3, color: 'black', 'file-metadata': { 'content-length': second.length, checksum: md5(second) } });
    expect((await download('/dogs/rex')).bytes.equals(second)).toBe(true);
    expect(await countRows('asset_chunks')).toBe(1);
    expect(await countRows('assets')).toBe(1);

    // file-metadata is the upload's to write: a JSON PUT that sends it back changes nothing of it.
    const saved = await d.t.request('PUT', `${APP}/dogs/rex`, { json: { 'file-metadata': { 'content-length': 1 }, age: 4 }, token: d.admin });
    expect(saved.body.entities[0]['file-metadata']['content-length']).toBe(second.length);
  });

  it('sniffs the type from the bytes, never from the upload; a page is served as an attachment that cannot run', async () => {
    d = await createDataTest();
    await upload('POST', '/pictures', PNG_HEAD, { name: 'dot' });
    const png = await download('/pictures/dot', { accept: 'image/png' });
    expect(png.headers.get('content-type')).toBe('image/png');

    const page = Buffer.from('<html><body><script>alert(document.cookie)</script></body></html>');
    const created = await upload('POST', '/pages', page, { name: 'evil' });
    expect(created.body.entities[0]['file-metadata']['content-type']).toBe('application/octet-stream');
    const served = await download('/pages/evil', { accept: 'text/html' });
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('application/octet-stream');
    expect(served.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(served.headers.get('content-security-policy')).toContain('sandbox');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('refuses a file over --max-asset-size with 413, storing neither the entity nor any byte', async () => {
    d = await createDataTest({ maxAssetSize: ASSET_CHUNK_SIZE + 10 });
    await d.t.request('POST', `${APP}/dogs`, { json: { name: 'rex' }, token: d.admin });
    const tooBig = randomBytes(ASSET_CHUNK_SIZE * 2);
    const res = await expectRefusedUnchanged(d.t, () => upload('POST', '/dogs', tooBig, { name: 'fido' }), 413, 'payload_too_large');
    expect(res.body.error_description).toContain(String(ASSET_CHUNK_SIZE + 10));
    await expectRefusedUnchanged(d.t, () => upload('PUT', '/dogs/rex', tooBig), 413, 'payload_too_large');
    expect((await upload('POST', '/dogs', randomBytes(ASSET_CHUNK_SIZE + 10), { name: 'fido' })).status).toBe(200);
  });

  it('takes a file larger than the JSON body limit; JSON keeps its limit', async () => {
    d = await createDataTest();
    const large = randomBytes(d.t.deps.config.bodyLimit + 1000);
    expect((await upload('POST', '/dogs', large, { name: 'rex' })).status).toBe(200);
    expect((await download('/dogs/rex')).bytes.equals(large)).toBe(true);
    const json = await d.t.request('POST', `${APP}/dogs`, { json: { name: 'big', text: 'x'.repeat(d.t.deps.config.bodyLimit) }, token: d.admin });
    expectRefusal(json, 413, 'payload_too_large');
  });

  it('refuses a bad upload unchanged: a second file, a file under another name, a name already taken', async () => {
    d = await createDataTest();
    await d.t.request('POST', `${APP}/dogs`, { json: { name: 'rex' }, token: d.admin });
    const two = form(EVERY_BYTE, { name: 'fido' });
    two.append('file', new Blob([new Uint8Array(EVERY_BYTE)]), 'again.bin');
    await expectRefusedUnchanged(d.t, () => d.t.request('POST', `${APP}/dogs`, { body: two, token: d.admin }), 400, 'illegal_argument');
    const other = new FormData();
    other.append('photo', new Blob([new Uint8Array(EVERY_BYTE)]), 'x.bin');
    await expectRefusedUnchanged(d.t, () => d.t.request('POST', `${APP}/dogs`, { body: other, token: d.admin }), 400, 'illegal_argument');
    await expectRefusedUnchanged(d.t, () => upload('POST', '/dogs', EVERY_BYTE, { name: 'rex' }), 400, 'duplicate_unique_property_exists');
    const broken = { 'content-type': 'multipart/form-data; boundary=xyz' };
    await expectRefusedUnchanged(
      d.t,
      () => d.t.request('POST', `${APP}/dogs`, { body: '--xyz\r\nnot a part', headers: broken, token: d.admin }),
      400,
      'bad_request',
    );
  });

  it('deleting the entity deletes its asset; an entity without one has no bytes to give', async () => {
    d = await createDataTest();
    await upload('POST', '/dogs', randomBytes(ASSET_CHUNK_SIZE * 2 + 1), { name: 'rex' });
    await upload('POST', '/dogs', EVERY_BYTE, { name: 'fido' });
    expect(await countRows('asset_chunks')).toBe(4);
    expect((await d.t.request('DELETE', `${APP}/dogs/rex`, { token: d.admin })).status).toBe(200);
    expect(await countRows('asset_chunks')).toBe(1);
    expect((await d.t.request('DELETE', `${APP}/dogs?ql=${encodeURIComponent("name = 'fido'")}`, { token: d.admin })).status).toBe(200);
    expect(await countRows('asset_chunks')).toBe(0);
    expect(await countRows('assets')).toBe(0);

    await d.t.request('POST', `${APP}/dogs`, { json: { name: 'plain' }, token: d.admin });
    const none = await d.t.request('GET', `${APP}/dogs/plain`, { token: d.admin, headers: { accept: 'application/octet-stream' } });
    expectRefusal(none, 404, 'entity_not_found');
  });

  it('reading needs the permission to read the entity, writing the permission to write it', async () => {
    d = await createDataTest();
    await upload('POST', '/dogs', EVERY_BYTE, { name: 'rex' });
    expect((await download('/dogs/rex', {}, null)).status).toBe(401);
    const fred = await appUser(d, 'fred');
    // The default role reads everything and writes only the user's own records.
    expect((await download('/dogs/rex', {}, fred.token)).bytes.equals(EVERY_BYTE)).toBe(true);
    await expectRefusedUnchanged(d.t, () => upload('POST', '/dogs/rex', Buffer.from('mine now'), {}, fred.token), 403, 'forbidden');
    await expectRefusedUnchanged(d.t, () => upload('POST', '/dogs', Buffer.from('new'), { name: 'spot' }, fred.token), 403, 'forbidden');
    expect((await upload('POST', '/users/me', Buffer.from('avatar'), {}, fred.token)).status).toBe(200);
    expect((await download('/users/fred', {}, fred.token)).bytes.toString()).toBe('avatar');
  });

  it('POST on an entity takes only an upload', async () => {
    d = await createDataTest();
    await d.t.request('POST', `${APP}/dogs`, { json: { name: 'rex' }, token: d.admin });
    await expectRefusedUnchanged(d.t, () => d.t.request('POST', `${APP}/dogs/rex`, { json: { age: 1 }, token: d.admin }), 415, 'unsupported_media_type');
  });
});

describe('assets in --assets-dir', () => {
  it('keeps the bytes in a file named by uuid, serves them, and removes it with the entity or a refusal', async () => {
    folder = await mkdtemp(join(tmpdir(), 'idp-assets-'));
    d = await createDataTest({ assetsDir: folder, maxAssetSize: ASSET_CHUNK_SIZE * 3 });
    const big = randomBytes(ASSET_CHUNK_SIZE * 2 + 7);
    const res = await upload('POST', '/dogs', big, { name: 'rex' });
    expect(res.status, res.text).toBe(200);
    expect(await countRows('asset_chunks')).toBe(0);
    const files = await readdir(folder);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect((await download('/dogs/rex')).bytes.equals(big)).toBe(true);
    const range = await download('/dogs/rex', { range: 'bytes=10-19' });
    expect(range.bytes.equals(big.subarray(10, 20))).toBe(true);

    await expectRefusedUnchanged(d.t, () => upload('POST', '/dogs', randomBytes(ASSET_CHUNK_SIZE * 4), { name: 'fido' }), 413, 'payload_too_large');
    expect(await readdir(folder)).toEqual(files);

    const replaced = await upload('PUT', '/dogs/rex', EVERY_BYTE);
    expect(replaced.status).toBe(200);
    expect(await readdir(folder)).toHaveLength(1);
    expect(await readdir(folder)).not.toEqual(files);
    expect((await download('/dogs/rex')).bytes.equals(EVERY_BYTE)).toBe(true);

    expect((await d.t.request('DELETE', `${APP}/dogs/rex`, { token: d.admin })).status).toBe(200);
    expect(await readdir(folder)).toEqual([]);
    expect(await countRows('assets')).toBe(0);
  });
});
