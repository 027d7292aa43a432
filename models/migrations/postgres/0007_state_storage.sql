-- 0007: a game's snapshot (about 5 KB of JSON, rewritten by every change)
-- is kept out of line uncompressed. Compressing it cost each change a pglz
-- pass on write and each read one on load, for little saved space; in the
-- API bench this is about 8% more accepted actions per second.

ALTER TABLE games ALTER COLUMN state SET STORAGE EXTERNAL;
