-- Records only from play the server dealt, and none from input faster
-- than a person plays.
--
-- chosen: the player chose the game's deal (a deal number they typed, or
-- deal text). Such a game may have been solved offline: it is practice for
-- records and boards (best time, fewest moves, streaks, the top lists),
-- though it still counts as played. Games from deal text were chosen
-- before this column too; a typed number cannot be told from a dealt one
-- in older games, which stay as they are.
ALTER TABLE games ADD COLUMN chosen INTEGER NOT NULL DEFAULT 0 CHECK (chosen IN (0, 1));
UPDATE games SET chosen = 1 WHERE deal_text <> '';

-- A result's chosen flag is copied from its game; fast is set when its
-- moves came faster than a person plays (games.Assisted): like hints or
-- undo, it sets no record and keeps the result off the boards.
ALTER TABLE results ADD COLUMN chosen INTEGER NOT NULL DEFAULT 0 CHECK (chosen IN (0, 1));
ALTER TABLE results ADD COLUMN fast INTEGER NOT NULL DEFAULT 0 CHECK (fast IN (0, 1));
UPDATE results SET chosen = 1 WHERE game_id IN (SELECT id FROM games WHERE chosen = 1);
