-- The property index missed every property whose name SQLite quotes in json_tree's `fullkey`: a
-- name is written bare only when it is ASCII letters and digits starting with a letter, so
-- `first_name` is `$."first_name"`, and the view left out every fullkey holding a `"`. A query on
-- such a property through the index found no entity (docs/design.md#the-property-index). The
-- path is now read from the fullkey by idp_index_path (src/db/functions.ts) when it holds a
-- quote: NULL unless every segment is a name the query language can write, as on PostgreSQL.
-- Otherwise as …_cheaper_index_triggers.sql made it.
DROP VIEW `entity_values_source`;
--> statement-breakpoint
CREATE VIEW `entity_values_source` AS
SELECT s.`app_uuid` AS `app_uuid`, s.`collection` AS `collection`, s.`path` AS `path`, s.`kind` AS `kind`, s.`value` AS `value`, s.`entity_uuid` AS `entity_uuid`
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
-- The rows the index lacks are added by the backfill after start-up (src/db/property-index-store.ts),
-- which walks every entity again; queries read the collections until it is done.
UPDATE `property_index_backfill` SET `done` = 0, `after_uuid` = NULL, `indexed` = 0
WHERE `id` = 1 AND EXISTS (SELECT 1 FROM `entities`);
