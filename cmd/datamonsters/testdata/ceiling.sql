-- The transaction shape of an accepted submission (docs/performance.md): lock a game
-- row, write its ~6 KB JSONB state with the next version, insert an action
-- row and a job row. Tables from ceiling_setup.sql.
\set id random(1, 1000)
BEGIN;
SELECT version FROM ceiling_games WHERE id = :id FOR UPDATE;
UPDATE ceiling_games SET version = version + 1, action_seq = action_seq + 1, updated_at = now(),
  state = jsonb_set(state, '{v}', to_jsonb(version + 1)) WHERE id = :id;
INSERT INTO ceiling_actions (game_id, seq, version, seat, user_id, body, created_at)
  SELECT id, action_seq, version, 0, NULL, '{"type":"end_turn"}', now() FROM ceiling_games WHERE id = :id;
INSERT INTO ceiling_jobs (kind, args, queue, unique_key, unique_states)
  VALUES ('email', jsonb_build_object('key', 'g' || :id::text || '.' || random()::text, 'user_id', :id::bigint), 'default', NULL, NULL);
COMMIT;
