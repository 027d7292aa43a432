-- 0010: a game's snapshot (about 4-5 KB of JSON, rewritten by every change)
-- is compressed with lz4, which halves it, and kept in the game row rather
-- than out of line: each change then writes one row version instead of a
-- row and three TOAST chunks with their index entries, and Postgres can
-- make it a heap-only update, for which the table leaves room in its pages.
-- lz4 costs a few microseconds where pglz (the reason for 0007) cost much
-- more. A snapshot still too large once compressed goes out of line as
-- before. On a server built without lz4, 0007's setting stays.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    ALTER TABLE games ALTER COLUMN state SET STORAGE EXTENDED, ALTER COLUMN state SET COMPRESSION lz4;
    ALTER TABLE games SET (toast_tuple_target = 4080, fillfactor = 60);
  END IF;
END
$$;
