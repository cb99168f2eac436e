-- The word index (docs/design.md#the-word-index): an FTS5 table holding, for every entity with a
-- word in a string property, one row of tokens, so `contains` finds its candidates without
-- reading the collection (src/data/query/word-index.ts spells the tokens and looks them up).
--
-- idp_entity_words (src/db/functions.ts) writes the row: the entity's token, then one token per
-- distinct word and path — `w`, a key of the application, collection and path, the word as
-- `contains` splits and folds it — space-separated. The `ascii` tokenizer splits on ASCII spaces
-- and punctuation only, which no token holds, so FTS5 keeps each token as written.
-- `content=''` stores no text (the entity has it); `contentless_unindexed=1` keeps only the
-- entity's uuid, the candidates' answer; `detail=none` no positions (order and adjacency are
-- left to the exact condition); `contentless_delete=1` lets the triggers delete a row, found by
-- the entity's token (idp_entity_word_match). Entities without a word get no row and cost no
-- FTS5 write (the LIMIT keeps SQLite from flattening the subquery, which would call
-- idp_entity_words twice). Not in the drizzle schema: derived from `entities`, like an index, by the
-- triggers, in the statement that writes the entity.
CREATE VIRTUAL TABLE `entity_words` USING fts5(
  `entity_uuid` UNINDEXED, `words`,
  content='', contentless_delete=1, contentless_unindexed=1, detail=none, tokenize='ascii'
);
--> statement-breakpoint
CREATE TRIGGER `entity_words_insert` AFTER INSERT ON `entities`
BEGIN
  INSERT INTO `entity_words` (`entity_uuid`, `words`)
  SELECT new.`uuid`, w.`words` FROM (SELECT idp_entity_words(new.`uuid`, new.`app_uuid`, new.`collection`, new.`properties`) AS `words` LIMIT 1) w
  WHERE w.`words` IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `entity_words_update` AFTER UPDATE OF `uuid`, `app_uuid`, `collection`, `properties` ON `entities`
BEGIN
  DELETE FROM `entity_words` WHERE `entity_words` MATCH idp_entity_word_match(old.`uuid`);
  INSERT INTO `entity_words` (`entity_uuid`, `words`)
  SELECT new.`uuid`, w.`words` FROM (SELECT idp_entity_words(new.`uuid`, new.`app_uuid`, new.`collection`, new.`properties`) AS `words` LIMIT 1) w
  WHERE w.`words` IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `entity_words_delete` AFTER DELETE ON `entities`
BEGIN
  DELETE FROM `entity_words` WHERE `entity_words` MATCH idp_entity_word_match(old.`uuid`);
END;
--> statement-breakpoint
INSERT INTO `entity_words` (`entity_uuid`, `words`)
SELECT e.`uuid`, idp_entity_words(e.`uuid`, e.`app_uuid`, e.`collection`, e.`properties`) FROM `entities` e
WHERE idp_entity_words(e.`uuid`, e.`app_uuid`, e.`collection`, e.`properties`) IS NOT NULL;
