-- The entities one INSERT writes are indexed together, once per statement rather than once per
-- row (docs/design.md#keeping-the-indexes-on-postgresql). Creates of single entities arrive as
-- one INSERT of up to 100 rows (src/db/create-batching.ts), and a POST of an array or a bulk
-- import as INSERTs of up to 1,000: a trigger for each row ran its statements — and paid their
-- executors' start and end — for every one of them. The insert trigger is now a statement
-- trigger: it sees the inserted rows as a transition table, `inserted_entities`, and writes each
-- index's rows of all of them with one statement (docs/benchmarks.md#indexing-per-statement-on-postgresql).
--
-- The statements are those of idp_index_entity (…_word_index_created.sql) over a set of entities
-- instead of NEW: the same rows, as test/query/index-trigger.test.ts holds. idp_index_entity stays
-- the trigger of updates and deletes: a trigger with a column list (`UPDATE OF …`) may have no
-- transition table, and an update is one row. Handing it the one row instead, as an array to a
-- function both triggers call, cost a statement of one row (a create alone, an update) about
-- 10% more of PostgreSQL's CPU: planning the array's statements again at each call, or forcing a
-- generic plan, which a function's setting does at each call.
CREATE FUNCTION idp_index_inserted_entities() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  WITH scalars AS MATERIALIZED (
    SELECT n.uuid, n.app_uuid, n.collection, n.created, s.* FROM inserted_entities n, idp_entity_scalars(n.app_uuid, n.collection, n.properties) s
  ),
  property_rows AS (
    INSERT INTO entity_values
    SELECT s.uuid, s.path, s.app_uuid, s.collection, s.kind, s.num, left(s.folded, 200) FROM scalars s WHERE s.indexed
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
DROP TRIGGER "entity_index_insert" ON "entities";
--> statement-breakpoint
CREATE TRIGGER "entity_index_insert" AFTER INSERT ON "entities"
REFERENCING NEW TABLE AS inserted_entities
FOR EACH STATEMENT EXECUTE FUNCTION idp_index_inserted_entities();
