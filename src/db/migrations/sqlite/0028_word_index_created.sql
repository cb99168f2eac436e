-- The word index keeps each entity's `created` (docs/design.md#the-word-index): a `contains` read
-- in created order — the default order, newest first, or `order by created` — orders its
-- candidates by the index's rows alone and reads their entities in that order only until a page
-- passes the exact condition (src/data/read-in-created-order.ts), instead of reading every
-- candidate, or the collection newest first. The table is made again with `created` as a second
-- UNINDEXED column (FTS5 cannot add a column), its triggers with it — the update trigger now
-- also fires when `created` changes, so the row always holds the entity's — and the rows of the
-- entities already stored are written again. Otherwise as …_word_index.sql and
-- …_deferred_index_build.sql made them.
DROP TRIGGER `entity_words_insert`;
--> statement-breakpoint
DROP TRIGGER `entity_words_update`;
--> statement-breakpoint
DROP TRIGGER `entity_words_delete`;
--> statement-breakpoint
DROP TABLE `entity_words`;
--> statement-breakpoint
-- SQLite 3.54's FTS5 leaves the `…_content` shadow table of a contentless_unindexed table behind
-- when the table is dropped (it drops one only for tables with content); defensive mode forbids
-- dropping it, which the migrations run without (src/db/open.ts migrateSqlite).
DROP TABLE IF EXISTS `entity_words_content`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `entity_words` USING fts5(
  `entity_uuid` UNINDEXED, `created` UNINDEXED, `words`,
  content='', contentless_delete=1, contentless_unindexed=1, detail=none, tokenize='ascii'
);
--> statement-breakpoint
CREATE TRIGGER `entity_words_insert` AFTER INSERT ON `entities`
WHEN idp_index_deferred() = 0
BEGIN
  INSERT INTO `entity_words` (`entity_uuid`, `created`, `words`)
  SELECT new.`uuid`, new.`created`, w.`words` FROM (SELECT idp_entity_words(new.`uuid`, new.`app_uuid`, new.`collection`, new.`properties`) AS `words` LIMIT 1) w
  WHERE w.`words` IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `entity_words_update` AFTER UPDATE OF `uuid`, `app_uuid`, `collection`, `properties`, `created` ON `entities`
BEGIN
  DELETE FROM `entity_words` WHERE `entity_words` MATCH idp_entity_word_match(old.`uuid`);
  INSERT INTO `entity_words` (`entity_uuid`, `created`, `words`)
  SELECT new.`uuid`, new.`created`, w.`words` FROM (SELECT idp_entity_words(new.`uuid`, new.`app_uuid`, new.`collection`, new.`properties`) AS `words` LIMIT 1) w
  WHERE w.`words` IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `entity_words_delete` AFTER DELETE ON `entities`
BEGIN
  DELETE FROM `entity_words` WHERE `entity_words` MATCH idp_entity_word_match(old.`uuid`);
END;
--> statement-breakpoint
-- MATERIALIZED: idp_entity_words runs once per entity, not once more for the WHERE.
WITH `words` AS MATERIALIZED (
  SELECT `uuid`, `created`, idp_entity_words(`uuid`, `app_uuid`, `collection`, `properties`) AS `words` FROM `entities`
)
INSERT INTO `entity_words` (`entity_uuid`, `created`, `words`) SELECT `uuid`, `created`, `words` FROM `words` WHERE `words` IS NOT NULL;
