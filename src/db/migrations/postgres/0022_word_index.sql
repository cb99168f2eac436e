-- The word index (docs/design.md#the-word-index): for every entity with a word in a string
-- property, a row holding its tokens as a tsvector with a GIN index, so `contains` finds its
-- candidates without reading the collection (src/data/query/word-index.ts spells the tokens and
-- looks them up). The tokens are those SQLite's FTS5 table holds (migrations/sqlite/0025_word_index.sql):
-- `w`, the first 12 hex digits of md5(application/collection/path), and the word as
-- idp_words (0001_query_functions.sql, functions.ts splitWords) gives it, cut to 64 characters;
-- array_to_tsvector takes them as written, no parser or dictionary between. A tsvector holds at
-- most 1 MB of lexemes: an entity with more gets the one token `a` and md5(application/collection),
-- which every `contains` on its collection looks up too. Paths as the property index's
-- (0007_property_index.sql). Kept by a trigger in the statement that writes the entity.
CREATE TABLE "entity_words" (
  "entity_uuid" text PRIMARY KEY REFERENCES "entities"("uuid") ON DELETE CASCADE,
  "words" tsvector NOT NULL
);
--> statement-breakpoint
CREATE INDEX "entity_words_words" ON "entity_words" USING gin ("words");
--> statement-breakpoint
-- The tokens of one entity's string properties; NULL when it has no word. PL/pgSQL keeps the
-- query's plan for the session; an SQL function would plan it again for every entity written.
CREATE OR REPLACE FUNCTION idp_entity_words(text, text, jsonb)
RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
BEGIN
  RETURN (WITH RECURSIVE tree(path, depth, value) AS (
    SELECT e.key, 1, e.value FROM jsonb_each(CASE WHEN jsonb_typeof($3) = 'object' THEN $3 ELSE '{}'::jsonb END) e
    WHERE e.key ~ '^[A-Za-z_][A-Za-z0-9_]*$'
    UNION ALL
    SELECT t.path || '.' || e.key, t.depth + 1, e.value FROM tree t, jsonb_each(t.value) e
    WHERE jsonb_typeof(t.value) = 'object' AND t.depth < 3 AND e.key ~ '^[A-Za-z_][A-Za-z0-9_]*$'
  ),
  tokens AS (
    SELECT DISTINCT 'w' || left(md5($1 || '/' || $2 || '/' || tree.path), 12) || left(word, 64) AS token
    FROM tree, regexp_split_to_table(idp_words(tree.value #>> '{}'), ' ') AS word
    WHERE jsonb_typeof(tree.value) = 'string' AND length(tree.path) <= 128 AND word <> ''
  )
  SELECT CASE
    WHEN count(*) = 0 THEN NULL
    WHEN sum(octet_length(token)) < 1000000 THEN array_to_tsvector(array_agg(token))
    ELSE array_to_tsvector(ARRAY['a' || left(md5($1 || '/' || $2), 12)])
  END
  FROM tokens);
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION idp_index_entity_words() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    DELETE FROM entity_words WHERE entity_words.entity_uuid = OLD.uuid;
  END IF;
  INSERT INTO entity_words SELECT NEW.uuid, w FROM idp_entity_words(NEW.app_uuid, NEW.collection, NEW.properties) AS w WHERE w IS NOT NULL;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "entity_words_insert" AFTER INSERT ON "entities"
FOR EACH ROW EXECUTE FUNCTION idp_index_entity_words();
--> statement-breakpoint
CREATE TRIGGER "entity_words_update" AFTER UPDATE OF "uuid", "app_uuid", "collection", "properties" ON "entities"
FOR EACH ROW EXECUTE FUNCTION idp_index_entity_words();
--> statement-breakpoint
INSERT INTO "entity_words" SELECT e.uuid, w FROM "entities" e, idp_entity_words(e.app_uuid, e.collection, e.properties) AS w WHERE w IS NOT NULL;
