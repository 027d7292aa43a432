-- 0001: accounts, decks, games and their logs.

CREATE TABLE users (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    username      TEXT NOT NULL UNIQUE,
    email         TEXT NOT NULL DEFAULT '',
    display_name  TEXT NOT NULL DEFAULT '',
    notify_email  BOOLEAN NOT NULL DEFAULT TRUE,
    notify_turns  BOOLEAN NOT NULL DEFAULT TRUE,
    created_at    DATETIME NOT NULL,
    updated_at    DATETIME NOT NULL
);

CREATE TABLE credentials (
    user_id       BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    password_hash TEXT NOT NULL,
    updated_at    DATETIME NOT NULL
);

CREATE TABLE refresh_tokens (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id     BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    family_id   TEXT NOT NULL,
    token_hash  BLOB NOT NULL UNIQUE,
    created_at  DATETIME NOT NULL,
    expires_at  DATETIME NOT NULL,
    rotated_at  DATETIME,
    revoked_at  DATETIME
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);

CREATE TABLE api_tokens (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id      BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    prefix       TEXT NOT NULL,
    token_hash   BLOB NOT NULL UNIQUE,
    scopes       TEXT NOT NULL,
    created_at   DATETIME NOT NULL,
    last_used_at DATETIME,
    revoked_at   DATETIME
);
CREATE INDEX api_tokens_user ON api_tokens (user_id, id);

CREATE TABLE decks (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id     BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    cards       TEXT NOT NULL,
    created_at  DATETIME NOT NULL,
    updated_at  DATETIME NOT NULL
);
CREATE INDEX decks_user ON decks (user_id, id);

CREATE TABLE games (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    created_by  BIGINT NOT NULL REFERENCES users(id),
    status      TEXT NOT NULL,
    public      BOOLEAN NOT NULL,
    mode        TEXT NOT NULL,
    office      BOOLEAN NOT NULL,
    policy      TEXT NOT NULL,
    players     INTEGER NOT NULL,
    settings    TEXT NOT NULL,
    version     BIGINT NOT NULL,
    event_seq   BIGINT NOT NULL DEFAULT 0,
    action_seq  BIGINT NOT NULL DEFAULT 0,
    state       BLOB,
    winners     TEXT NOT NULL DEFAULT '',
    deadline_at DATETIME,
    created_at  DATETIME NOT NULL,
    updated_at  DATETIME NOT NULL,
    started_at  DATETIME,
    ended_at    DATETIME
);
-- The lobby: open public games, newest first.
CREATE INDEX games_status ON games (status, id);
-- The deadline worker: games whose awaited seats run out of time.
CREATE INDEX games_deadline ON games (deadline_at) WHERE deadline_at IS NOT NULL;

CREATE TABLE seats (
    game_id    BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seat_no    INTEGER NOT NULL,
    user_id    BIGINT REFERENCES users(id),
    username   TEXT NOT NULL DEFAULT '',
    invited    BOOLEAN NOT NULL DEFAULT FALSE,
    joined     BOOLEAN NOT NULL DEFAULT FALSE,
    deck       TEXT,
    awaited    BOOLEAN NOT NULL DEFAULT FALSE,
    joined_at  DATETIME,
    PRIMARY KEY (game_id, seat_no)
);
CREATE UNIQUE INDEX seats_game_user ON seats (game_id, user_id) WHERE user_id IS NOT NULL;
-- "My games", newest first.
CREATE INDEX seats_user ON seats (user_id, game_id);
-- "Games awaiting me": only awaited seats are in this index.
CREATE INDEX seats_awaiting ON seats (user_id, game_id) WHERE awaited;

CREATE TABLE actions (
    game_id     BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq         BIGINT NOT NULL,
    version     BIGINT NOT NULL,
    seat        INTEGER NOT NULL,
    user_id     BIGINT,
    body        TEXT NOT NULL,
    created_at  DATETIME NOT NULL,
    PRIMARY KEY (game_id, seq)
);

CREATE TABLE events (
    game_id     BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq         BIGINT NOT NULL,
    version     BIGINT NOT NULL,
    body        TEXT NOT NULL,
    created_at  DATETIME NOT NULL,
    PRIMARY KEY (game_id, seq)
);

CREATE TABLE prompts (
    game_id     BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    prompt_id   TEXT NOT NULL,
    seat        INTEGER NOT NULL,
    body        TEXT NOT NULL,
    created_at  DATETIME NOT NULL,
    deadline_at DATETIME,
    PRIMARY KEY (game_id, prompt_id)
);

CREATE TABLE idempotency_keys (
    user_id      BIGINT NOT NULL,
    key          TEXT NOT NULL,
    request_hash BLOB NOT NULL,
    status       INTEGER NOT NULL,
    response     BLOB NOT NULL,
    created_at   DATETIME NOT NULL,
    PRIMARY KEY (user_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
