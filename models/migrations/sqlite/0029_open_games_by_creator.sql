-- 0029: the open games each user created, counted before they create one
-- more (a user has at most so many open at once: models.Store.Room).
CREATE INDEX games_open_by_creator ON games (created_by) WHERE status = 'open';
