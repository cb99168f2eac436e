// The baseline the data targets are set against (docs/benchmarks.md): a bare hono + better-sqlite3
// endpoint with no authentication, no permission checks and no envelope. GET /pets/:name is one
// point select by primary key, POST /items one single-row insert of the posted JSON, on a WAL-mode
// file like idp's. Started by bench/run.js (`get-entity`, `create-entity`), which loads it exactly
// as it loads idp, so the two figures are taken on the same machine in the same minute.
// POST /connect/token is the token endpoint's limit: a bare hono + jose client_credentials endpoint
// (HTTP Basic client, secret compared in constant time, an RFC 9068 access token signed ES256),
// with no database, scopes, audit or anything else (`token`).
// Usage: node bench/bare-server.js DB_FILE [CLIENT_ID CLIENT_SECRET]   (prints `listening on URL`)
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { SignJWT, generateKeyPair } from 'jose';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import Database from 'better-sqlite3';

const db = new Database(process.argv[2]);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec('create table if not exists entities (uuid text primary key, name text unique, properties text not null, created integer not null)');
const insert = db.prepare('insert into entities (uuid, name, properties, created) values (?, ?, ?, ?)');
const byName = db.prepare('select uuid, name, properties, created from entities where name = ?');

const app = new Hono();
app.get('/pets/:name', (c) => {
  const row = byName.get(c.req.param('name'));
  if (!row) return c.json({ error: 'not found' }, 404);
  return c.json({ entities: [{ uuid: row.uuid, name: row.name, created: row.created, ...JSON.parse(row.properties) }] });
});
app.post('/items', async (c) => {
  const body = await c.req.json();
  const entity = { uuid: randomUUID(), name: body.name, created: Date.now() };
  insert.run(entity.uuid, entity.name, JSON.stringify(body), entity.created);
  return c.json({ entities: [{ ...entity, ...body }] });
});
app.post('/pets', async (c) => {
  const body = await c.req.json();
  insert.run(randomUUID(), body.name, JSON.stringify(body), Date.now());
  return c.json({ ok: true });
});

const [clientId = 'bench-client', clientSecret = 'bench-secret'] = process.argv.slice(3);
const { privateKey } = await generateKeyPair('ES256');
const expected = Buffer.from(`${clientId}:${clientSecret}`);
app.post('/connect/token', async (c) => {
  const form = new URLSearchParams(await c.req.text());
  const given = Buffer.from(
    Buffer.from((c.req.header('authorization') ?? '').replace(/^Basic /, ''), 'base64')
      .toString()
      .split(':')
      .map(decodeURIComponent)
      .join(':'),
  );
  if (form.get('grant_type') !== 'client_credentials' || given.length !== expected.length || !timingSafeEqual(given, expected))
    return c.json({ error: 'invalid_client' }, 401);
  const accessToken = await new SignJWT({ client_id: clientId, scope: form.get('scope') ?? 'api', jti: randomUUID() })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k' })
    .setIssuer('http://127.0.0.1')
    .setSubject(clientId)
    .setAudience('urn:idp:api')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);
  c.header('cache-control', 'no-store');
  return c.json({ access_token: accessToken, token_type: 'Bearer', expires_in: 3600, scope: form.get('scope') ?? 'api' });
});

serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => console.log(`listening on http://127.0.0.1:${info.port}`));
