// The baseline issue 4 sets its data targets against: a bare hono + better-sqlite3 endpoint with
// no authentication, no permission checks and no envelope. GET /pets/:name is one point select
// by primary key, POST /items one single-row insert of the posted JSON, on a WAL-mode file like
// idp's. Started by bench/run.js (`get-entity`, `create-entity`), which loads it exactly as it
// loads idp, so the two figures are taken on the same machine in the same minute.
// Usage: node bench/bare-server.js DB_FILE   (prints `listening on URL`)
import { randomUUID } from 'node:crypto';
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

serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => console.log(`listening on http://127.0.0.1:${info.port}`));
