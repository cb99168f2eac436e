-- The trigger of 0024_index_entity_trigger.sql, with the same rows at about four fifths of its
-- cost in statements of many rows (docs/design.md#keeping-the-indexes-on-postgresql): 261 → 216 µs
-- per entity inserted 3,000 to a statement, 350 → 325 µs of PostgreSQL's CPU per create of
-- `parse` with create batching (docs/benchmarks.md#creating-an-entity-on-postgresql); in
-- statements of one row under load it measured 11% more. The entity's JSON is walked by PL/pgSQL
-- statements whose plans are small — one jsonb_each per object, the rest plain expressions —
-- where one statement of recursive CTEs, a subquery per property for the collection's settings,
-- a regexp split and a DISTINCT had many nodes for the executor to set up again for each entity. The rows are the same, built the same way:
--
-- idp_entity_rows: of an entity's properties, the property index's rows as arrays (path, kind 1
-- number / 2 string / 3 boolean, number, folded string cut to 200 characters) and the word
-- index's tsvector (NULL when no words). Paths through objects only, identifier segments, at most
-- 3 deep and 128 characters; numbers as double precision, booleans 1/0; a string of ASCII folds by
-- lower() and splits on [^0-9a-z]+ inline, as idp_fold and idp_words do for it, other strings call
-- them; a path the collection's settings leave out (docs/api.md#collection-settings) has no row
-- but keeps its words. The tokens (…_word_index.sql) are `w`, 12 hex digits of
-- md5(application/collection/path) and the word cut to 64 characters: each word is prefixed by a
-- replace() of the spaces between words, which hold no space themselves. Their tsvector when
-- their distinct bytes are under 1 MB (array_to_tsvector removes repeats), else the one token
-- `a` and md5(application/collection); the bytes of all of them, counted as they are made, bound
-- the distinct ones', so the exact sum is taken only above 1 MB.
CREATE FUNCTION idp_entity_rows(app_uuid text, collection text, properties jsonb,
  OUT paths text[], OUT kinds integer[], OUT nums double precision[], OUT texts text[], OUT words tsvector)
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
DECLARE
  unindexed text[];
  objects jsonb[];
  prefixes text[];
  depths integer[];
  i integer := 1;
  key text;
  value jsonb;
  path text;
  type text;
  string text;
  folded text;
  line text;
  prefix text;
  excluded text;
  indexed boolean;
  tokens text[];
  token_bytes bigint := 0;
BEGIN
  IF jsonb_typeof(idp_entity_rows.properties) = 'object' THEN
    SELECT array_agg(u.path) INTO unindexed FROM unindexed_paths u WHERE u.app_uuid = idp_entity_rows.app_uuid AND u.collection = idp_entity_rows.collection;
    -- The objects to walk, breadth first: the properties, then each object found at depth 1 or 2.
    objects := ARRAY[idp_entity_rows.properties];
    prefixes := ARRAY[''];
    depths := ARRAY[1];
    WHILE i <= cardinality(objects) LOOP
      FOR key, value IN SELECT e.key, e.value FROM jsonb_each(objects[i]) e WHERE e.key ~ '^[A-Za-z_][A-Za-z0-9_]*$' LOOP
        path := prefixes[i] || key;
        type := jsonb_typeof(value);
        IF type = 'object' THEN
          IF depths[i] < 3 THEN
            objects := array_append(objects, value);
            prefixes := array_append(prefixes, path || '.');
            depths := array_append(depths, depths[i] + 1);
          END IF;
          CONTINUE;
        END IF;
        CONTINUE WHEN type NOT IN ('number', 'string', 'boolean') OR length(path) > 128;
        indexed := true;
        IF unindexed IS NOT NULL THEN
          FOREACH excluded IN ARRAY unindexed LOOP
            IF excluded = path OR left(path, length(excluded) + 1) = excluded || '.' THEN
              indexed := false;
              EXIT;
            END IF;
          END LOOP;
        END IF;
        IF type = 'string' THEN
          string := value #>> '{}';
          IF octet_length(string) = char_length(string) THEN
            folded := lower(string COLLATE "C");
            line := btrim(regexp_replace(folded, '[^0-9a-z]+', ' ', 'g'), ' ');
          ELSE
            folded := idp_fold(string);
            line := idp_words(string);
          END IF;
          IF indexed THEN
            paths := array_append(paths, path);
            kinds := array_append(kinds, 2);
            nums := array_append(nums, NULL::double precision);
            texts := array_append(texts, left(folded, 200));
          END IF;
          IF line <> '' THEN
            IF char_length(line) > 64 THEN
              -- Words of more than 64 characters cut to 64.
              line := regexp_replace(line, '([^ ]{64})[^ ]+', E'\\1', 'g');
            END IF;
            prefix := 'w' || left(md5(idp_entity_rows.app_uuid || '/' || idp_entity_rows.collection || '/' || path), 12);
            line := prefix || replace(line, ' ', ' ' || prefix);
            token_bytes := token_bytes + octet_length(line);
            tokens := tokens || string_to_array(line, ' ');
          END IF;
        ELSIF indexed THEN
          paths := array_append(paths, path);
          IF type = 'number' THEN
            kinds := array_append(kinds, 1);
            nums := array_append(nums, CAST(value AS double precision));
          ELSE
            kinds := array_append(kinds, 3);
            nums := array_append(nums, CASE WHEN value = 'true'::jsonb THEN 1 ELSE 0 END::double precision);
          END IF;
          texts := array_append(texts, NULL::text);
        END IF;
      END LOOP;
      i := i + 1;
    END LOOP;
    IF tokens IS NOT NULL THEN
      IF token_bytes < 1000000 THEN
        words := array_to_tsvector(tokens);
      ELSE
        SELECT CASE
          WHEN sum(octet_length(d.token)) < 1000000 THEN array_to_tsvector(array_agg(d.token))
          ELSE array_to_tsvector(ARRAY['a' || left(md5(idp_entity_rows.app_uuid || '/' || idp_entity_rows.collection), 12)])
        END INTO words
        FROM (SELECT DISTINCT t AS token FROM unnest(tokens) t) d;
      END IF;
    END IF;
  END IF;
END
$$;
--> statement-breakpoint
-- The property index's rows of one entity, for the backfill (src/db/property-index-store.ts): the
-- trigger's own, from idp_entity_rows.
CREATE OR REPLACE FUNCTION idp_entity_values(text, text, text, jsonb)
RETURNS TABLE (entity_uuid text, path text, app_uuid text, collection text, kind integer, num double precision, text text)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT $1, u.path, $2, $3, u.kind, u.num, u.text
  FROM idp_entity_rows($2, $3, $4) r, unnest(r.paths, r.kinds, r.nums, r.texts) AS u(path, kind, num, text)
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION idp_index_entity() RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
  bounds box;
  index_rows record;
BEGIN
  IF TG_OP <> 'INSERT' THEN
    DELETE FROM entity_values WHERE entity_values.entity_uuid = OLD.uuid;
    DELETE FROM entity_words WHERE entity_words.entity_uuid = OLD.uuid;
    IF OLD.properties #> '{location,latitude}' IS NOT NULL AND OLD.properties #> '{location,longitude}' IS NOT NULL THEN
      DELETE FROM entity_locations WHERE entity_locations.entity_uuid = OLD.uuid;
    END IF;
    IF TG_OP = 'DELETE' THEN
      RETURN NULL;
    END IF;
  END IF;
  -- One call, an expression rather than a query: PL/pgSQL evaluates it without starting a plan.
  index_rows := idp_entity_rows(NEW.app_uuid, NEW.collection, NEW.properties);
  IF index_rows.paths IS NOT NULL THEN
    INSERT INTO entity_values
    SELECT NEW.uuid, u.path, NEW.app_uuid, NEW.collection, u.kind, u.num, u.text FROM unnest(index_rows.paths, index_rows.kinds, index_rows.nums, index_rows.texts) AS u(path, kind, num, text);
  END IF;
  IF index_rows.words IS NOT NULL THEN
    INSERT INTO entity_words VALUES (NEW.uuid, index_rows.words);
  END IF;
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
DROP FUNCTION idp_entity_scalars(text, text, jsonb);
