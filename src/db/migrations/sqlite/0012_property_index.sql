-- The property index (docs/design.md#the-property-index): one row per scalar property of every
-- entity, so a query's `=`, range and prefix conditions on a property find their entities through
-- an index instead of reading the collection (src/data/query/property-index.ts looks them up).
--
-- A row holds what the query language compares (src/data/query/evaluate.ts): `kind` is the
-- type rank of order.ts (1 number, 2 string, 3 boolean); `value` the number as a REAL, 1/0 for
-- true/false, or the case-folded string cut to its first 200 characters (idp_index_text,
-- src/db/functions.ts). The column has no type, so it keeps each as given, and SQLite orders
-- numbers among themselves and text by code point. `path` is the dotted path as a query writes
-- it: objects only (a value inside an array matches no condition), segments that are identifiers
-- (the only ones the grammar can name), at most 3 deep.
--
-- The whole row is its key, so a write touches one b-tree: an entity's rows are found again from
-- its properties, which is how the triggers below delete them. Not part of the drizzle schema: it
-- is derived from `entities`, like an index, by the triggers, which run in the statement that
-- writes the entity, whichever code wrote it. Rows whose stored JSON SQLite cannot read
-- (docs/api.md#limits) get none. The entities stored before are indexed after start-up
-- (…_property_index_backfill.sql, src/db/property-index-store.ts).
CREATE TABLE `entity_values` (
  `app_uuid` text NOT NULL,
  `collection` text NOT NULL,
  `path` text NOT NULL,
  `kind` integer NOT NULL,
  `value` NOT NULL,
  `entity_uuid` text NOT NULL,
  PRIMARY KEY (`app_uuid`, `collection`, `path`, `kind`, `value`, `entity_uuid`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE VIEW `entity_values_source` AS
SELECT e.`app_uuid` AS `app_uuid`, e.`collection` AS `collection`, substr(t.`fullkey`, 3) AS `path`,
  CASE t.`type` WHEN 'text' THEN 2 WHEN 'true' THEN 3 WHEN 'false' THEN 3 ELSE 1 END AS `kind`,
  CASE t.`type` WHEN 'integer' THEN CAST(t.`atom` AS REAL) WHEN 'real' THEN t.`atom` WHEN 'true' THEN 1 WHEN 'false' THEN 0 ELSE idp_index_text(t.`atom`) END AS `value`,
  e.`uuid` AS `entity_uuid`
FROM `entities` e, json_tree(CASE WHEN json_valid(e.`properties`) THEN e.`properties` ELSE '{}' END) t
WHERE t.`type` IN ('integer', 'real', 'text', 'true', 'false')
  AND instr(t.`fullkey`, '[') = 0 AND instr(t.`fullkey`, '"') = 0
  AND length(t.`fullkey`) - length(replace(t.`fullkey`, '.', '')) <= 3
  AND length(t.`fullkey`) <= 130;
--> statement-breakpoint
CREATE TRIGGER `entity_values_insert` AFTER INSERT ON `entities`
BEGIN
  INSERT OR IGNORE INTO `entity_values` SELECT * FROM `entity_values_source` WHERE `entity_uuid` = new.`uuid`;
END;
--> statement-breakpoint
CREATE TRIGGER `entity_values_update_old` BEFORE UPDATE OF `uuid`, `app_uuid`, `collection`, `properties` ON `entities`
BEGIN
  DELETE FROM `entity_values` WHERE (`app_uuid`, `collection`, `path`, `kind`, `value`, `entity_uuid`) IN (SELECT * FROM `entity_values_source` WHERE `entity_uuid` = old.`uuid`);
END;
--> statement-breakpoint
CREATE TRIGGER `entity_values_update_new` AFTER UPDATE OF `uuid`, `app_uuid`, `collection`, `properties` ON `entities`
BEGIN
  INSERT OR IGNORE INTO `entity_values` SELECT * FROM `entity_values_source` WHERE `entity_uuid` = new.`uuid`;
END;
--> statement-breakpoint
CREATE TRIGGER `entity_values_delete` BEFORE DELETE ON `entities`
BEGIN
  DELETE FROM `entity_values` WHERE (`app_uuid`, `collection`, `path`, `kind`, `value`, `entity_uuid`) IN (SELECT * FROM `entity_values_source` WHERE `entity_uuid` = old.`uuid`);
END;
