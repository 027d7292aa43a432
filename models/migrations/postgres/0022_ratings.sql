-- 0022: ratings (Glicko-2; see docs/ratings.md). A player's row appears
-- with their first rated game. rating_changes keeps, for each rated game,
-- each player's place and rating before and after it: the game's record
-- in the ratings, and, by its key, the proof that a game is rated once.

CREATE TABLE ratings (
    user_id      BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    rating       DOUBLE PRECISION NOT NULL,
    deviation    DOUBLE PRECISION NOT NULL,
    volatility   DOUBLE PRECISION NOT NULL,
    games        INTEGER NOT NULL DEFAULT 0, -- rated games finished
    wins         INTEGER NOT NULL DEFAULT 0, -- of those, placed first (alone or shared)
    last_game_at TIMESTAMPTZ,                -- the end of the last rated game; NULL: none yet
    updated_at   TIMESTAMPTZ NOT NULL
);
-- The lobby's filter of open games near a rating reads the seats' ratings.
CREATE INDEX ratings_rating ON ratings (rating);

CREATE TABLE rating_changes (
    game_id           BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    user_id           BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    seat              INTEGER NOT NULL,
    place             INTEGER NOT NULL, -- 0 first; equal places tied
    rating_before     DOUBLE PRECISION NOT NULL,
    deviation_before  DOUBLE PRECISION NOT NULL,
    volatility_before DOUBLE PRECISION NOT NULL,
    rating_after      DOUBLE PRECISION NOT NULL,
    deviation_after   DOUBLE PRECISION NOT NULL,
    volatility_after  DOUBLE PRECISION NOT NULL,
    created_at        TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (game_id, user_id)
);
CREATE INDEX rating_changes_user ON rating_changes (user_id, created_at);
