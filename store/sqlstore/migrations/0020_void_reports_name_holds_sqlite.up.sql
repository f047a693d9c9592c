-- Why a race counts for nobody, kept with the race so that a race can be
-- decided again (an admin's void, VoidRace, decides the races after it
-- again): '' for a race that may rate its racers, 'chosen-deal' (its
-- host chose the deal), 'void' (a racer was lost with their server) or
-- 'voided' (an admin voided it). The races stored before say it from
-- what they kept.
ALTER TABLE races ADD COLUMN unrated TEXT NOT NULL DEFAULT ''
    CHECK (unrated IN ('', 'chosen-deal', 'void', 'voided'));
UPDATE races SET unrated = 'chosen-deal' WHERE rated = 0;
UPDATE races SET unrated = 'void' WHERE rated = 1 AND EXISTS (
    SELECT 1 FROM race_placings rp WHERE rp.race_id = races.id AND rp.reason = 'void');
-- A player's races, newest first (RatedRaces, for the reports).
CREATE INDEX race_placings_race_of ON race_placings (player_id, race_id);

-- The names players gave up, held for them a few seconds (store.NameHold)
-- until every session stops showing them: by their skeletons
-- (keys.Skeleton and keys.FoldedSkeleton, as names are compared), until
-- when (Unix milliseconds). Nobody else may take a name that looks like
-- one held meanwhile; its player may take it back.
CREATE TABLE name_holds (
    name_skeleton        TEXT PRIMARY KEY,
    name_folded_skeleton TEXT NOT NULL,
    player_id            TEXT NOT NULL,
    until_at      INTEGER NOT NULL
) STRICT;

-- A report an admin closed (dealt with it): when (Unix milliseconds; 0
-- while open) and by whom. The reports queue lists the open ones.
ALTER TABLE reports ADD COLUMN closed_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE reports ADD COLUMN closed_by TEXT NOT NULL DEFAULT '';
CREATE INDEX reports_open ON reports (closed_at, id);
