-- One game per racer per race: a racer's game of a race names the race
-- (its key, the same on every server of a cluster), and a player has at
-- most one game of a race. A racer who comes back to the race on any
-- server finds that game in the store, never makes a second one.
ALTER TABLE games ADD COLUMN race_key TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX games_one_per_race ON games (player_id, race_key) WHERE race_key <> '';
