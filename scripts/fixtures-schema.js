// Writes fixtures/schema.json from the zod definitions (src/fixtures/format.ts) in dist/;
// `npm run fixtures:schema` builds first. test/cli/fixtures.test.ts checks it is up to date.
import { writeFileSync } from 'node:fs';
import { fixturesJsonSchema } from '../dist/src/fixtures/format.js';

writeFileSync(new URL('../fixtures/schema.json', import.meta.url), `${JSON.stringify(fixturesJsonSchema(), null, 2)}\n`);
