// npm's `prepare` script: `npm ci` and `npm install` build dist/ with it (`npm run build`).
// npm also runs `prepare` when it installs this checkout as a link to put `idp` on a PATH: the
// first `npx idp` in a checkout (a link in npx's cache) and `npm link`. Those run the checkout as
// it is, so a built checkout is not built again there: a build rewrites the dist/ that idp
// commands already running read, and takes seconds before the command even starts. After
// changing the source, `npm run build`.
// Usage: node scripts/prepare.js (npm sets npm_command to the command that runs it)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const LINKING = new Set(['exec', 'link']);
const built = existsSync(join(root, 'dist', 'bundle', 'idp.js'));

if (!(built && LINKING.has(process.env.npm_command ?? ''))) {
  const npm = process.env.npm_execpath;
  const [command, args] = npm ? [process.execPath, [npm, 'run', 'build']] : ['npm', ['run', 'build']];
  process.exitCode = spawnSync(command, args, { cwd: root, stdio: 'inherit' }).status ?? 1;
}
