// Copies what tsc does not emit (SQL migrations) next to the compiled modules in dist/.
import { cpSync } from 'node:fs';

cpSync('src/db/migrations', 'dist/src/db/migrations', { recursive: true });
