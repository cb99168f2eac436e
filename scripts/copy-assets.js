// Copies what tsc does not emit (SQL migrations, page assets and locales) next to the compiled
// modules in dist/.
import { cpSync } from 'node:fs';

cpSync('src/db/migrations', 'dist/src/db/migrations', { recursive: true });
cpSync('server/pages/assets', 'dist/server/pages/assets', { recursive: true });
cpSync('server/pages/locales', 'dist/server/pages/locales', { recursive: true });
