/** Source mode of src/runtime/assets.ts; inside the executable it is exercised by test/bin. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assetPath, isSingleExecutable, readAsset } from '../../src/runtime/assets.js';

const root = join(import.meta.dirname, '..', '..');

describe('runtime assets from source', () => {
  it('reads keys relative to the package root, dependencies through node_modules lookup', () => {
    expect(isSingleExecutable()).toBe(false);
    expect(readAsset('package.json').equals(readFileSync(join(root, 'package.json')))).toBe(true);
    expect(assetPath('src/db/migrations/sqlite')).toBe(join(root, 'src', 'db', 'migrations', 'sqlite'));
    expect(existsSync(assetPath('node_modules/swagger-ui-dist/swagger-ui.css'))).toBe(true);
  });

  it('names the dependency it cannot find', () => {
    expect(() => assetPath('node_modules/@idp/not-installed/file.js')).toThrow('dependency @idp/not-installed not found');
  });
});
