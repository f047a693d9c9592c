-- What a game is (issue 14): races' games and the replays of a daily
-- deal were told apart by nothing but the practice flag they share.
-- kind says which: 'solo' (a game of the player's own, the day's first
-- attempt at a daily deal included), 'replay' (a later attempt at a daily
-- deal the player already finished that day), 'race' (a racer's game of
-- a race room), 'ghost' (a game raced against a recorded one). Every kind
-- but solo is practice: it records no solo result.
ALTER TABLE games ADD COLUMN kind TEXT NOT NULL DEFAULT 'solo'
    CHECK (kind IN ('solo', 'replay', 'race', 'ghost'));

-- The games stored before: a game placed in a race is the race's; a
-- practice game of a daily deal is a replay; any other practice game was
-- raced against a ghost (or in a race not recorded yet, which cannot be
-- told apart now).
UPDATE games SET kind = 'race' WHERE id IN (SELECT game_id FROM race_placings WHERE game_id IS NOT NULL);
UPDATE games SET kind = 'replay' WHERE kind = 'solo' AND practice = 1 AND daily <> '';
UPDATE games SET kind = 'ghost' WHERE kind = 'solo' AND practice = 1;

-- The race a game was raced in (share ID of a race's game gives the
-- place).
CREATE INDEX race_placings_game ON race_placings (game_id) WHERE game_id IS NOT NULL;
