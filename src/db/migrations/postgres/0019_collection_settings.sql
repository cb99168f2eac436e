CREATE TABLE "unindexed_paths" (
	"app_uuid" text NOT NULL,
	"collection" text NOT NULL,
	"path" text NOT NULL,
	CONSTRAINT "unindexed_paths_app_uuid_collection_path_pk" PRIMARY KEY("app_uuid","collection","path")
);
--> statement-breakpoint
ALTER TABLE "unindexed_paths" ADD CONSTRAINT "unindexed_paths_app_uuid_applications_uuid_fk" FOREIGN KEY ("app_uuid") REFERENCES "applications"("uuid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The property index (…_property_index.sql) leaves out the paths a collection's settings name,
-- and everything below them (docs/api.md#collection-settings): one probe of this table's key per
-- property written, which finds nothing in a collection without settings.
CREATE OR REPLACE FUNCTION idp_entity_values(text, text, text, jsonb)
RETURNS TABLE (entity_uuid text, path text, app_uuid text, collection text, kind integer, num double precision, text text)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  WITH RECURSIVE tree(path, depth, value) AS (
    SELECT e.key, 1, e.value FROM jsonb_each(CASE WHEN jsonb_typeof($4) = 'object' THEN $4 ELSE '{}'::jsonb END) e
    WHERE e.key ~ '^[A-Za-z_][A-Za-z0-9_]*$'
    UNION ALL
    SELECT t.path || '.' || e.key, t.depth + 1, e.value FROM tree t, jsonb_each(t.value) e
    WHERE jsonb_typeof(t.value) = 'object' AND t.depth < 3 AND e.key ~ '^[A-Za-z_][A-Za-z0-9_]*$'
  )
  SELECT $1, tree.path, $2, $3,
    CASE jsonb_typeof(tree.value) WHEN 'number' THEN 1 WHEN 'string' THEN 2 ELSE 3 END,
    CASE jsonb_typeof(tree.value) WHEN 'number' THEN CAST(tree.value AS double precision) WHEN 'boolean' THEN CASE WHEN tree.value = 'true'::jsonb THEN 1 ELSE 0 END END,
    CASE jsonb_typeof(tree.value) WHEN 'string' THEN left(idp_fold(tree.value #>> '{}'), 200) END
  FROM tree
  WHERE jsonb_typeof(tree.value) IN ('number', 'string', 'boolean') AND length(tree.path) <= 128
    AND NOT EXISTS (
      SELECT 1 FROM unindexed_paths u
      WHERE u.app_uuid = $2 AND u.collection = $3 AND (u.path = tree.path OR left(tree.path, length(u.path) + 1) = u.path || '.')
    )
$$;
--> statement-breakpoint
-- Read through `remembered` (src/db/property-index-store.ts): every instance hears of a change
-- (docs/design.md#the-read-cache, …_change_feed.sql).
CREATE TRIGGER idp_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "unindexed_paths" FOR EACH STATEMENT EXECUTE FUNCTION idp_table_changed();
