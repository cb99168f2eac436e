-- One trigger keeps all three indexes of an entity (docs/design.md#keeping-the-indexes-on-postgresql):
-- the property index (…_property_index.sql, …_collection_settings.sql), the word index
-- (…_word_index.sql) and the location index (…_location_index.sql), with the same rows as the
-- three triggers it replaces, at about two thirds of their cost (docs/benchmarks.md#creating-an-entity-on-postgresql):
-- it walks the entity's JSON once for the property rows and the words, where they walked it
-- twice, in statements whose plans PL/pgSQL keeps for the session, and the index tables have no
-- foreign keys to check for each row (below).
--
-- The scalar properties of an entity, as the property index reads them: `path` through objects
-- only, identifier segments, at most 3 deep and 128 characters; `kind` 1 number, 2 string,
-- 3 boolean; `num` double precision (1/0 for booleans); `folded` idp_fold of a string (a string of
-- ASCII folds by lower() inline, as idp_fold does, without calling it); `string` the string itself;
-- `indexed` whether the collection's settings leave the path in the property index
-- (docs/api.md#collection-settings). An SQL function of one query, so the queries calling it inline it.
CREATE FUNCTION idp_entity_scalars(app_uuid text, collection text, properties jsonb)
RETURNS TABLE (path text, kind integer, num double precision, folded text, string text, indexed boolean)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  WITH RECURSIVE tree(path, depth, value) AS (
    SELECT e.key, 1, e.value FROM jsonb_each(CASE WHEN jsonb_typeof(properties) = 'object' THEN properties ELSE '{}'::jsonb END) e
    WHERE e.key ~ '^[A-Za-z_][A-Za-z0-9_]*$'
    UNION ALL
    SELECT t.path || '.' || e.key, t.depth + 1, e.value FROM tree t, jsonb_each(t.value) e
    WHERE jsonb_typeof(t.value) = 'object' AND t.depth < 3 AND e.key ~ '^[A-Za-z_][A-Za-z0-9_]*$'
  ),
  scalars AS (
    SELECT tree.path, jsonb_typeof(tree.value) AS type, tree.value, CASE WHEN jsonb_typeof(tree.value) = 'string' THEN tree.value #>> '{}' END AS string
    FROM tree
    WHERE jsonb_typeof(tree.value) IN ('number', 'string', 'boolean') AND length(tree.path) <= 128
  )
  SELECT s.path,
    CASE s.type WHEN 'number' THEN 1 WHEN 'string' THEN 2 ELSE 3 END,
    CASE s.type WHEN 'number' THEN CAST(s.value AS double precision) WHEN 'boolean' THEN CASE WHEN s.value = 'true'::jsonb THEN 1 ELSE 0 END END,
    CASE WHEN octet_length(s.string) = char_length(s.string) THEN lower(s.string COLLATE "C") ELSE idp_fold(s.string) END,
    s.string,
    NOT EXISTS (
      SELECT 1 FROM unindexed_paths u
      WHERE u.app_uuid = idp_entity_scalars.app_uuid AND u.collection = idp_entity_scalars.collection
        AND (u.path = s.path OR left(s.path, length(u.path) + 1) = u.path || '.')
    )
  FROM scalars s
$$;
--> statement-breakpoint
-- The property index's rows of one entity (the backfill, src/db/property-index-store.ts, reads them).
CREATE OR REPLACE FUNCTION idp_entity_values(text, text, text, jsonb)
RETURNS TABLE (entity_uuid text, path text, app_uuid text, collection text, kind integer, num double precision, text text)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT $1, s.path, $2, $3, s.kind, s.num, left(s.folded, 200) FROM idp_entity_scalars($2, $3, $4) s WHERE s.indexed
$$;
--> statement-breakpoint
-- The word index's tokens (…_word_index.sql) come from the scalars too: the words of a string as
-- idp_words gives them (its ASCII case inline, from the folded string).
CREATE FUNCTION idp_index_entity() RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
  bounds box;
BEGIN
  IF TG_OP <> 'INSERT' THEN
    DELETE FROM entity_values WHERE entity_values.entity_uuid = OLD.uuid;
    DELETE FROM entity_words WHERE entity_words.entity_uuid = OLD.uuid;
    -- Only a location has a box.
    IF OLD.properties #> '{location,latitude}' IS NOT NULL AND OLD.properties #> '{location,longitude}' IS NOT NULL THEN
      DELETE FROM entity_locations WHERE entity_locations.entity_uuid = OLD.uuid;
    END IF;
    IF TG_OP = 'DELETE' THEN
      RETURN NULL;
    END IF;
  END IF;
  WITH scalars AS MATERIALIZED (
    SELECT * FROM idp_entity_scalars(NEW.app_uuid, NEW.collection, NEW.properties)
  ),
  property_rows AS (
    INSERT INTO entity_values
    SELECT NEW.uuid, s.path, NEW.app_uuid, NEW.collection, s.kind, s.num, left(s.folded, 200) FROM scalars s WHERE s.indexed
  ),
  tokens AS (
    SELECT DISTINCT 'w' || left(md5(NEW.app_uuid || '/' || NEW.collection || '/' || s.path), 12) || left(word, 64) AS token
    FROM scalars s, regexp_split_to_table(
      CASE WHEN octet_length(s.string) = char_length(s.string) THEN btrim(regexp_replace(s.folded, '[^0-9a-z]+', ' ', 'g'), ' ') ELSE idp_words(s.string) END,
      ' '
    ) AS word
    WHERE s.string IS NOT NULL AND word <> ''
  )
  INSERT INTO entity_words
  SELECT NEW.uuid, w.words FROM (
    SELECT CASE
      WHEN count(*) = 0 THEN NULL
      WHEN sum(octet_length(token)) < 1000000 THEN array_to_tsvector(array_agg(token))
      ELSE array_to_tsvector(ARRAY['a' || left(md5(NEW.app_uuid || '/' || NEW.collection), 12)])
    END AS words
    FROM tokens
  ) w
  WHERE w.words IS NOT NULL;
  IF NEW.properties #> '{location,latitude}' IS NOT NULL AND NEW.properties #> '{location,longitude}' IS NOT NULL THEN
    bounds := idp_location_bounds(NEW.properties);
    IF bounds IS NOT NULL THEN
      INSERT INTO entity_locations VALUES (NEW.uuid, NEW.app_uuid, NEW.collection, bounds);
    END IF;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER "entity_values_insert" ON "entities";
--> statement-breakpoint
DROP TRIGGER "entity_values_update" ON "entities";
--> statement-breakpoint
DROP TRIGGER "entity_words_insert" ON "entities";
--> statement-breakpoint
DROP TRIGGER "entity_words_update" ON "entities";
--> statement-breakpoint
DROP TRIGGER "entity_locations_insert" ON "entities";
--> statement-breakpoint
DROP TRIGGER "entity_locations_update" ON "entities";
--> statement-breakpoint
DROP FUNCTION idp_index_entity_values();
--> statement-breakpoint
DROP FUNCTION idp_index_entity_words();
--> statement-breakpoint
DROP FUNCTION idp_index_entity_location();
--> statement-breakpoint
DROP FUNCTION idp_entity_words(text, text, jsonb);
--> statement-breakpoint
CREATE TRIGGER "entity_index_insert" AFTER INSERT ON "entities"
FOR EACH ROW EXECUTE FUNCTION idp_index_entity();
--> statement-breakpoint
CREATE TRIGGER "entity_index_update" AFTER UPDATE OF "uuid", "app_uuid", "collection", "properties" ON "entities"
FOR EACH ROW EXECUTE FUNCTION idp_index_entity();
--> statement-breakpoint
-- The index rows leave with their entity by the trigger, not by foreign keys: a foreign key
-- checks every row inserted into its table (a query locking the entity's row, for each of an
-- entity's property rows), which cost more than all the rest of the trigger. Only the trigger
-- above and the property index's backfill write the rows, each from the entity's row: the trigger
-- in the statement that writes it, the backfill holding it locked (src/db/property-index-store.ts).
ALTER TABLE "entity_values" DROP CONSTRAINT "entity_values_entity_uuid_fkey";
--> statement-breakpoint
ALTER TABLE "entity_words" DROP CONSTRAINT "entity_words_entity_uuid_fkey";
--> statement-breakpoint
ALTER TABLE "entity_locations" DROP CONSTRAINT "entity_locations_entity_uuid_fkey";
--> statement-breakpoint
CREATE TRIGGER "entity_index_delete" AFTER DELETE ON "entities"
FOR EACH ROW EXECUTE FUNCTION idp_index_entity();
