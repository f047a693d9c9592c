-- What a stored race's results screen needs once its room has closed
-- (issue 14): whether the solver proved the deal winnable, and how each
-- racer's race ended. Races stored before say 'unknown' and ''.
ALTER TABLE races ADD COLUMN verdict TEXT NOT NULL DEFAULT 'unknown'
    CHECK (verdict IN ('unknown', 'winnable', 'unwinnable'));
ALTER TABLE race_placings ADD COLUMN outcome TEXT NOT NULL DEFAULT ''
    CHECK (outcome IN ('', 'cleared', 'stuck', 'left', 'time'));
-- The races of a room code, newest first (RaceInRoom).
CREATE INDEX races_code ON races (code, ended_at);
