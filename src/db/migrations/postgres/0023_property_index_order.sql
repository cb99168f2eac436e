-- The property index in the order of a query's `order by` (docs/design.md#sorting-through-the-property-index):
-- a page ordered by one property walks the rows of its path by value, then entity uuid, as
-- src/data/query/order.ts orders ties, in code-point order (COLLATE "C"). With the uuid in the
-- index the walk stops after a page; without it PostgreSQL sorted every row of the path. The
-- indexes of 0007_property_index.sql, with the uuid added: they still serve every lookup those did.
DROP INDEX "entity_values_number";
--> statement-breakpoint
CREATE INDEX "entity_values_number" ON "entity_values" ("app_uuid", "collection", "path", "kind", "num", "entity_uuid" COLLATE "C") WHERE "num" IS NOT NULL;
--> statement-breakpoint
DROP INDEX "entity_values_text";
--> statement-breakpoint
CREATE INDEX "entity_values_text" ON "entity_values" ("app_uuid", "collection", "path", "text", "entity_uuid" COLLATE "C") WHERE "text" IS NOT NULL;
