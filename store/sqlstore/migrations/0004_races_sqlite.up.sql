-- Races: several players racing their own game of one deal (package lobby),
-- their placings, and the race rating each player has per rules ID
-- (package rating). Times are Unix milliseconds, durations milliseconds.

-- A finished race. race_key makes storing it idempotent; code is the room
-- it ran in; racers counts guests too, whose placings are not stored.
CREATE TABLE races (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    race_key    TEXT NOT NULL UNIQUE,
    code        TEXT NOT NULL DEFAULT '',
    rules_id    TEXT NOT NULL,
    deal_number INTEGER NOT NULL,
    started_at  INTEGER NOT NULL,
    ended_at    INTEGER NOT NULL,
    racers      INTEGER NOT NULL
) STRICT;

-- A racer's line of a race. rules_id repeats the race's, for the index.
-- mu and sigma are the racer's rating after the race, NULL when the race
-- was not rated.
CREATE TABLE race_placings (
    race_id   INTEGER NOT NULL REFERENCES races (id),
    player_id TEXT NOT NULL REFERENCES players (id),
    rules_id  TEXT NOT NULL,
    place     INTEGER NOT NULL CHECK (place >= 1),
    cleared   INTEGER NOT NULL CHECK (cleared IN (0, 1)),
    removed   INTEGER NOT NULL,
    moves     INTEGER NOT NULL,
    time_ms   INTEGER NOT NULL,
    game_id   INTEGER REFERENCES games (id),
    mu        REAL,
    sigma     REAL,
    PRIMARY KEY (race_id, player_id)
) STRICT;
CREATE INDEX race_placings_player ON race_placings (player_id, rules_id);

-- A player's current race rating for a rules ID; ordinal is mu - 3 sigma,
-- kept for the ranking index.
CREATE TABLE race_ratings (
    player_id  TEXT NOT NULL REFERENCES players (id),
    rules_id   TEXT NOT NULL,
    mu         REAL NOT NULL,
    sigma      REAL NOT NULL,
    ordinal    REAL NOT NULL,
    races      INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (player_id, rules_id)
) STRICT;
CREATE INDEX race_ratings_rank ON race_ratings (rules_id, ordinal);
