-- The word index keeps each entity's `created` (docs/design.md#the-word-index), as SQLite's does
-- (migrations/sqlite/0028_word_index_created.sql): a `contains` read in created order — the
-- default order, newest first, or `order by created` — orders its candidates by the index's rows
-- alone and reads their entities in that order only until a page passes the exact condition
-- (src/data/read-in-created-order.ts), instead of reading every candidate. The table is made
-- again with `created` between the uuid and the words, from the rows it holds and their entities'
-- `created` (one pass and one build of each index, where an UPDATE of every row would write each
-- row's GIN entries again: about 7 s at a million). The one trigger of …_index_entity_trigger.sql,
-- restated below as it was but for `created`, writes it, and now also runs when `created` changes,
-- so the row always holds the entity's.
CREATE TABLE "entity_words_created" (
  "entity_uuid" text PRIMARY KEY,
  "created" bigint NOT NULL,
  "words" tsvector NOT NULL
);
--> statement-breakpoint
INSERT INTO "entity_words_created" SELECT w.entity_uuid, e.created, w.words FROM "entity_words" w JOIN "entities" e ON e.uuid = w.entity_uuid;
--> statement-breakpoint
DROP TABLE "entity_words";
--> statement-breakpoint
ALTER TABLE "entity_words_created" RENAME TO "entity_words";
--> statement-breakpoint
ALTER INDEX "entity_words_created_pkey" RENAME TO "entity_words_pkey";
--> statement-breakpoint
CREATE INDEX "entity_words_words" ON "entity_words" USING gin ("words");
--> statement-breakpoint
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
DROP TRIGGER "entity_index_update" ON "entities";
--> statement-breakpoint
CREATE TRIGGER "entity_index_update" AFTER UPDATE OF "uuid", "app_uuid", "collection", "properties", "created" ON "entities"
FOR EACH ROW EXECUTE FUNCTION idp_index_entity();
--> statement-breakpoint
-- The planner's statistics of the new table (src/db/planner-statistics.ts keeps them after).
ANALYZE "entity_words";
