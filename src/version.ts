import { readAsset } from './runtime/assets.js';

/** The package version, reported by GET /status and `idp --version`. */
export const VERSION: string = (JSON.parse(readAsset('package.json').toString('utf8')) as { version: string }).version;
