-- Rated races (issue 14): a race on a deal its room's host chose (one
-- they may have solved offline, or played as a daily) is stored with its
-- placings but changes no rating and counts in no race wins or podiums.
-- The races stored before were all rated.
ALTER TABLE races ADD COLUMN rated INTEGER NOT NULL DEFAULT 1 CHECK (rated IN (0, 1));
