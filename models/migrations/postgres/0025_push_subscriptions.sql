-- 0025: Web Push subscriptions (RFC 8030, docs/push.md). A row is one
-- browser's subscription, made by the page of the push settings: the push
-- service's endpoint, which is the subscription's address and unique (a
-- browser that subscribes again, or for another account, updates its
-- row), and the browser's P-256 public key (p256dh) and 16-byte auth
-- secret, both base64url as the browser gives them, with which each
-- message is encrypted for it (RFC 8291). A row goes when its player turns
-- push off on the page or the API, when the push service answers that the
-- subscription is gone (404 or 410), and with the account.
CREATE TABLE push_subscriptions (
    id         BIGSERIAL PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    endpoint   TEXT NOT NULL UNIQUE,
    p256dh     TEXT NOT NULL,
    auth       TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX push_subscriptions_user ON push_subscriptions (user_id, id);
