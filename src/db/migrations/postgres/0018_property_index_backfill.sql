-- The property index's backfill (docs/design.md#filling-the-index-of-an-older-database): as on
-- SQLite (migrations/sqlite/…_property_index_backfill.sql, where each column is explained), one
-- row holding how far `idp serve` got indexing the entities stored before the property index
-- existed, and which instance holds the lease to do it. A database whose property index
-- migration filled the table itself is marked done.
CREATE TABLE "property_index_backfill" (
  "id" integer PRIMARY KEY NOT NULL CHECK ("id" = 1),
  "done" integer NOT NULL,
  "after_uuid" text,
  "indexed" bigint DEFAULT 0 NOT NULL,
  "lease_owner" text,
  "lease_until" bigint
);
--> statement-breakpoint
INSERT INTO "property_index_backfill" ("id", "done")
SELECT 1, CASE WHEN EXISTS (SELECT 1 FROM "entity_values") OR NOT EXISTS (SELECT 1 FROM "entities") THEN 1 ELSE 0 END;
