-- 0008: the database announces what it stores to the live stream of every
-- server process: after each statement that inserts game events or
-- notifications, a NOTIFY on <schema>.dm_events names them (identifiers only: a game
-- and a range of event sequence numbers; notifications' users and ids, at
-- most 100 a payload, well under the 8,000 bytes Postgres allows). A
-- NOTIFY is delivered when, and only when, its transaction commits, and
-- announcing here costs a change no statement of its own. The payloads are
-- those of notifier.EncodeNotify.

CREATE FUNCTION dm_announce_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT game_id, min(seq) AS lo, max(seq) AS hi FROM new_rows GROUP BY game_id LOOP
        PERFORM pg_notify(current_schema() || '.dm_events', json_build_object('game_id', r.game_id, 'from_seq', r.lo, 'to_seq', r.hi)::text);
    END LOOP;
    RETURN NULL;
END $$;

CREATE TRIGGER events_announce AFTER INSERT ON events
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION dm_announce_events();

CREATE FUNCTION dm_announce_notifications() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    p text;
BEGIN
    FOR p IN
        SELECT json_build_object('notes', json_agg(json_build_object('user_id', user_id, 'notification_id', id) ORDER BY id))::text
        FROM (SELECT user_id, id, (row_number() OVER (ORDER BY id) - 1) / 100 AS chunk FROM new_rows) n
        GROUP BY chunk ORDER BY chunk
    LOOP
        PERFORM pg_notify(current_schema() || '.dm_events', p);
    END LOOP;
    RETURN NULL;
END $$;

CREATE TRIGGER notifications_announce AFTER INSERT ON notifications
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION dm_announce_notifications();
