-- The property index's backfill (docs/design.md#filling-the-index-of-an-older-database): the
-- property index migration no longer fills `entity_values` from the entities already stored (a
-- large database would wait for it before listening); its triggers index every write from then
-- on, and `idp serve` indexes the older entities afterwards, a batch at a time, in uuid order
-- (src/db/property-index-store.ts). This one row says how far it got, so a restart carries on
-- from there, and which instance is doing it (a lease, as the push queue's).
--
-- `done` is 1 once every entity has its rows; until then queries do not use the index. A
-- database that ran the property index migration before it stopped filling the table has a
-- complete index — rows, or no entities at all — and is marked done here. (A database that had
-- entities but none with an indexable property is walked once more, which changes nothing.)
CREATE TABLE `property_index_backfill` (
  `id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1),
  `done` integer NOT NULL,
  `after_uuid` text,
  `indexed` integer DEFAULT 0 NOT NULL,
  `lease_owner` text,
  `lease_until` integer
);
--> statement-breakpoint
INSERT INTO `property_index_backfill` (`id`, `done`)
SELECT 1, CASE WHEN EXISTS (SELECT 1 FROM `entity_values`) OR NOT EXISTS (SELECT 1 FROM `entities`) THEN 1 ELSE 0 END;
