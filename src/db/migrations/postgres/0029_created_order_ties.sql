-- The default order is `created` then `uuid`, and `order by modified` is `modified` then `uuid`
-- (docs/api.md#queries-and-paging). With the uuid in the index, a page newest first reads a page:
-- without it, the entities sharing a `created` (every entity of one POST) were read whole and
-- sorted, a thousand for a page of ten after a POST of a thousand. The uuid is COLLATE "C", as
-- the order compares it (src/data/query/dialect.ts); drizzle's schema names the column alone.
DROP INDEX "entities_app_collection_created";--> statement-breakpoint
DROP INDEX "entities_app_collection_modified";--> statement-breakpoint
CREATE INDEX "entities_app_collection_created" ON "entities" USING btree ("app_uuid","collection","created","uuid" COLLATE "C");--> statement-breakpoint
CREATE INDEX "entities_app_collection_modified" ON "entities" USING btree ("app_uuid","collection","modified","uuid" COLLATE "C");
