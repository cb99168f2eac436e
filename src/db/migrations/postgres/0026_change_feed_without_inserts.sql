-- The change feed (0014_change_feed, docs/design.md#the-read-cache) no longer reports new entities:
-- PostgreSQL commits the transactions that notify one at a time (one lock per database, held
-- through the WAL flush), so a trigger notifying on every insert made every create wait for the
-- others' commits (the create of `parse`, seven interleaved pairs at load 3.0–8.3: median 344 → 819
-- req/s, docs/benchmarks.md#creating-an-entity-on-postgresql). No remembered read can be changed by
-- a new entity: entities are remembered only as single rows found by a key no other row can hold
-- (`rememberedRow`, src/db/open.ts), and "not found" is not remembered where inserts are not
-- reported (src/db/read-cache.ts). Updates, deletes (an application's cascade included) and
-- TRUNCATE are still reported, by any instance or tool.
DROP TRIGGER IF EXISTS idp_changed ON entities;
--> statement-breakpoint
CREATE TRIGGER idp_changed AFTER UPDATE OR DELETE OR TRUNCATE ON entities FOR EACH STATEMENT EXECUTE FUNCTION idp_table_changed();
