-- `order by modified` (docs/api.md#queries-and-paging) reads a collection in this index's order and
-- stops after a page, as the default order, created, reads entities_app_collection_created;
-- without it a page sorted the whole collection (967 ms at a million entities on SQLite).
CREATE INDEX `entities_app_collection_modified` ON `entities` (`app_uuid`,`collection`,`modified`);
