-- 0006: who plays a seat and its run of consecutive timeouts live on the
-- seat row, which every change of a game reads and writes anyway, instead of
-- in tables of their own that cost a read or a write per change.

ALTER TABLE seats ADD COLUMN bot TEXT NOT NULL DEFAULT '';
ALTER TABLE seats ADD COLUMN timeouts INTEGER NOT NULL DEFAULT 0;

UPDATE seats SET bot = b.reason FROM bot_seats b WHERE b.game_id = seats.game_id AND b.seat_no = seats.seat_no;
UPDATE seats SET timeouts = t.consecutive FROM seat_timeouts t WHERE t.game_id = seats.game_id AND t.seat_no = seats.seat_no;

DROP TABLE bot_seats;
DROP TABLE seat_timeouts;
