-- Tables for the raw-Postgres ceiling (docs/performance.md): run once in the bench
-- database after `datamonsters migrate`, then ceiling.sql with pgbench.
-- Copies of games, actions and river_job (indexes included, no foreign
-- keys) so the run leaves the service's own tables alone.
DROP TABLE IF EXISTS ceiling_games, ceiling_actions, ceiling_jobs;
CREATE TABLE ceiling_games (id bigint PRIMARY KEY, version bigint NOT NULL, action_seq bigint NOT NULL,
  updated_at timestamptz NOT NULL, state jsonb NOT NULL);
CREATE TABLE ceiling_actions (LIKE actions INCLUDING ALL);
CREATE TABLE ceiling_jobs (LIKE river_job INCLUDING ALL);
-- 1,000 games, each with a ~6 KB JSONB state of hashes (little to compress).
INSERT INTO ceiling_games
SELECT g, 1, 0, now(), jsonb_build_object('v', 1, 'cards',
  (SELECT jsonb_agg(jsonb_build_object('id', i, 'name', md5(g::text || i::text), 'zone', md5(i::text || g::text)))
   FROM generate_series(1, 68) i))
FROM generate_series(1, 1000) g;
VACUUM ANALYZE ceiling_games;
SELECT pg_size_pretty(avg(pg_column_size(state))::bigint) AS stored_state, avg(length(state::text))::int AS state_chars FROM ceiling_games;
