// What the two esbuild builds of the program share: scripts/build-bundle.js (the ESM bundle that
// bin/idp.js runs, part of `npm run build`) and scripts/build-bin.js (the CommonJS bundle inside
// the single executable). Each adds only what its form needs: format, output, banner.
import { readFileSync } from 'node:fs';
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
        errors: [{ text: `${toKey(args.path)} uses import.meta, which points into the bundle at run time; read files with readAsset/assetPath from src/runtime/assets.ts` }],
      };
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
    plugins: [guardImportMeta],
    legalComments: 'none',
    logLevel: quiet ? 'error' : 'warning',
  };
}
