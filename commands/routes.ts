/**
 * `idp routes`: every route the server answers — method, path and the file that declares it —
 * read from the route table itself (server/app.ts), most specific first, as requests are matched.
 */
import type { Command } from 'commander';
import { actLocal, examples } from './client/run.js';

export function register(noun: Command): void {
  examples(
    noun.description('list every HTTP route: method, path and the file that declares it').action(
      actLocal(async () => {
        const [{ AREAS }, { listRoutes }] = await Promise.all([import('../server/app.js'), import('../server/route-table.js')]);
        const rows = listRoutes(AREAS);
        return { json: rows, view: { kind: 'table', columns: [{ key: 'method' }, { key: 'path' }, { key: 'file' }], rows } };
      }),
    ),
    'idp routes',
    'idp routes --json | jq -r \'.[] | select(.path | startswith("/management")) | .path\'',
  );
}
