-- The location index (docs/design.md#the-location-index): an R*Tree of every entity's `location`
-- — `location.latitude` and `location.longitude` when both are numbers, as a query's `within`
-- reads them — so `location within METERS of LAT, LON` finds its candidates inside a bounding box
-- (src/data/query/location-index.ts) instead of reading the collection; the exact distance still
-- decides.
--
-- One row per located entity: its point as a box of no size, latitude and longitude in degrees.
-- The R*Tree keeps 32-bit floats, rounding each box outward, so the stored box holds the exact
-- point. A point outside -90..90, -180..180 (which the API stores like any number) gets the whole
-- world's box instead: every query's box meets it, and the exact distance decides, as without the
-- index. The id is the R*Tree's own; a row is found again through the index by its point and the
-- entity's uuid, which is how the triggers delete it. Not part of the drizzle schema: derived from
-- `entities` by the triggers, in the statement that writes the entity, like the property index.
-- Rows whose stored JSON SQLite cannot read (docs/api.md#limits) get none.
CREATE VIRTUAL TABLE `entity_locations` USING rtree(
  `id`,
  `min_latitude`, `max_latitude`,
  `min_longitude`, `max_longitude`,
  +`entity_uuid` text,
  +`app_uuid` text,
  +`collection` text
);
--> statement-breakpoint
-- A view's columns in the R*Tree's order, the id left to it.
CREATE VIEW `entity_locations_source` AS
SELECT NULL AS `id`,
  CASE WHEN `inside` THEN `latitude` ELSE -90.0 END AS `min_latitude`,
  CASE WHEN `inside` THEN `latitude` ELSE 90.0 END AS `max_latitude`,
  CASE WHEN `inside` THEN `longitude` ELSE -180.0 END AS `min_longitude`,
  CASE WHEN `inside` THEN `longitude` ELSE 180.0 END AS `max_longitude`,
  `entity_uuid`, `app_uuid`, `collection`
FROM (
  SELECT `entity_uuid`, `app_uuid`, `collection`, `latitude`, `longitude`,
    `latitude` BETWEEN -90 AND 90 AND `longitude` BETWEEN -180 AND 180 AS `inside`
  FROM (
    SELECT `entity_uuid`, `app_uuid`, `collection`,
      CAST(json_extract(`json`, '$.location.latitude') AS REAL) AS `latitude`,
      CAST(json_extract(`json`, '$.location.longitude') AS REAL) AS `longitude`
    FROM (
      SELECT `uuid` AS `entity_uuid`, `app_uuid`, `collection`, CASE WHEN json_valid(`properties`) THEN `properties` ELSE '{}' END AS `json`
      FROM `entities`
    )
    WHERE json_type(`json`, '$.location.latitude') IN ('integer', 'real') AND json_type(`json`, '$.location.longitude') IN ('integer', 'real')
  )
);
--> statement-breakpoint
-- The index's rows of each entity, found through the R*Tree by the box its properties give.
CREATE VIEW `entity_locations_stored` AS
SELECT l.`id` AS `id`, s.`entity_uuid` AS `entity_uuid`
FROM `entity_locations_source` s, `entity_locations` l
WHERE l.`entity_uuid` = s.`entity_uuid`
  AND l.`max_latitude` >= s.`min_latitude` AND l.`min_latitude` <= s.`max_latitude`
  AND l.`max_longitude` >= s.`min_longitude` AND l.`min_longitude` <= s.`max_longitude`;
--> statement-breakpoint
-- The triggers first look for the text "location" (or any escape, which could spell it), so that
-- a write of an entity without one parses no JSON here.
CREATE TRIGGER `entity_locations_insert` AFTER INSERT ON `entities`
WHEN instr(new.`properties`, '"location"') > 0 OR instr(new.`properties`, '\') > 0
BEGIN
  INSERT INTO `entity_locations` SELECT * FROM `entity_locations_source` WHERE `entity_uuid` = new.`uuid`;
END;
--> statement-breakpoint
CREATE TRIGGER `entity_locations_update_old` BEFORE UPDATE OF `uuid`, `app_uuid`, `collection`, `properties` ON `entities`
WHEN instr(old.`properties`, '"location"') > 0 OR instr(old.`properties`, '\') > 0
BEGIN
  DELETE FROM `entity_locations` WHERE `id` IN (SELECT `id` FROM `entity_locations_stored` WHERE `entity_uuid` = old.`uuid`);
END;
--> statement-breakpoint
CREATE TRIGGER `entity_locations_update_new` AFTER UPDATE OF `uuid`, `app_uuid`, `collection`, `properties` ON `entities`
WHEN instr(new.`properties`, '"location"') > 0 OR instr(new.`properties`, '\') > 0
BEGIN
  INSERT INTO `entity_locations` SELECT * FROM `entity_locations_source` WHERE `entity_uuid` = new.`uuid`;
END;
--> statement-breakpoint
CREATE TRIGGER `entity_locations_delete` BEFORE DELETE ON `entities`
WHEN instr(old.`properties`, '"location"') > 0 OR instr(old.`properties`, '\') > 0
BEGIN
  DELETE FROM `entity_locations` WHERE `id` IN (SELECT `id` FROM `entity_locations_stored` WHERE `entity_uuid` = old.`uuid`);
END;
--> statement-breakpoint
INSERT INTO `entity_locations` SELECT * FROM `entity_locations_source`;
