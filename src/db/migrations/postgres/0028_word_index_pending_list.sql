-- The word index's GIN index (…_word_index.sql) takes new entries into a pending list that every
-- lookup reads in full, until a vacuum or a list grown past gin_pending_list_limit (4 MB by
-- default) merges it into the index: right after a bulk import of a million people `contains
-- 'tag777'` took 11–12 ms with 409 pages pending, 4.7 ms once they were merged
-- (docs/benchmarks.md#within-and-contains-on-postgresql). This index merges at 256 kB: a lookup
-- reads at most 32 pages of it, and the write that merges it merges less at a time.
ALTER INDEX "entity_words_words" SET (gin_pending_list_limit = 256);
