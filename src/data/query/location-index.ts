/**
 * Finds the candidates of a `within` through the location index (docs/design.md#the-location-index):
 * the table `entity_locations` holds the point of every entity's `location` — an R*Tree on
 * SQLite, a GiST index of boxes on PostgreSQL — kept by triggers in the migrations
 * (src/db/migrations/*\/…_location_index.sql); a point outside -90..90, -180..180 is held as the
 * whole world, so every box meets it.
 *
 * `locationCandidates` looks up the points inside a bounding box of the circle: a superset of
 * the matches, as property-index.ts requires — the exact distance (compile.ts) still decides.
 * `boundingBoxes` below argues why no match lies outside.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Condition } from './ast.js';
import { latitudeBand, type Dialect, type LocationBox } from './dialect.js';

/** The one property the index holds: Usergrid's `location`. */
export const INDEXED_LOCATION = 'location';

/** Absolute room (degrees, about 0.1 µm) for rounding the box's edges: a few units in the last place of 180. */
const EDGE_ROOM = 1e-12;

/**
 * The candidates of `location within …` in the collection (property-index.ts `Candidates`), or
 * null for another property or a circle that no box narrows.
 */
export function locationCandidates(
  condition: Extract<Condition, { kind: 'within' }>,
  scope: { readonly appUuid: string; readonly collection: string },
  dialect: Dialect,
): { sql: SQL; indexes: string[]; estimated: boolean } | null {
  if (condition.property !== INDEXED_LOCATION) return null;
  const boxes = boundingBoxes(condition.meters, condition.latitude, condition.longitude);
  if (boxes === null) return null;
  const lookups = boxes.map((box) => dialect.locatedIn(scope.appUuid, scope.collection, box));
  return {
    sql: lookups.length === 1 ? lookups[0] : sql`${lookups[0]} UNION ${lookups[1]}`,
    indexes: [`spatial ${INDEXED_LOCATION}`],
    // PostgreSQL keeps no statistics for box overlap (&&) and takes it for 0.5% of the rows.
    estimated: false,
  };
}

/**
 * Boxes (one, or two either side of the antimeridian) that hold every point within `meters` of
 * (latitude, longitude) by distanceMeters — and by PostgreSQL's idp_distance, which differs from
 * it by rounding far inside the margins; null when the circle spans every latitude.
 *
 * Latitude: dialect.ts latitudeBand, with its proof. It is an angle r (degrees) at least the
 * circle's angular radius, by a relative 1e-6 and more.
 * Longitude: when the circle leaves out both poles (|latitude| + r < 90), every point of a
 * sphere within angle r of latitude φ lies within asin(sin r / cos φ) of its longitude, the
 * meridians tangent to the circle (the bounding box of a spherical cap); that is widened by a
 * relative 1e-6 for the rounding of sin, cos and asin. distanceMeters reads longitudes modulo 360
 * (sin² of half their difference), so a box across ±180 continues on the other side. When the
 * circle reaches a pole, every longitude is near: one box of all longitudes.
 * Rounding: each edge is one rounded sum, and rounding is monotone, so a stored double within the
 * exact edge is within the rounded one; EDGE_ROOM covers the wrap's second sum, and the products
 * that underflow to zero near the poles (below 1e-135 degrees, see 0020_builtin_distance.sql).
 */
export function boundingBoxes(meters: number, latitude: number, longitude: number): LocationBox[] | null {
  const band = latitudeBand(meters);
  if (band === null) return null;
  const r = band + EDGE_ROOM;
  const south = latitude - r;
  const north = latitude + r;
  if (south <= -90 || north >= 90) return [{ south: Math.max(south, -90), north: Math.min(north, 90), west: -180, east: 180 }];
  const ratio = Math.sin(r * RADIANS) / Math.cos(latitude * RADIANS);
  if (!(ratio < 1)) return [{ south, north, west: -180, east: 180 }];
  const half = (Math.asin(ratio) / RADIANS) * (1 + 1e-6) + EDGE_ROOM;
  if (half >= 180) return [{ south, north, west: -180, east: 180 }];
  const west = longitude - half;
  const east = longitude + half;
  if (west < -180)
    return [
      { south, north, west: -180, east },
      { south, north, west: west + 360, east: 180 },
    ];
  if (east > 180)
    return [
      { south, north, west, east: 180 },
      { south, north, west: -180, east: east - 360 },
    ];
  return [{ south, north, west, east }];
}

const RADIANS = Math.PI / 180;
