/** The issuer: `--issuer`, else the address the server listens on (what tokens carry as `iss`). */
import type { Deps } from '../deps.js';

export function issuerOf(deps: Deps): string {
  return deps.config.issuer ?? `http://${deps.config.host}:${deps.config.port}`;
}
