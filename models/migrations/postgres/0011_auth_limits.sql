-- 0011: access tokens that can be ended, and rate limits every replica
-- shares.
--
-- users.token_gen is the generation of the user's access tokens: a token
-- carries the generation it was issued at and is good only while the user's
-- is the same. Logout, a password change and the reuse of a rotated refresh
-- token add one, which ends every access token issued before, on every
-- replica at once.
--
-- rate_limits holds one token bucket per key (GCRA: tat is the bucket's
-- theoretical arrival time in microseconds since the Unix epoch; the bucket
-- is full once tat is past). The key is a keyed hash (HMAC under the
-- server's secret) of what is limited, an account or a client address, so
-- the table names neither; a row whose tat is past is the same as no row,
-- and is purged.

ALTER TABLE users ADD COLUMN token_gen BIGINT NOT NULL DEFAULT 0;

CREATE TABLE rate_limits (
    key BYTEA PRIMARY KEY,
    tat BIGINT NOT NULL
);
