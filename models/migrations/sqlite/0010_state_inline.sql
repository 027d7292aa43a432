-- 0010: on Postgres the game snapshot is compressed with lz4 and kept in the
-- game row; SQLite has no such setting, so this version changes nothing here.

SELECT 1;
