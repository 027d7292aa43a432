-- 0004: players' absences. While a player is away, the clocks of the games
-- that wait for them pause (deadlines move by the time away).

CREATE TABLE vacations (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id    BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    starts_at  DATETIME NOT NULL,
    ends_at    DATETIME NOT NULL,
    created_at DATETIME NOT NULL
);
CREATE INDEX vacations_user ON vacations (user_id, ends_at);
