// `npm run db:generate [-- --name NAME]`: turns schema changes into a new versioned migration for
// each database (drizzle-kit), SQLite from src/db/schema.ts and PostgreSQL from
// src/db/schema-postgres.ts (derived from it). PostgreSQL migrations must not name the `public`
// schema: an instance (and each test) may work in a schema of its own (search_path).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);
const kit = join(root, 'node_modules', '.bin', 'drizzle-kit');
execFileSync(kit, ['generate', '--config', 'drizzle.config.ts', ...args], { cwd: root, stdio: 'inherit' });
execFileSync(kit, ['generate', '--config', 'drizzle.postgres.config.ts', ...args], { cwd: root, stdio: 'inherit' });
const folder = join(root, 'src', 'db', 'migrations', 'postgres');
for (const name of readdirSync(folder).filter((file) => file.endsWith('.sql'))) {
  const path = join(folder, name);
  const text = readFileSync(path, 'utf8');
  if (text.includes('"public".')) writeFileSync(path, text.replaceAll('"public".', ''));
}
