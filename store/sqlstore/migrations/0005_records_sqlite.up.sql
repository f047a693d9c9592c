-- Honest records (issue 9): assistance per game, sealed and practice
-- games, and settings per player.

-- hints and undos count the hints shown and the moves undone in a game,
-- over all its sessions; they never go down. watched: the player watched
-- the solver's line (before the game was finished it sealed the game as
-- lost). practice: the game does not count (a replay of a daily deal
-- already finished that day): it gets no result.
ALTER TABLE games ADD COLUMN hints INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN undos INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN watched INTEGER NOT NULL DEFAULT 0 CHECK (watched IN (0, 1));
ALTER TABLE games ADD COLUMN practice INTEGER NOT NULL DEFAULT 0 CHECK (practice IN (0, 1));

-- A result's assistance, copied from its game when it is recorded: an
-- assisted result (hints or undos) sets no record and is left off the top
-- lists and the daily board.
ALTER TABLE results ADD COLUMN hints INTEGER NOT NULL DEFAULT 0;
ALTER TABLE results ADD COLUMN undos INTEGER NOT NULL DEFAULT 0;

-- A player's settings, by name (store.Setting*), as short text values.
CREATE TABLE settings (
    player_id  TEXT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    value      TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (player_id, name)
) STRICT;
