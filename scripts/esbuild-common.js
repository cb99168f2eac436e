// What the two esbuild builds of the program share: scripts/build-bundle.js (the ESM bundle that
// bin/idp.js runs, part of `npm run build`) and scripts/build-bin.js (the CommonJS bundle inside
// the single executable). Each adds only what its form needs: format, output, banner.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** The program's entry: commands/index.ts exports main(argv). */
export const ENTRY = join(root, 'commands', 'index.ts');

// The one module allowed to know where it sits on disk; see guardImportMeta below.
const ASSETS_MODULE = join(root, 'src', 'runtime', 'assets.ts');

/** A path relative to the package root, with forward slashes (the key of src/runtime/assets.ts). */
export function toKey(path) {
  return relative(root, path).split(sep).join('/');
}

// A module that finds files next to itself through import.meta.url would look beside the bundle
// (dist/bundle/…, or the executable) at run time and fail there; such reads belong in
// src/runtime/assets.ts, which finds the package root from wherever it is bundled.
const guardImportMeta = {
  name: 'guard-import-meta',
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes(`${sep}node_modules${sep}`) || args.path === ASSETS_MODULE) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!/\bimport\.meta\b/.test(text)) return undefined;
      return {
        errors: [
          {
            text: `${toKey(args.path)} uses import.meta, which points into the bundle at run time; read files with readAsset/assetPath from src/runtime/assets.ts`,
          },
        ],
      };
    });
  },
};

// zod's `locales` namespace (z.locales, z.core.locales) re-exports its messages in some 60
// languages, so every bundle keeps them all: ~370 kB, half of zod, that each start parses. idp
// keeps zod's default English messages (zod's schemas module installs `en` itself), so the
// bundles keep `en` and replace every other locale with a function that says why it is missing.
const LOCALE_LINE = /^export \{ default as (\w+) \} from "\.\/[\w-]+\.js";$/;
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, async (args) => {
      const lines = (await readFile(args.path, 'utf8')).split('\n').filter((line) => line.trim() !== '');
      const names = lines.map((line) => LOCALE_LINE.exec(line)?.[1]);
      if (!names.includes('en') || names.includes(undefined)) {
        return { errors: [{ text: `${toKey(args.path)} is not a list of locale re-exports any more; update zodEnglishOnly in scripts/esbuild-common.js` }] };
      }
      const stubs = names.filter((name) => name !== 'en').map((name) => `export const ${name} = missing(${JSON.stringify(name)});`);
      const contents = [
        'export { default as en } from "./en.js";',
        'const missing = (name) => () => {',
        "  throw new Error(`zod locale ${name} is left out of idp's bundles (scripts/esbuild-common.js)`);",
        '};',
        ...stubs,
      ].join('\n');
      return { contents, loader: 'js' };
    });
  },
};

/**
 * Options both builds start from. Optional native add-ons that a dependency tries to require
 * (pg's pg-native) stay external: they are not installed, and the dependency falls back when
 * loading them fails. `external` lists more for a build that leaves a package to node_modules.
 */
export function commonOptions({ quiet = false, external = [] } = {}) {
  return {
    bundle: true,
    platform: 'node',
    target: `node${process.versions.node.split('.')[0]}`,
    external: ['pg-native', ...external],
    plugins: [guardImportMeta, zodEnglishOnly],
    legalComments: 'none',
    logLevel: quiet ? 'error' : 'warning',
  };
}

/**
 * What a CommonJS bundle of the program adds to commonOptions (dist/bundle/serve.cjs and the
 * single executable's bundle). A SEA's own require loads only built-in modules, and
 * better-sqlite3 requires its addon by path, so the bundle's `require` is made from its own file
 * (the idiom the SEA documentation gives); `import.meta.url` becomes the bundle's file URL, from
 * which src/runtime/assets.ts computes its source-mode location as it does under ESM.
 */
export function commonjsOptions() {
  return {
    format: 'cjs',
    banner: {
      js: "require = require('node:module').createRequire(__filename);\nvar __idp_import_meta_url = require('node:url').pathToFileURL(__filename).href;",
    },
    define: { 'import.meta.url': '__idp_import_meta_url' },
  };
}
