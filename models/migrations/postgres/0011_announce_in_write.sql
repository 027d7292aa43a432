-- 0011: a change announces its events and notifications from its own
-- write statement (models.announce), still only what a live-stream
-- connection follows, instead of from triggers: the triggers' run per
-- statement (transition tables, PL/pgSQL) cost more than the NOTIFY they
-- sent. Notifications stored outside a game change are announced by the
-- outbox in their transaction.

DROP TRIGGER events_announce ON events;
DROP TRIGGER notifications_announce ON notifications;
DROP FUNCTION dm_announce_events();
DROP FUNCTION dm_announce_notifications();
