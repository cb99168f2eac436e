-- Two of the tests the index triggers make for every entity written, made cheaper without changing
-- what they select (docs/design.md#the-property-index, #the-location-index). Measured on
-- 2026-11-25 with `valgrind --tool=callgrind`, counting the instructions inside SQLite of 3,000
-- creates of the `create-entity` item (1 KB of JSON, no location), 50 to a group commit: 437.2k
-- instructions per create before, 389.2k after; the location test was about two thirds of the
-- difference (docs/benchmarks.md#speed-ups-and-their-figures).
--
-- The location triggers look for the text `"location"` (or a backslash, which may spell it
-- escaped) in the stored JSON before reading any of it. `instr` compared the needle at every
-- position of the text; GLOB skips to the next `"` and compares from there. The same texts pass:
-- GLOB has no escape character, and neither pattern holds `?` or `[`.
DROP TRIGGER `entity_locations_insert`;
--> statement-breakpoint
CREATE TRIGGER `entity_locations_insert` AFTER INSERT ON `entities`
WHEN (new.`properties` GLOB '*"location"*' OR new.`properties` GLOB '*\*') AND idp_index_deferred() = 0
BEGIN
  INSERT INTO `entity_locations` SELECT * FROM `entity_locations_source` WHERE `entity_uuid` = new.`uuid`;
END;
--> statement-breakpoint
DROP TRIGGER `entity_locations_update_old`;
--> statement-breakpoint
CREATE TRIGGER `entity_locations_update_old` BEFORE UPDATE OF `uuid`, `app_uuid`, `collection`, `properties` ON `entities`
WHEN old.`properties` GLOB '*"location"*' OR old.`properties` GLOB '*\*'
BEGIN
  DELETE FROM `entity_locations` WHERE `id` IN (SELECT `id` FROM `entity_locations_stored` WHERE `entity_uuid` = old.`uuid`);
END;
--> statement-breakpoint
DROP TRIGGER `entity_locations_update_new`;
--> statement-breakpoint
CREATE TRIGGER `entity_locations_update_new` AFTER UPDATE OF `uuid`, `app_uuid`, `collection`, `properties` ON `entities`
WHEN new.`properties` GLOB '*"location"*' OR new.`properties` GLOB '*\*'
BEGIN
  INSERT INTO `entity_locations` SELECT * FROM `entity_locations_source` WHERE `entity_uuid` = new.`uuid`;
END;
--> statement-breakpoint
DROP TRIGGER `entity_locations_delete`;
--> statement-breakpoint
CREATE TRIGGER `entity_locations_delete` BEFORE DELETE ON `entities`
WHEN old.`properties` GLOB '*"location"*' OR old.`properties` GLOB '*\*'
BEGIN
  DELETE FROM `entity_locations` WHERE `id` IN (SELECT `id` FROM `entity_locations_stored` WHERE `entity_uuid` = old.`uuid`);
END;
--> statement-breakpoint
-- The property index takes the scalars of the JSON tree: `t.type IN (…5 types…)` built a
-- temporary table of the five names each time the view was read, once per entity written.
-- json_tree's `atom` is NULL exactly for objects, arrays and JSON null, so the same rows pass.
-- Otherwise as …_collection_settings.sql made it.
DROP VIEW `entity_values_source`;
--> statement-breakpoint
CREATE VIEW `entity_values_source` AS
SELECT e.`app_uuid` AS `app_uuid`, e.`collection` AS `collection`, substr(t.`fullkey`, 3) AS `path`,
  CASE t.`type` WHEN 'text' THEN 2 WHEN 'true' THEN 3 WHEN 'false' THEN 3 ELSE 1 END AS `kind`,
  CASE t.`type` WHEN 'integer' THEN CAST(t.`atom` AS REAL) WHEN 'real' THEN t.`atom` WHEN 'true' THEN 1 WHEN 'false' THEN 0 ELSE idp_index_text(t.`atom`) END AS `value`,
  e.`uuid` AS `entity_uuid`
FROM `entities` e, json_tree(CASE WHEN json_valid(e.`properties`) THEN e.`properties` ELSE '{}' END) t
WHERE t.`atom` IS NOT NULL
  AND instr(t.`fullkey`, '[') = 0 AND instr(t.`fullkey`, '"') = 0
  AND length(t.`fullkey`) - length(replace(t.`fullkey`, '.', '')) <= 3
  AND length(t.`fullkey`) <= 130
  AND NOT EXISTS (
    SELECT 1 FROM `unindexed_paths` u
    WHERE u.`app_uuid` = e.`app_uuid` AND u.`collection` = e.`collection`
      AND (u.`path` = substr(t.`fullkey`, 3) OR substr(t.`fullkey`, 3, length(u.`path`) + 1) = u.`path` || '.')
  );
