-- 0031: where in the user's notification log their digests have told
-- up to (models.NoteCursor: the writing transaction's id and the row's;
-- 0 and 0: not yet, the next digest starts from the time of the last).
-- A digest told what was written since the last one's time, and a
-- change still running then, with a time before it, committed after:
-- its notification was in no digest, and the digest had kept its email.
ALTER TABLE notification_prefs ADD COLUMN told_xid BIGINT NOT NULL DEFAULT 0;
ALTER TABLE notification_prefs ADD COLUMN told_id BIGINT NOT NULL DEFAULT 0;
