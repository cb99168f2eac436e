CREATE TABLE `unindexed_paths` (
	`app_uuid` text NOT NULL,
	`collection` text NOT NULL,
	`path` text NOT NULL,
	PRIMARY KEY(`app_uuid`, `collection`, `path`),
	FOREIGN KEY (`app_uuid`) REFERENCES `applications`(`uuid`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- The property index (…_property_index.sql) leaves out the paths a collection's settings name,
-- and everything below them (docs/api.md#collection-settings): one probe of this table's key per
-- property written, which finds nothing in a collection without settings.
DROP VIEW `entity_values_source`;
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
  AND length(t.`fullkey`) <= 130
  AND NOT EXISTS (
    SELECT 1 FROM `unindexed_paths` u
    WHERE u.`app_uuid` = e.`app_uuid` AND u.`collection` = e.`collection`
      AND (u.`path` = substr(t.`fullkey`, 3) OR substr(t.`fullkey`, 3, length(u.`path`) + 1) = u.`path` || '.')
  );
