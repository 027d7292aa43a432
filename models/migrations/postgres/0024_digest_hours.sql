-- 0024: the digest is at most one email per hours hours (0: the default,
-- DefaultDigestHours); sent_at is when the user's last digest went out
-- (NULL: never). Both are the digest's row's (kind 'digest', channel
-- 'email'); the other rows leave them alone.

ALTER TABLE notification_prefs ADD COLUMN hours INTEGER NOT NULL DEFAULT 0;
ALTER TABLE notification_prefs ADD COLUMN sent_at TIMESTAMPTZ;
