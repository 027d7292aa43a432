-- 0008: on Postgres the database announces stored events and notifications
-- with NOTIFY; SQLite runs one process, whose stream jobs publish them, so
-- this version changes nothing here.

SELECT 1;
