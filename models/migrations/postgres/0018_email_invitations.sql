-- 0018: invitations to a game sent to an email address, for someone who
-- may have no account yet. The mail carries a signed link (see package
-- web) that names the row; the row says which game, which address the link
-- is bound to, and who took the seat with it. A seat is not held for the
-- address: the invitation lets its bearer join the game, private or not,
-- while a seat is open.

CREATE TABLE email_invitations (
    id          BIGSERIAL PRIMARY KEY,
    game_id     BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    email       TEXT NOT NULL,     -- as typed; compared in lower case
    invited_by  BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at  TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL,
    accepted_by BIGINT REFERENCES users(id) ON DELETE SET NULL, -- who took a seat with it; NULL: nobody yet
    accepted_at TIMESTAMPTZ
);
-- One invitation per address and game.
CREATE UNIQUE INDEX email_invitations_game_email ON email_invitations (game_id, lower(email));
CREATE INDEX email_invitations_invited_by ON email_invitations (invited_by);
