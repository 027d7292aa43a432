-- 0007: on Postgres the game snapshot is stored uncompressed; SQLite has no
-- such setting (it never compresses), so this version changes nothing here.

SELECT 1;
