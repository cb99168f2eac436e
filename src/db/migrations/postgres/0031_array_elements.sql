-- Arrays are indexed by element (docs/api.md#arrays; docs/design.md#the-property-index), as on
-- SQLite (migrations/sqlite/…_array_elements.sql): a comparison or a prefix matches an array
-- when it matches one of its elements, and the property index holds a row for each distinct
-- scalar element of an array at a path the index holds, under that path followed by `[]`. They
-- are apart from the path's own rows, which walking the index in a property's order reads (an
-- array sorts with the values that are not scalars). Elements of an array inside an array, or of
-- an object inside one, are not indexed, as the query language does not compare them.
--
-- An entity now has several rows of one path: the rows are unique by entity, path and value
-- instead of by entity and path (a string's row has no number, the others no text), and the
-- triggers write each distinct row once, as an array may repeat a value (or spell it in another
-- case). The word index still reads only the values themselves: an element's row has no
-- `string`.
--
-- idp_entity_scalars reads the elements of the arrays its walk of the objects finds. Leaving out
-- the repeated ones there, with a DISTINCT, cost 112 µs per entity of four properties (two of them
-- arrays of two), against 17 µs without and 11 µs for the function before, which wrote no
-- elements (2,000 such entities, EXPLAIN ANALYZE of the function alone): PostgreSQL set up the
-- DISTINCT's hash table once for every entity. The triggers' DISTINCT over all the rows of their
-- statement sets up one. For the benchmark's people, who have no array, the function costs
-- 20.4 µs per entity against 18.2 before (5,000 of them).
ALTER TABLE "entity_values" DROP CONSTRAINT "entity_values_pkey";
--> statement-breakpoint
CREATE UNIQUE INDEX "entity_values_row" ON "entity_values" ("entity_uuid", "path", "kind", coalesce("num", 0), coalesce("text", ''));
--> statement-breakpoint
-- As …_index_entity_trigger.sql made it, with the elements' rows (`path[]`; no `string`, so no words).
CREATE OR REPLACE FUNCTION idp_entity_scalars(app_uuid text, collection text, properties jsonb)
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
    SELECT tree.path, FALSE AS element, jsonb_typeof(tree.value) AS type, tree.value, CASE WHEN jsonb_typeof(tree.value) = 'string' THEN tree.value #>> '{}' END AS string
    FROM tree
    WHERE jsonb_typeof(tree.value) IN ('number', 'string', 'boolean') AND length(tree.path) <= 128
    UNION ALL
    SELECT tree.path, TRUE, jsonb_typeof(x.value), x.value, CASE WHEN jsonb_typeof(x.value) = 'string' THEN x.value #>> '{}' END
    FROM tree, jsonb_array_elements(CASE WHEN jsonb_typeof(tree.value) = 'array' THEN tree.value END) x
    WHERE jsonb_typeof(tree.value) = 'array' AND jsonb_typeof(x.value) IN ('number', 'string', 'boolean') AND length(tree.path) <= 128
  )
  SELECT CASE WHEN s.element THEN s.path || '[]' ELSE s.path END,
    CASE s.type WHEN 'number' THEN 1 WHEN 'string' THEN 2 ELSE 3 END,
    CASE s.type WHEN 'number' THEN CAST(s.value AS double precision) WHEN 'boolean' THEN CASE WHEN s.value = 'true'::jsonb THEN 1 ELSE 0 END END,
    CASE WHEN octet_length(s.string) = char_length(s.string) THEN lower(s.string COLLATE "C") ELSE idp_fold(s.string) END,
    CASE WHEN NOT s.element THEN s.string END,
    NOT EXISTS (
      SELECT 1 FROM unindexed_paths u
      WHERE u.app_uuid = idp_entity_scalars.app_uuid AND u.collection = idp_entity_scalars.collection
        AND (u.path = s.path OR left(s.path, length(u.path) + 1) = u.path || '.')
    )
  FROM scalars s
$$;
--> statement-breakpoint
-- The triggers of …_word_index_created.sql and …_index_entities_per_statement.sql, each distinct row once.
CREATE OR REPLACE FUNCTION idp_index_entity() RETURNS trigger
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
    SELECT DISTINCT NEW.uuid, s.path, NEW.app_uuid, NEW.collection, s.kind, s.num, left(s.folded, 200) FROM scalars s WHERE s.indexed
  ),
  tokens AS (
    SELECT DISTINCT 'w' || left(md5(NEW.app_uuid || '/' || NEW.collection || '/' || s.path), 12) || left(word, 64) AS token
    FROM scalars s, regexp_split_to_table(
      CASE WHEN octet_length(s.string) = char_length(s.string) THEN btrim(regexp_replace(s.folded, '[^0-9a-z]+', ' ', 'g'), ' ') ELSE idp_words(s.string) END,
      ' '
    ) AS word
    WHERE s.string IS NOT NULL AND word <> ''
  )
  INSERT INTO entity_words (entity_uuid, created, words)
  SELECT NEW.uuid, NEW.created, w.words FROM (
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
CREATE OR REPLACE FUNCTION idp_index_inserted_entities() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  WITH scalars AS MATERIALIZED (
    SELECT n.uuid, n.app_uuid, n.collection, n.created, s.* FROM inserted_entities n, idp_entity_scalars(n.app_uuid, n.collection, n.properties) s
  ),
  property_rows AS (
    INSERT INTO entity_values
    SELECT DISTINCT s.uuid, s.path, s.app_uuid, s.collection, s.kind, s.num, left(s.folded, 200) FROM scalars s WHERE s.indexed
  ),
  tokens AS (
    SELECT DISTINCT s.uuid, s.app_uuid, s.collection, s.created, 'w' || left(md5(s.app_uuid || '/' || s.collection || '/' || s.path), 12) || left(word, 64) AS token
    FROM scalars s, regexp_split_to_table(
      CASE WHEN octet_length(s.string) = char_length(s.string) THEN btrim(regexp_replace(s.folded, '[^0-9a-z]+', ' ', 'g'), ' ') ELSE idp_words(s.string) END,
      ' '
    ) AS word
    WHERE s.string IS NOT NULL AND word <> ''
  )
  -- An entity without a word has no group, so no row.
  INSERT INTO entity_words (entity_uuid, created, words)
  SELECT uuid, created, CASE
      WHEN sum(octet_length(token)) < 1000000 THEN array_to_tsvector(array_agg(token))
      ELSE array_to_tsvector(ARRAY['a' || left(md5(app_uuid || '/' || collection), 12)])
    END
  FROM tokens
  GROUP BY uuid, app_uuid, collection, created;
  -- Only a location has a box.
  INSERT INTO entity_locations
  SELECT n.uuid, n.app_uuid, n.collection, b.bounds
  FROM inserted_entities n, LATERAL (SELECT idp_location_bounds(n.properties) AS bounds) b
  WHERE n.properties #> '{location,latitude}' IS NOT NULL AND n.properties #> '{location,longitude}' IS NOT NULL AND b.bounds IS NOT NULL;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- With the elements, PostgreSQL expects the rows of an INSERT of 1,000 entities to cost 8 million
-- (the words of each string are expected to be a thousand), above jit_above_cost (100,000): it
-- compiled the statement each time, 880 ms of the 1,030 the trigger took for 1,000 people with
-- two arrays each (auto_explain), where it takes 150-250 ms uncompiled. The statement before had
-- an expected cost of 93,000 for 1,000 people of the benchmark, just under.
ALTER FUNCTION idp_index_inserted_entities() SET jit = off;
--> statement-breakpoint
UPDATE "property_index_backfill" SET "done" = 0, "after_uuid" = NULL, "indexed" = 0
WHERE "id" = 1 AND EXISTS (SELECT 1 FROM "entities");
