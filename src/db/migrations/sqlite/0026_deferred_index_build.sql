-- The bulk import (docs/design.md#the-bulk-import): inside an import's own transaction the three
-- indexes derived from `entities` — the property index (…_property_index.sql), the location index
-- (…_location_index.sql) and the word index (…_word_index.sql) — are not written row by row by
-- their insert triggers, but once per batch, in key order, by src/db/entity-import-store.ts.
-- idp_index_deferred() (src/db/functions.ts) is 1 only on the connection of such a transaction,
-- while it runs; everywhere else the triggers index every insert as before. The update and delete
-- triggers are unchanged.
DROP TRIGGER `entity_values_insert`;
--> statement-breakpoint
CREATE TRIGGER `entity_values_insert` AFTER INSERT ON `entities`
WHEN idp_index_deferred() = 0
BEGIN
  INSERT OR IGNORE INTO `entity_values` SELECT * FROM `entity_values_source` WHERE `entity_uuid` = new.`uuid`;
END;
--> statement-breakpoint
DROP TRIGGER `entity_locations_insert`;
--> statement-breakpoint
CREATE TRIGGER `entity_locations_insert` AFTER INSERT ON `entities`
WHEN (instr(new.`properties`, '"location"') > 0 OR instr(new.`properties`, '\') > 0) AND idp_index_deferred() = 0
BEGIN
  INSERT INTO `entity_locations` SELECT * FROM `entity_locations_source` WHERE `entity_uuid` = new.`uuid`;
END;
--> statement-breakpoint
DROP TRIGGER `entity_words_insert`;
--> statement-breakpoint
CREATE TRIGGER `entity_words_insert` AFTER INSERT ON `entities`
WHEN idp_index_deferred() = 0
BEGIN
  INSERT INTO `entity_words` (`entity_uuid`, `words`)
  SELECT new.`uuid`, w.`words` FROM (SELECT idp_entity_words(new.`uuid`, new.`app_uuid`, new.`collection`, new.`properties`) AS `words` LIMIT 1) w
  WHERE w.`words` IS NOT NULL;
END;
