/**
 * Resource indicators (RFC 8707, docs/api.md#resource-indicators): the `resource` parameters of
 * an authorization or token request name the services an access token is for, and become its
 * `aud`. Pure: no I/O.
 */
import { InvalidTarget } from '../../errors.js';

/** The request parameters that may be sent more than once: each value counts (RFC 8707 2). */
export const REPEATABLE_PARAMETERS: ReadonlySet<string> = new Set(['resource']);

/** At most this many resources in one request: a token's audience, not a list to scan. */
const MAX_RESOURCES = 10;

/**
 * The `resource` values of a request, each an absolute URI without a fragment (RFC 8707 2),
 * once each, in the order sent.
 * @throws 400 invalid_target naming the value at fault
 */
export function parseResources(values: readonly string[]): string[] {
  if (values.length > MAX_RESOURCES) throw InvalidTarget(`at most ${MAX_RESOURCES} resource parameters are taken`);
  for (const value of values) {
    if (!URL.canParse(value)) throw InvalidTarget(`resource '${value}' is not an absolute URI`);
    if (value.includes('#')) throw InvalidTarget(`resource '${value}' must not have a fragment`);
  }
  return [...new Set(values)];
}

/**
 * The resources a token is for: those `requested`, each of them among those `granted` (RFC 8707
 * 2.2: a later request may narrow what was authorized, never widen it); all of `granted` when
 * none is requested.
 * @throws 400 invalid_target naming a resource that was not granted
 */
export function narrowResources(requested: readonly string[], granted: readonly string[]): string[] {
  const wider = requested.find((resource) => !granted.includes(resource));
  if (wider !== undefined) {
    throw InvalidTarget(
      granted.length === 0 ? `resource '${wider}' was not part of this grant` : `resource '${wider}' is not among this grant's: ${granted.join(', ')}`,
    );
  }
  return requested.length > 0 ? [...requested] : [...granted];
}
