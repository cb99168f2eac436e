/** The issuer: `--issuer`, else the address the server listens on (what tokens carry as `iss`). */
import { issuerUrl } from '../config.js';
import type { Deps } from '../deps.js';

export const issuerOf = (deps: Deps): string => issuerUrl(deps.config);
