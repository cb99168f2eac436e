-- The property index's rows of an entity come from idp_index_rows, a table-valued function that
-- src/db/functions.ts registers on every connection (property-index.ts `indexRowsOf`), instead of
-- json_tree and string functions in SQL: the same rows (…_array_elements.sql), with the rules of
-- which paths the index holds written once, in JavaScript, beside the word index's. Reading a
-- batch's rows took 1.7 s for 100,000 people with json_tree, whose `fullkey` and `path` SQLite
-- builds again at each use, and about 1.0 s this way (docs/benchmarks.md#index-rows-in-javascript).
-- `entity_rowid` lets a batch name its entities by their rowids (src/db/group-indexing.ts), a
-- range of `entities`, rather than look up each one's uuid. The triggers read the view by name,
-- so they stay, and the rows already stored are the same.
DROP VIEW `entity_values_source`;
--> statement-breakpoint
CREATE VIEW `entity_values_source` AS
SELECT (SELECT p.`id` FROM `entity_value_paths` p WHERE p.`app_uuid` = e.`app_uuid` AND p.`collection` = e.`collection` AND p.`path` = r.`path`) AS `path_id`,
  r.`kind` AS `kind`, r.`value` AS `value`, e.`uuid` AS `entity_uuid`,
  e.`app_uuid` AS `app_uuid`, e.`collection` AS `collection`, r.`path` AS `path`, e.`rowid` AS `entity_rowid`
FROM `entities` e, idp_index_rows(e.`properties`) r
WHERE NOT EXISTS (
  SELECT 1 FROM `unindexed_paths` u
  WHERE u.`app_uuid` = e.`app_uuid` AND u.`collection` = e.`collection`
    AND (u.`path` = r.`property` OR substr(r.`property`, 1, length(u.`path`) + 1) = u.`path` || '.')
);
