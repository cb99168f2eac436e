#!/usr/bin/env node
// The program is dist/bundle/idp.js, the ESM bundle `npm run build` writes (scripts/build-bundle.js):
// a handful of files to load instead of the ~900 modules of dist/ and node_modules.
import { main } from '../dist/bundle/idp.js';

process.exitCode = await main(process.argv);
