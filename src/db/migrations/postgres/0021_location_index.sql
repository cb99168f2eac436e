-- The location index (docs/design.md#the-location-index): every entity's `location` as a box in a
-- GiST index — `location.latitude` and `location.longitude` when both are numbers, as a query's
-- `within` reads them — so `location within METERS of LAT, LON` finds its candidates inside a
-- bounding box (src/data/query/location-index.ts) instead of reading the collection; the exact
-- distance still decides. The same rows as SQLite's R*Tree (migrations/sqlite/0024_location_index.sql,
-- where they are explained): the point as a box rounded outward to a fine grid (see
-- idp_location_bounds), x the longitude and y the latitude in degrees, or the whole world's box
-- for a point outside -90..90, -180..180. Built-in types only:
-- no extension is needed. Kept by triggers in the statement that writes the entity; they run only
-- for writes of located entities.
CREATE TABLE "entity_locations" (
  "entity_uuid" text PRIMARY KEY REFERENCES "entities"("uuid") ON DELETE CASCADE,
  "app_uuid" text NOT NULL,
  "collection" text NOT NULL,
  "bounds" box NOT NULL
);
--> statement-breakpoint
CREATE INDEX "entity_locations_bounds" ON "entity_locations" USING gist ("bounds");
--> statement-breakpoint
-- The box of `properties`' location; NULL when it has none. Its edges are rounded outward to
-- multiples of 2^-40 degrees (about 0.1 µm), so the box holds the exact point: the GiST index
-- multiplies the sides of boxes, and PostgreSQL raises "underflow" where a product of tiny sides
-- (a point at 1e-200 degrees) would round to zero; on the grid no side is below 2^-40.
CREATE FUNCTION idp_location_bounds(properties jsonb) RETURNS box
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  latitude float8;
  longitude float8;
BEGIN
  IF coalesce(jsonb_typeof(properties #> '{location,latitude}') <> 'number' OR jsonb_typeof(properties #> '{location,longitude}') <> 'number', TRUE) THEN
    RETURN NULL;
  END IF;
  latitude := CAST(properties #> '{location,latitude}' AS double precision);
  longitude := CAST(properties #> '{location,longitude}' AS double precision);
  IF latitude BETWEEN -90 AND 90 AND longitude BETWEEN -180 AND 180 THEN
    RETURN box(
      point(floor(longitude * 1099511627776) / 1099511627776, floor(latitude * 1099511627776) / 1099511627776),
      point(ceil(longitude * 1099511627776) / 1099511627776, ceil(latitude * 1099511627776) / 1099511627776)
    );
  END IF;
  RETURN box(point(-180, -90), point(180, 90));
END
$$;
--> statement-breakpoint
CREATE FUNCTION idp_index_entity_location() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    DELETE FROM entity_locations WHERE entity_locations.entity_uuid = OLD.uuid;
  END IF;
  INSERT INTO entity_locations
  SELECT NEW.uuid, NEW.app_uuid, NEW.collection, bounds FROM idp_location_bounds(NEW.properties) AS bounds WHERE bounds IS NOT NULL;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- A location has both paths; the WHEN clauses keep every other write from calling the function.
CREATE TRIGGER "entity_locations_insert" AFTER INSERT ON "entities"
FOR EACH ROW WHEN (NEW.properties #> '{location,latitude}' IS NOT NULL AND NEW.properties #> '{location,longitude}' IS NOT NULL)
EXECUTE FUNCTION idp_index_entity_location();
--> statement-breakpoint
CREATE TRIGGER "entity_locations_update" AFTER UPDATE OF "uuid", "app_uuid", "collection", "properties" ON "entities"
FOR EACH ROW WHEN (
  (OLD.properties #> '{location,latitude}' IS NOT NULL AND OLD.properties #> '{location,longitude}' IS NOT NULL)
  OR (NEW.properties #> '{location,latitude}' IS NOT NULL AND NEW.properties #> '{location,longitude}' IS NOT NULL)
)
EXECUTE FUNCTION idp_index_entity_location();
--> statement-breakpoint
INSERT INTO "entity_locations"
SELECT e.uuid, e.app_uuid, e.collection, idp_location_bounds(e.properties) FROM "entities" e WHERE idp_location_bounds(e.properties) IS NOT NULL;
