-- 0011: on Postgres a change announces itself from its own write; SQLite
-- has nothing to drop.

SELECT 1;
