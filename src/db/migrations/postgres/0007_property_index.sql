-- The property index (docs/design.md#the-property-index): one row per scalar property of every
-- entity, so a query's `=`, range and prefix conditions on a property find their entities through
-- an index instead of reading the collection (src/data/query/compile.ts adds the lookup). The
-- same rows as SQLite's (migrations/sqlite/0012_property_index.sql, where each column is
-- explained): `kind` 1 number, 2 string, 3 boolean; `num` double precision (1/0 for booleans);
-- `text` idp_fold of the string, its first 200 characters; `path` through objects only, identifier
-- segments, at most 3 deep. Kept by a trigger in the statement that writes the entity; the
-- entities stored before are indexed after start-up (…_property_index_backfill.sql).
CREATE TABLE "entity_values" (
  "entity_uuid" text NOT NULL REFERENCES "entities"("uuid") ON DELETE CASCADE,
  "path" text NOT NULL,
  "app_uuid" text NOT NULL,
  "collection" text NOT NULL,
  "kind" integer NOT NULL,
  "num" double precision,
  "text" text COLLATE "C",
  PRIMARY KEY ("entity_uuid", "path")
);
--> statement-breakpoint
CREATE INDEX "entity_values_number" ON "entity_values" ("app_uuid", "collection", "path", "kind", "num") WHERE "num" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "entity_values_text" ON "entity_values" ("app_uuid", "collection", "path", "text") WHERE "text" IS NOT NULL;
--> statement-breakpoint
-- The rows of one entity's properties.
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
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION idp_index_entity_values() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    DELETE FROM entity_values WHERE entity_values.entity_uuid = OLD.uuid;
  END IF;
  INSERT INTO entity_values SELECT * FROM idp_entity_values(NEW.uuid, NEW.app_uuid, NEW.collection, NEW.properties);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "entity_values_insert" AFTER INSERT ON "entities"
FOR EACH ROW EXECUTE FUNCTION idp_index_entity_values();
--> statement-breakpoint
CREATE TRIGGER "entity_values_update" AFTER UPDATE OF "uuid", "app_uuid", "collection", "properties" ON "entities"
FOR EACH ROW EXECUTE FUNCTION idp_index_entity_values();
