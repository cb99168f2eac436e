/**
 * How this process's code was loaded, for the debug log of `idp serve`: bin/idp.js runs the
 * server from dist/bundle/serve.cjs with a V8 code cache (bin/code-cache.cjs) and reports here
 * whether V8 took it. `undefined` when the program was loaded otherwise (the ES module bundle,
 * tsc's output in tests, the single executable).
 */
export type CodeCacheStatus = 'accepted' | 'rejected' | 'stale' | 'absent';

let status: CodeCacheStatus | undefined;

export function setCodeCacheStatus(value: CodeCacheStatus): void {
  status = value;
}

export function codeCacheStatus(): CodeCacheStatus | undefined {
  return status;
}
