-- Names are compared as they look (keys.LookAlike): name_skeleton is now
-- the skeleton with the case folded after it (keys.Skeleton, so aIice and
-- alice share one) and without default-ignorable code points, and
-- name_folded_skeleton the skeleton of the case-folded name
-- (keys.FoldedSkeleton, so ALICE and a Cyrillic аlice share one). A new
-- or changed name is refused when another player's has either. Every
-- row's skeletons are cleared here and computed again by the store when
-- it opens (fillSkeletons): of two players whose names now look alike,
-- the one created first keeps its name and the other is renamed to its
-- generated name (player-…), which the audit log records.
ALTER TABLE players ADD COLUMN name_folded_skeleton TEXT;
CREATE INDEX players_name_folded_skeleton ON players (name_folded_skeleton);
UPDATE players SET name_skeleton = NULL;
