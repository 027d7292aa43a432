-- 0010: the database announces only what someone watches. A NOTIFY makes
-- its transaction take a lock that every notifying commit shares, so a
-- change nobody follows live (in a play-by-email game, most of them) now
-- sends none: game events are announced while the game has a live-stream
-- connection, notifications while their user has one (stream_presence,
-- whose rows now also name the game a game stream follows). A connection
-- writes its row, then waits for the transactions already running to end
-- before it reads the stored backlog (notifier.Presence), so that a change
-- that did not see the row is in that backlog.

ALTER TABLE stream_presence ADD COLUMN game_id BIGINT;
CREATE INDEX stream_presence_game ON stream_presence (game_id) WHERE game_id IS NOT NULL;

CREATE OR REPLACE FUNCTION dm_announce_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    FOR r IN
        SELECT n.game_id, min(n.seq) AS lo, max(n.seq) AS hi FROM new_rows n
        WHERE EXISTS (SELECT 1 FROM stream_presence p WHERE p.game_id = n.game_id)
        GROUP BY n.game_id
    LOOP
        PERFORM pg_notify(current_schema() || '.dm_events', json_build_object('game_id', r.game_id, 'from_seq', r.lo, 'to_seq', r.hi)::text);
    END LOOP;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION dm_announce_notifications() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    p text;
BEGIN
    FOR p IN
        SELECT json_build_object('notes', json_agg(json_build_object('user_id', user_id, 'notification_id', id) ORDER BY id))::text
        FROM (SELECT n.user_id, n.id, (row_number() OVER (ORDER BY n.id) - 1) / 100 AS chunk FROM new_rows n
              WHERE EXISTS (SELECT 1 FROM stream_presence s WHERE s.user_id = n.user_id AND s.game_id IS NULL)) w
        GROUP BY chunk ORDER BY chunk
    LOOP
        PERFORM pg_notify(current_schema() || '.dm_events', p);
    END LOOP;
    RETURN NULL;
END $$;
