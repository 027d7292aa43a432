-- 0030: a user's notification log is read in the order its rows can no
-- longer change: by the writing transaction's id, then the row's. Ids
-- are taken as rows are written, in changes of different games that may
-- commit in the other order; a reader that resumed after the id of a row
-- committed first skipped one committed later with a smaller id. A row is
-- read once no transaction older than its own is running (see
-- models.Store.NotificationsFrom), so what a reader has read is a prefix
-- of the log that stays one. Rows written before this get the id of this
-- migration's transaction: older than any later one, in their id order.
ALTER TABLE notifications ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX notifications_user_xid ON notifications (user_id, xid, id);
DROP INDEX notifications_user;
