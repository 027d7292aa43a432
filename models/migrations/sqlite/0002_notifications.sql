-- 0002: notifications: the user's notification log (live stream), webhooks
-- and their delivery log, per-kind channel preferences. River's own tables
-- are created by River's migrations, applied after these.

CREATE TABLE notifications (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id     BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    game_id     BIGINT,
    kind        TEXT NOT NULL,
    body        TEXT NOT NULL,
    created_at  DATETIME NOT NULL
);
CREATE INDEX notifications_user ON notifications (user_id, id);

CREATE TABLE webhooks (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id         BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    token_id        BIGINT REFERENCES api_tokens(id) ON DELETE CASCADE,
    url             TEXT NOT NULL,
    secret          TEXT NOT NULL,
    events          TEXT NOT NULL DEFAULT '',
    failures        INTEGER NOT NULL DEFAULT 0,
    disabled_at     DATETIME,
    disabled_reason TEXT NOT NULL DEFAULT '',
    created_at      DATETIME NOT NULL
);
CREATE INDEX webhooks_user ON webhooks (user_id);

CREATE TABLE webhook_deliveries (
    id           TEXT PRIMARY KEY,
    webhook_id   BIGINT NOT NULL,
    event        TEXT NOT NULL,
    body         TEXT NOT NULL,
    status       TEXT NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_code    INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT NOT NULL DEFAULT '',
    created_at   DATETIME NOT NULL,
    updated_at   DATETIME NOT NULL,
    delivered_at DATETIME
);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, created_at);

CREATE TABLE notification_prefs (
    user_id  BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind     TEXT NOT NULL,
    channel  TEXT NOT NULL,
    enabled  BOOLEAN NOT NULL,
    PRIMARY KEY (user_id, kind, channel)
);
