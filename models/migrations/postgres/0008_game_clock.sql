-- 0008: the game row keeps its clock: when the stretch of the current
-- deadline started (clock_from) and when the game's pending reminder job
-- runs (clock_at). A change that moves the deadline writes no job while
-- that job runs before the new deadline's reminder is due: the job then
-- watches the deadline the game has by then (see notifier/clock.go).

ALTER TABLE games ADD COLUMN clock_at TIMESTAMPTZ;
ALTER TABLE games ADD COLUMN clock_from TIMESTAMPTZ;
