/**
 * The `claims` request parameter (OIDC Core 5.5, docs/api.md#claims): single claims asked for the
 * UserInfo endpoint and the ID token, whatever the scope, and the `acr` the sign-in must reach.
 * An `acr` request with `value` or `values` (essential or not) asks for those classes as
 * `acr_values` does, and forces the same step-up (authorize.ts); an essential one that the sign-in
 * cannot reach fails it (5.5.1.1).
 */
import { InvalidRequest } from '../../errors.js';
import { ACR_VALUES } from '../factors/second-factor.js';
import { USER_CLAIMS } from '../tokens/user-claims.js';
import type { RequestedClaims } from '../../db/schema.js';

export interface ClaimsRequest extends RequestedClaims {
  /** Our `acr` classes asked for through the `acr` claim, in the order given. */
  acr: string[];
  /** The `acr` request was essential. */
  essentialAcr: boolean;
}

const TARGETS = ['userinfo', 'id_token'] as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** OIDC Core 5.5.1: null, or an object with `essential` (a boolean), `value` or `values` (an array). */
function checkRequest(target: string, name: string, request: unknown): { essential: boolean; values: unknown[] } {
  if (request === null) return { essential: false, values: [] };
  const where = `claims.${target}.${name}`;
  if (!isObject(request)) throw InvalidRequest(`${where} must be null or an object`);
  if (request.essential !== undefined && typeof request.essential !== 'boolean') throw InvalidRequest(`${where}.essential must be true or false`);
  if (request.values !== undefined && !Array.isArray(request.values)) throw InvalidRequest(`${where}.values must be an array`);
  if (request.value !== undefined && request.values !== undefined) throw InvalidRequest(`${where} takes value or values, not both`);
  const values = request.values ?? (request.value === undefined ? [] : [request.value]);
  return { essential: request.essential === true, values: values as unknown[] };
}

/** @throws 400 `invalid_request` for text that is not a JSON object of this shape. */
export function parseClaimsRequest(text: string | undefined): ClaimsRequest {
  const result: ClaimsRequest = { userinfo: [], id_token: [], acr: [], essentialAcr: false };
  if (text === undefined) return result;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw InvalidRequest('claims must be a JSON object (OIDC Core 5.5)');
  }
  if (!isObject(parsed)) throw InvalidRequest('claims must be a JSON object (OIDC Core 5.5)');
  for (const target of TARGETS) {
    const members = parsed[target];
    if (members === undefined) continue;
    if (!isObject(members)) throw InvalidRequest(`claims.${target} must be an object`);
    for (const [name, request] of Object.entries(members)) {
      const { essential, values } = checkRequest(target, name, request);
      // Claims we do not know are ignored (5.5): tokens say nothing of them.
      if (USER_CLAIMS.includes(name) && !result[target].includes(name)) result[target].push(name);
      if (name !== 'acr') continue;
      for (const value of values)
        if ((ACR_VALUES as readonly unknown[]).includes(value) && !result.acr.includes(value as string)) result.acr.push(value as string);
      if (essential && values.length > 0) result.essentialAcr = true;
    }
  }
  return result;
}
