/**
 * The files the program reads at run time — migrations, page assets, package.json, and a few
 * files of dependencies (Swagger UI, the SQLite addon) — addressed by their path from the package
 * root: `src/db/migrations/sqlite`, `package.json`, `node_modules/swagger-ui-dist/swagger-ui.css`.
 *
 * Run from source or from dist/, a key is a file on disk. Inside the single executable built by
 * scripts/build-bin.js, every key is a SEA asset (node:sea), and no source tree exists; where a
 * library insists on a real path (drizzle's migrator wants a folder, dlopen wants a file), the
 * asset is written once to a private, content-addressed cache and that path is returned.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

type Sea = typeof import('node:sea');

/** The asset that lists every other asset with its SHA-256; written by scripts/build-bin.js. */
export const MANIFEST_KEY = 'idp:manifest';

interface Manifest {
  files: Record<string, string>;
}

// node:sea exists on every Node idp supports (22 and later); the check keeps others working.
const sea: Sea | undefined = isBuiltin('node:sea') ? (createRequire(import.meta.url)('node:sea') as Sea) : undefined;

let manifest: Manifest | undefined;
let packageRoot: string | undefined;

/** Whether this process is the single executable (its assets live in the binary, not on disk). */
export function isSingleExecutable(): boolean {
  return embedded() !== undefined;
}

/** The bytes of one file, e.g. `readAsset('package.json')`. */
export function readAsset(key: string): Buffer {
  const blob = embedded();
  if (!blob) return readFileSync(findSourcePath(key));
  assertEmbedded(blob, key, [key]);
  return Buffer.from(blob.getAsset(key));
}

/** Whether `key` names a file this program has (built files may be missing from a checkout). */
export function hasAsset(key: string): boolean {
  const blob = embedded();
  if (!blob) return existsSync(findSourcePath(key));
  return key in readManifest(blob).files;
}

/**
 * A filesystem path for a file or a folder of assets, for libraries that open paths themselves.
 * From source: where it is. In the executable: a copy under the cache, made on first use.
 */
export function assetPath(key: string): string {
  const blob = embedded();
  if (!blob) return findSourcePath(key);
  const files = Object.entries(readManifest(blob).files).filter(([name]) => name === key || name.startsWith(`${key}/`));
  assertEmbedded(
    blob,
    key,
    files.map(([name]) => name),
  );
  // The folder name is a digest of names and contents, so a new build never reuses an old copy
  // and an existing copy is complete: it only ever appears through the rename below.
  const digest = createHash('sha256');
  for (const [name, hash] of files) digest.update(`${name}\0${hash}\n`);
  const target = join(cacheRoot(), digest.digest('hex').slice(0, 24));
  if (!existsSync(target))
    extract(
      blob,
      target,
      key,
      files.map(([name]) => name),
    );
  return join(target, basename(key));
}

function embedded(): Sea | undefined {
  return sea?.isSea() ? sea : undefined;
}

function readManifest(blob: Sea): Manifest {
  manifest ??= JSON.parse(blob.getAsset(MANIFEST_KEY, 'utf8')) as Manifest;
  return manifest;
}

function assertEmbedded(blob: Sea, key: string, names: string[]): void {
  const files = readManifest(blob).files;
  if (names.length === 0 || names.some((name) => !(name in files))) {
    throw new Error(`${key} is not inside this executable; scripts/build-bin.js decides which files are embedded`);
  }
}

function extract(blob: Sea, target: string, key: string, names: string[]): void {
  const staging = `${target}.${process.pid}-${randomBytes(4).toString('hex')}`;
  const base = dirname(key);
  try {
    for (const name of names) {
      const file = join(staging, base === '.' ? name : name.slice(base.length + 1));
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      writeFileSync(file, Buffer.from(blob.getAsset(name)), { mode: 0o600 });
    }
    renameSync(staging, target);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Another process extracted the same digest first; its copy is identical.
    if (existsSync(target)) return;
    throw error;
  }
}

/**
 * A per-user folder under the temporary directory. The addon found there is loaded into this
 * process, so it must be ours alone: anything else in a shared /tmp could be a planted file.
 */
function cacheRoot(): string {
  const uid = process.getuid?.();
  const root = join(tmpdir(), `idp-${uid ?? 'user'}`);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const stat = lstatSync(root);
  if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o077) !== 0) {
    throw new Error(`${root} must be a directory owned by this user with mode 0700; set TMPDIR to use another place`);
  }
  return root;
}

/** `node_modules/<package>/…` keys follow Node's lookup upwards, so hoisted dependencies are found. */
function findSourcePath(key: string): string {
  const root = findPackageRoot();
  if (!key.startsWith('node_modules/')) return join(root, key);
  const parts = key.split('/');
  const nameLength = parts[1].startsWith('@') ? 2 : 1;
  const name = parts.slice(1, 1 + nameLength).join('/');
  const rest = parts.slice(1 + nameLength);
  for (let dir = root; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(candidate)) return join(candidate, ...rest);
    if (dirname(dir) === dir) throw new Error(`dependency ${name} not found from ${root}`);
  }
}

/** The folder holding idp's package.json: above src/runtime from source, above dist/src/runtime compiled. */
function findPackageRoot(): string {
  if (packageRoot) return packageRoot;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'idp') {
      packageRoot = dir;
      return dir;
    }
    if (dirname(dir) === dir) throw new Error(`idp's package.json not found above ${fileURLToPath(import.meta.url)}`);
  }
}
