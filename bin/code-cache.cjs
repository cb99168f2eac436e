'use strict';
/**
 * Runs a CommonJS file with a V8 code cache beside it (FILE.cache), so that V8 neither parses the
 * file nor compiles again the functions the cache holds. `idp serve` starts this way from
 * dist/bundle/serve.cjs (see bin/idp.js): without the cache V8 spends about a third of the start
 * compiling the server's 1.4 MB of JavaScript. Node 22 also offers module.enableCompileCache(),
 * a cache on disk for every module; this one is made by the build and checked against its file.
 *
 * The cache is written by `npm run build` (scripts/build-bundle.js starts the server once with
 * IDP_WRITE_CODE_CACHE=1, and this module writes the cache as that process exits, so it holds
 * every function compiled while starting and stopping). It is used only for the very file it was
 * made from: its first 16 bytes are that file's modification time and size, checked before V8
 * sees the rest (V8 itself checks only the source's length). A cache that is missing, stale or
 * refused by V8 (another Node version, other V8 flags) costs the start its speed, nothing else.
 *
 * The fast path for start-up, measured on 2026-11-24 against the ES module bundle without a cache
 * (`cold-start` scenario, 3 interleaved runs of 7 starts each,
 * docs/benchmarks.md#speed-ups-and-their-figures): median 280 vs 336 ms from spawn to listening,
 * 133 vs 177 ms of CPU. Only bin/idp.js uses it.
 */
const { closeSync, fstatSync, openSync, readFileSync, readSync, renameSync, statSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { dirname } = require('node:path');
const vm = require('node:vm');

const HEADER_BYTES = 16;

/** The cache's header: the source file's mtime and size, each a float64. */
function headerOf(stat) {
  const bytes = Buffer.alloc(HEADER_BYTES);
  bytes.writeDoubleLE(stat.mtimeMs, 0);
  bytes.writeDoubleLE(stat.size, 8);
  return bytes;
}

/** The cached code for `stat`'s file: `{ data }`, or `{ cache: 'absent' | 'stale' }` without one. */
function readCache(cacheFile, stat) {
  let bytes;
  try {
    bytes = readFileSync(cacheFile);
  } catch {
    return { cache: 'absent' };
  }
  if (bytes.length <= HEADER_BYTES || !bytes.subarray(0, HEADER_BYTES).equals(headerOf(stat))) return { cache: 'stale' };
  return { data: bytes.subarray(HEADER_BYTES) };
}

/**
 * Whether `file` has a cache made from this very version of it (the header matches), without
 * reading the cache itself. V8 may still refuse it (another Node version); that shows only when
 * the file is compiled.
 */
function hasCodeCache(file) {
  let stat;
  const header = Buffer.alloc(HEADER_BYTES);
  try {
    stat = statSync(file);
    const fd = openSync(`${file}.cache`, 'r');
    try {
      if (readSync(fd, header, 0, HEADER_BYTES, 0) < HEADER_BYTES) return false;
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
  return header.equals(headerOf(stat));
}

/**
 * Runs `file` as a CommonJS module and returns its exports, and `cache`: `accepted` (V8 used the
 * cache), `rejected` (V8 refused it), `stale` (made from another version of the file) or `absent`.
 * With `writeCache`, the cache is (re)written when the process exits.
 */
function loadWithCodeCache(file, { writeCache = false } = {}) {
  const cacheFile = `${file}.cache`;
  const fd = openSync(file, 'r');
  let source;
  let stat;
  try {
    stat = fstatSync(fd);
    source = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
  const found = readCache(cacheFile, stat);
  const cachedData = found.data;
  const script = new vm.Script(Module.wrap(source), {
    filename: file,
    cachedData,
    importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const cache = cachedData ? (script.cachedDataRejected ? 'rejected' : 'accepted') : found.cache;

  if (writeCache) {
    process.once('exit', () => {
      // A whole file or none: the next start never reads half a cache.
      const partial = `${cacheFile}.${process.pid}.partial`;
      writeFileSync(partial, Buffer.concat([headerOf(stat), script.createCachedData()]));
      renameSync(partial, cacheFile);
    });
  }
  const module = { exports: {}, filename: file, id: file, loaded: false };
  script.runInThisContext().call(module.exports, module.exports, Module.createRequire(file), module, file, dirname(file));
  module.loaded = true;
  return { exports: module.exports, cache };
}

module.exports = { hasCodeCache, loadWithCodeCache };
