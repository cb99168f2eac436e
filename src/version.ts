import { readFileSync } from 'node:fs';

/**
 * The package version, reported by GET /status and `idp --version`. Found by walking up from
 * this module, which sits at src/ when run from source and at dist/src/ when compiled.
 */
function readVersion(): string {
  for (const relative of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'idp' && pkg.version) return pkg.version;
    } catch {
      // Not at this level; try the next one up.
    }
  }
  return '0.0.0';
}

export const VERSION: string = readVersion();
