-- 0004: players' absences. While a player is away, the clocks of the games
-- that wait for them pause (deadlines move by the time away).

CREATE TABLE vacations (
    id         BIGSERIAL PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    starts_at  TIMESTAMPTZ NOT NULL,
    ends_at    TIMESTAMPTZ NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX vacations_user ON vacations (user_id, ends_at);
