-- 0008: the game row keeps its clock (see the Postgres migration).

ALTER TABLE games ADD COLUMN clock_at DATETIME;
ALTER TABLE games ADD COLUMN clock_from DATETIME;
