/**
 * The location index (docs/design.md#the-location-index): the bounding boxes of a `within` hold
 * every point within its distance — near the poles and across the antimeridian too — and on a
 * real database (SQLite, or PostgreSQL when IDP_TEST_DATABASE_URL is set) a query answered
 * through the index gives what the same query gives reading the whole collection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { boundingBoxes, INDEXED_LOCATION } from '../../src/data/query/location-index.js';
import { distanceMeters } from '../../src/data/query/functions.js';
import { compareEntities, matchesQuery } from '../../src/data/query/evaluate.js';
import type { Query } from '../../src/data/query/ast.js';
import { TEST_DATABASE_URL } from '../database.js';
import { UUID_POOL, type GeneratedEntity } from './arbitraries.js';
import { openQueryDatabase, type QueryDatabase } from './database.js';

// Latitudes and longitudes anywhere, near the poles, near the antimeridian, and on the edges.
const latitude = fc.oneof(
  fc.double({ min: -90, max: 90, noNaN: true }),
  fc.double({ min: 89, max: 90, noNaN: true }),
  fc.double({ min: -90, max: -89, noNaN: true }),
  fc.constantFrom(90, -90, 0, 89.99999999, -89.99999999),
);
const longitude = fc.oneof(
  fc.double({ min: -180, max: 180, noNaN: true }),
  fc.double({ min: 179, max: 180, noNaN: true }),
  fc.double({ min: -180, max: -179, noNaN: true }),
  fc.constantFrom(180, -180, 0),
);
type Point = readonly [number, number];
const point: fc.Arbitrary<Point> = fc.tuple(latitude, longitude);

/** A point near `from`: offsets from a nanodegree to tens of degrees, longitudes wrapped to ±180. */
function nearby(from: Point): fc.Arbitrary<Point> {
  return fc.constantFrom(1e-9, 1e-4, 0.1, 5, 40).chain((spread) =>
    fc.tuple(fc.double({ min: -spread, max: spread, noNaN: true }), fc.double({ min: -spread, max: spread, noNaN: true })).map(([dlat, dlon]): Point => {
      const lat = Math.max(-90, Math.min(90, from[0] + dlat));
      const lon = from[1] + dlon;
      return [lat, lon > 180 ? lon - 360 : lon < -180 ? lon + 360 : lon];
    }),
  );
}

/**
 * A point of greatest longitude on a circle around `from` — where its meridian touches the
 * circle, the edge of the longitudes the bounding box must hold: at angular radius r, latitude
 * asin(sin φ / cos r) and longitude λ ± asin(sin r / cos φ).
 */
function tangent(from: Point): fc.Arbitrary<Point> {
  const radians = Math.PI / 180;
  return fc.tuple(fc.double({ min: 1e-9, max: 1, noNaN: true }), fc.boolean()).map(([r, east]): Point => {
    const [lat, lon] = from;
    const ratio = Math.sin(r) / Math.cos(lat * radians);
    if (!(Math.abs(lat * radians) + r < Math.PI / 2) || !(ratio < 1)) return from;
    const latitude = Math.asin(Math.sin(lat * radians) / Math.cos(r)) / radians;
    const longitude = lon + ((east ? 1 : -1) * Math.asin(ratio)) / radians;
    return [latitude, longitude > 180 ? longitude - 360 : longitude < -180 ? longitude + 360 : longitude];
  });
}

const inside = (boxes: ReturnType<typeof boundingBoxes>, [lat, lon]: Point): boolean =>
  boxes === null || boxes.some((box) => box.south <= lat && lat <= box.north && box.west <= lon && lon <= box.east);

describe('the bounding boxes of a within', () => {
  it('hold every point within the distance, at the edge too, near the poles and across the antimeridian', () => {
    const pair = point.chain((center) => fc.tuple(fc.constant(center), fc.oneof(point, nearby(center), tangent(center))));
    fc.assert(
      fc.property(pair, fc.constantFrom(1, 1 + 1e-12, 2), ([center, other], factor) => {
        const meters = distanceMeters(center[0], center[1], other[0], other[1]) * factor;
        const boxes = boundingBoxes(meters, center[0], center[1]);
        expect(inside(boxes, other), `${other} within ${meters} of ${center}: ${JSON.stringify(boxes)}`).toBe(true);
        for (const box of boxes ?? []) {
          expect(-90 <= box.south && box.south <= box.north && box.north <= 90).toBe(true);
          expect(-180 <= box.west && box.west <= box.east && box.east <= 180).toBe(true);
        }
      }),
      { numRuns: 50_000 },
    );
  });

  it('are one box away from the edges, two across the antimeridian, every longitude at a pole, none for half the globe', () => {
    expect(boundingBoxes(1000, 59.91, 10.75)).toHaveLength(1);
    const [box] = boundingBoxes(1000, 59.91, 10.75)!;
    // 1 km is 0.009 degrees of latitude, and 0.018 of longitude at 60 degrees.
    expect(box.north - box.south).toBeCloseTo(0.018, 3);
    expect(box.east - box.west).toBeCloseTo(0.036, 3);
    expect(boundingBoxes(100_000, 0, 179.9)).toEqual([
      expect.objectContaining({ west: expect.closeTo(179.0, 1), east: 180 }),
      expect.objectContaining({ west: -180, east: expect.closeTo(-179.2, 1) }),
    ]);
    expect(boundingBoxes(100_000, 89.5, 10)).toEqual([expect.objectContaining({ north: 90, west: -180, east: 180 })]);
    expect(boundingBoxes(2.1e7, 0, 0)).toBeNull();
  });
});

/** `location within meters of center` with no other condition. */
const within = (meters: number, [lat, lon]: Point): Query => ({
  select: null,
  where: { kind: 'within', property: INDEXED_LOCATION, meters, latitude: lat, longitude: lon },
  orderBy: [],
});

const toLocation = ([lat, lon]: Point): unknown => ({ latitude: lat, longitude: lon });

// Locations the API stores as given: outside ±90/±180, not numbers, missing.
const oddLocation = fc.constantFrom<unknown>(
  { latitude: 100, longitude: 10 },
  { latitude: 10, longitude: 200 },
  { latitude: -1e7, longitude: 1e7 },
  { latitude: '1', longitude: 2 },
  { latitude: 1 },
  [1, 2],
  null,
);

describe('a within through the location index', () => {
  let database: QueryDatabase;
  beforeAll(async () => {
    database = await openQueryDatabase();
  });
  afterAll(async () => database.close());

  it('finds what reading the whole collection finds, for points near the poles and the antimeridian', async () => {
    const scenario = fc.array(point, { minLength: 1, maxLength: 3 }).chain((centers) =>
      fc.record({
        centers: fc.constant(centers),
        locations: fc.array(
          fc.oneof(
            {
              weight: 6,
              arbitrary: fc
                .constantFrom(...centers)
                .chain(nearby)
                .map(toLocation),
            },
            { weight: 2, arbitrary: point.map(toLocation) },
            { weight: 1, arbitrary: oddLocation },
          ),
          { maxLength: 40 },
        ),
        queries: fc.array(
          fc.tuple(fc.constantFrom(...centers), fc.oneof(fc.constantFrom(0, 10, 1000, 1e5, 1e6, 5e6), fc.double({ min: 0, max: 2e7, noNaN: true }))),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
      }),
    );
    await fc.assert(
      fc.asyncProperty(scenario, async ({ locations, queries }) => {
        const entities: GeneratedEntity[] = locations.map((location, i) => {
          const properties = { location };
          return { properties, record: { ...properties, uuid: UUID_POOL[i], type: 'place', created: i, modified: i } };
        });
        await database.replaceEntities(entities);
        const points = entities.flatMap(({ properties }) => {
          const place = properties.location as { latitude?: unknown; longitude?: unknown } | null;
          return typeof place?.latitude === 'number' && typeof place.longitude === 'number' ? [[place.latitude, place.longitude] as Point] : [];
        });
        // Besides the generated distances, the exact distance to a stored point: the circle's edge.
        const asked = queries.flatMap(([center, meters]) => [
          within(meters, center),
          ...points.slice(0, 2).map((stored) => within(distanceMeters(stored[0], stored[1], center[0], center[1]), center)),
        ]);
        for (const query of asked) {
          const read = (await database.select(query, { index: false })).map((row) => row.uuid);
          const condition = query.where as { meters: number; latitude: number; longitude: number };
          expect(database.narrowings(query)).toBe(boundingBoxes(condition.meters, condition.latitude, condition.longitude) === null ? 0 : 1);
          expect((await database.select(query)).map((row) => row.uuid)).toEqual(read);
          // SQLite runs the reference's own distance; PostgreSQL its own, equal within rounding (docs/api.md#distances).
          if (TEST_DATABASE_URL === undefined) {
            const records = entities.map((entity) => entity.record).filter((record) => matchesQuery(query, record));
            expect(read).toEqual(records.sort(compareEntities(query)).map((record) => record.uuid));
          }
        }
      }),
      { numRuns: 100 },
    );
  }, 300_000);
});
