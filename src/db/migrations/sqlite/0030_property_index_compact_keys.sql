-- The property index's rows, made anew (docs/design.md#the-property-index):
--
-- - Their property is named by a number instead of its application, collection and path: each
--   row's key held the application's 36-character uuid, the collection and the path, about 114
--   bytes a row, 796 MB for the seven properties of a million people; with the number, 410 MB.
--   Importing a million people (the rows of each batch written in key order) cost 37 µs per
--   person for these rows, 22 µs after, its commit 5.6 µs, 3.3 after
--   (docs/benchmarks.md#the-bulk-import). `entity_value_paths` numbers each (application,
--   collection, path) the index has rows of; a number is never reused. A write adds the paths of
--   its rows first, then the rows, each path by its number.
-- - They include the properties whose name SQLite quotes in json_tree's `fullkey`: a name is
--   written bare only when it is ASCII letters and digits starting with a letter, so `first_name`
--   is `$."first_name"`, and the view left out every fullkey holding a `"`; a query on such a
--   property through the index found no entity. The path is read from the fullkey by
--   idp_index_path (src/db/functions.ts) when it holds a quote: NULL unless every segment is a
--   name the query language can write, as on PostgreSQL.
--
-- The rows are written by the backfill after start-up (…_property_index_backfill.sql, at the end
-- here): queries read the collections until it is done.
DROP TRIGGER `entity_values_insert`;
--> statement-breakpoint
DROP TRIGGER `entity_values_update_old`;
--> statement-breakpoint
DROP TRIGGER `entity_values_update_new`;
--> statement-breakpoint
DROP TRIGGER `entity_values_delete`;
--> statement-breakpoint
DROP VIEW `entity_values_source`;
--> statement-breakpoint
DROP TABLE `entity_values`;
--> statement-breakpoint
CREATE TABLE `entity_value_paths` (
  `id` integer PRIMARY KEY NOT NULL,
  `app_uuid` text NOT NULL,
  `collection` text NOT NULL,
  `path` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `entity_value_paths_name` ON `entity_value_paths` (`app_uuid`, `collection`, `path`);
--> statement-breakpoint
CREATE TABLE `entity_values` (
  `path_id` integer NOT NULL,
  `kind` integer NOT NULL,
  `value` NOT NULL,
  `entity_uuid` text NOT NULL,
  PRIMARY KEY (`path_id`, `kind`, `value`, `entity_uuid`)
) WITHOUT ROWID;
--> statement-breakpoint
-- The rows of every entity, by name, and each path's number, NULL until the path is added.
-- Otherwise as …_cheaper_index_triggers.sql made them.
CREATE VIEW `entity_values_source` AS
SELECT (SELECT p.`id` FROM `entity_value_paths` p WHERE p.`app_uuid` = s.`app_uuid` AND p.`collection` = s.`collection` AND p.`path` = s.`path`) AS `path_id`,
  s.`kind` AS `kind`, s.`value` AS `value`, s.`entity_uuid` AS `entity_uuid`,
  s.`app_uuid` AS `app_uuid`, s.`collection` AS `collection`, s.`path` AS `path`
FROM (
  SELECT e.`app_uuid` AS `app_uuid`, e.`collection` AS `collection`,
    CASE WHEN instr(t.`fullkey`, '"') = 0 THEN substr(t.`fullkey`, 3) ELSE idp_index_path(t.`fullkey`) END AS `path`,
    CASE t.`type` WHEN 'text' THEN 2 WHEN 'true' THEN 3 WHEN 'false' THEN 3 ELSE 1 END AS `kind`,
    CASE t.`type` WHEN 'integer' THEN CAST(t.`atom` AS REAL) WHEN 'real' THEN t.`atom` WHEN 'true' THEN 1 WHEN 'false' THEN 0 ELSE idp_index_text(t.`atom`) END AS `value`,
    e.`uuid` AS `entity_uuid`
  FROM `entities` e, json_tree(CASE WHEN json_valid(e.`properties`) THEN e.`properties` ELSE '{}' END) t
  WHERE t.`atom` IS NOT NULL AND instr(t.`fullkey`, '[') = 0
) s
WHERE s.`path` IS NOT NULL
  AND length(s.`path`) - length(replace(s.`path`, '.', '')) <= 2
  AND length(s.`path`) <= 128
  AND NOT EXISTS (
    SELECT 1 FROM `unindexed_paths` u
    WHERE u.`app_uuid` = s.`app_uuid` AND u.`collection` = s.`collection`
      AND (u.`path` = s.`path` OR substr(s.`path`, 1, length(u.`path`) + 1) = u.`path` || '.')
  );
--> statement-breakpoint
-- The rows by name, for reading the index (operators, tests).
CREATE VIEW `entity_values_named` AS
SELECT p.`app_uuid` AS `app_uuid`, p.`collection` AS `collection`, p.`path` AS `path`, v.`kind` AS `kind`, v.`value` AS `value`, v.`entity_uuid` AS `entity_uuid`
FROM `entity_values` v JOIN `entity_value_paths` p ON p.`id` = v.`path_id`;
--> statement-breakpoint
CREATE TRIGGER `entity_values_insert` AFTER INSERT ON `entities`
WHEN idp_index_deferred() = 0
BEGIN
  INSERT OR IGNORE INTO `entity_value_paths` (`app_uuid`, `collection`, `path`) SELECT DISTINCT `app_uuid`, `collection`, `path` FROM `entity_values_source` WHERE `entity_uuid` = new.`uuid`;
  INSERT OR IGNORE INTO `entity_values` SELECT `path_id`, `kind`, `value`, `entity_uuid` FROM `entity_values_source` WHERE `entity_uuid` = new.`uuid`;
END;
--> statement-breakpoint
CREATE TRIGGER `entity_values_update_old` BEFORE UPDATE OF `uuid`, `app_uuid`, `collection`, `properties` ON `entities`
BEGIN
  DELETE FROM `entity_values` WHERE (`path_id`, `kind`, `value`, `entity_uuid`) IN (SELECT `path_id`, `kind`, `value`, `entity_uuid` FROM `entity_values_source` WHERE `entity_uuid` = old.`uuid`);
END;
--> statement-breakpoint
CREATE TRIGGER `entity_values_update_new` AFTER UPDATE OF `uuid`, `app_uuid`, `collection`, `properties` ON `entities`
BEGIN
  INSERT OR IGNORE INTO `entity_value_paths` (`app_uuid`, `collection`, `path`) SELECT DISTINCT `app_uuid`, `collection`, `path` FROM `entity_values_source` WHERE `entity_uuid` = new.`uuid`;
  INSERT OR IGNORE INTO `entity_values` SELECT `path_id`, `kind`, `value`, `entity_uuid` FROM `entity_values_source` WHERE `entity_uuid` = new.`uuid`;
END;
--> statement-breakpoint
CREATE TRIGGER `entity_values_delete` BEFORE DELETE ON `entities`
BEGIN
  DELETE FROM `entity_values` WHERE (`path_id`, `kind`, `value`, `entity_uuid`) IN (SELECT `path_id`, `kind`, `value`, `entity_uuid` FROM `entity_values_source` WHERE `entity_uuid` = old.`uuid`);
END;
--> statement-breakpoint
UPDATE `property_index_backfill` SET `done` = 0, `after_uuid` = NULL, `indexed` = 0
WHERE `id` = 1 AND EXISTS (SELECT 1 FROM `entities`);
