-- Arrays are indexed by element (docs/api.md#arrays; docs/design.md#the-property-index): a
-- comparison or a prefix matches an array when it matches one of its elements, and the property
-- index holds a row for each distinct scalar element of an array at a path the index holds, under
-- that path followed by `[]` (`tags[]` for `tags: ["a", "b"]`). They are apart from the path's
-- own rows, which walking the index in a property's order reads (an array sorts with the values
-- that are not scalars). Elements of an array inside an array, or of an object inside one, are not
-- indexed, as the query language does not compare them.
--
-- json_tree names an element `$.tags[0]`, in the container `$.tags`: an element is a row whose
-- key ends with `]` in a container whose path holds no `[`. The same rows as before otherwise
-- (…_property_index_compact_keys.sql). The triggers read the view by name, so they stay.
--
-- The entities already stored get their elements' rows from the backfill after start-up
-- (…_property_index_backfill.sql): its writes leave the rows already there, and queries read the
-- collections until it is done.
DROP VIEW `entity_values_source`;
--> statement-breakpoint
CREATE VIEW `entity_values_source` AS
SELECT (SELECT p.`id` FROM `entity_value_paths` p WHERE p.`app_uuid` = s.`app_uuid` AND p.`collection` = s.`collection` AND p.`path` = s.`path`) AS `path_id`,
  s.`kind` AS `kind`, s.`value` AS `value`, s.`entity_uuid` AS `entity_uuid`,
  s.`app_uuid` AS `app_uuid`, s.`collection` AS `collection`, s.`path` AS `path`
FROM (
  SELECT n.`app_uuid` AS `app_uuid`, n.`collection` AS `collection`,
    CASE WHEN n.`element` THEN n.`property` || '[]' ELSE n.`property` END AS `path`,
    n.`kind` AS `kind`, n.`value` AS `value`, n.`entity_uuid` AS `entity_uuid`
  FROM (
    SELECT e.`app_uuid` AS `app_uuid`, e.`collection` AS `collection`, substr(t.`fullkey`, -1) = ']' AS `element`,
      CASE
        WHEN substr(t.`fullkey`, -1) = ']' THEN CASE WHEN instr(t.`path`, '"') = 0 THEN substr(t.`path`, 3) ELSE idp_index_path(t.`path`) END
        ELSE CASE WHEN instr(t.`fullkey`, '"') = 0 THEN substr(t.`fullkey`, 3) ELSE idp_index_path(t.`fullkey`) END
      END AS `property`,
      CASE t.`type` WHEN 'text' THEN 2 WHEN 'true' THEN 3 WHEN 'false' THEN 3 ELSE 1 END AS `kind`,
      CASE t.`type` WHEN 'integer' THEN CAST(t.`atom` AS REAL) WHEN 'real' THEN t.`atom` WHEN 'true' THEN 1 WHEN 'false' THEN 0 ELSE idp_index_text(t.`atom`) END AS `value`,
      e.`uuid` AS `entity_uuid`
    FROM `entities` e, json_tree(CASE WHEN json_valid(e.`properties`) THEN e.`properties` ELSE '{}' END) t
    WHERE t.`atom` IS NOT NULL
      AND (instr(t.`fullkey`, '[') = 0 OR (substr(t.`fullkey`, -1) = ']' AND instr(t.`path`, '[') = 0 AND t.`path` <> '$'))
  ) n
  WHERE n.`property` IS NOT NULL
    AND length(n.`property`) - length(replace(n.`property`, '.', '')) <= 2
    AND length(n.`property`) <= 128
    AND NOT EXISTS (
      SELECT 1 FROM `unindexed_paths` u
      WHERE u.`app_uuid` = n.`app_uuid` AND u.`collection` = n.`collection`
        AND (u.`path` = n.`property` OR substr(n.`property`, 1, length(u.`path`) + 1) = u.`path` || '.')
    )
) s;
--> statement-breakpoint
UPDATE `property_index_backfill` SET `done` = 0, `after_uuid` = NULL, `indexed` = 0
WHERE `id` = 1 AND EXISTS (SELECT 1 FROM `entities`);
