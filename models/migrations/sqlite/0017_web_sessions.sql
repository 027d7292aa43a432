-- 0017: what the browser's pages keep: each user's time zone and verified
-- address, sign-in sessions, and the sign-in links already used.

-- An IANA zone name, checked by the pages; deadlines are shown in it.
ALTER TABLE users ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC';
-- The address the user proved they read, '' for none. The address is
-- verified while this equals email, so a change of address, by any route,
-- unverifies it.
ALTER TABLE users ADD COLUMN verified_email TEXT NOT NULL DEFAULT '';

-- A browser's session: the SHA-256 of its cookie's value, never the value.
CREATE TABLE web_sessions (
    token_hash  BLOB PRIMARY KEY,
    user_id     BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at  DATETIME NOT NULL,
    expires_at  DATETIME NOT NULL
);
CREATE INDEX web_sessions_user ON web_sessions (user_id);
CREATE INDEX web_sessions_expires ON web_sessions (expires_at);

-- The nonces of the sign-in links of emails that were used; a link is
-- signed, so nothing is written when one is mailed. Rows go once the link
-- has expired.
CREATE TABLE used_links (
    nonce       BLOB PRIMARY KEY,
    user_id     BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    used_at     DATETIME NOT NULL,
    expires_at  DATETIME NOT NULL
);
CREATE INDEX used_links_expires ON used_links (expires_at);
