-- Races: several players racing their own game of one deal (package lobby),
-- their placings, and the race rating each player has per rules ID
-- (package rating). Times are Unix milliseconds, durations milliseconds.

-- A finished race. race_key makes storing it idempotent; code is the room
-- it ran in; racers counts guests too, whose placings are not stored.
CREATE TABLE races (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    race_key    TEXT NOT NULL UNIQUE,
    code        TEXT NOT NULL DEFAULT '',
    rules_id    TEXT NOT NULL,
    deal_number BIGINT NOT NULL,
    started_at  BIGINT NOT NULL,
    ended_at    BIGINT NOT NULL,
    racers      INTEGER NOT NULL
);

-- A racer's line of a race. rules_id repeats the race's, for the index.
-- mu and sigma are the racer's rating after the race, NULL when the race
-- was not rated.
CREATE TABLE race_placings (
    race_id   BIGINT NOT NULL REFERENCES races (id),
    player_id TEXT NOT NULL REFERENCES players (id),
    rules_id  TEXT NOT NULL,
    place     INTEGER NOT NULL CHECK (place >= 1),
    cleared   BOOLEAN NOT NULL,
    removed   INTEGER NOT NULL,
    moves     INTEGER NOT NULL,
    time_ms   BIGINT NOT NULL,
    game_id   BIGINT REFERENCES games (id),
    mu        DOUBLE PRECISION,
    sigma     DOUBLE PRECISION,
    PRIMARY KEY (race_id, player_id)
);
CREATE INDEX race_placings_player ON race_placings (player_id, rules_id);

-- A player's current race rating for a rules ID; ordinal is mu - 3 sigma,
-- kept for the ranking index.
CREATE TABLE race_ratings (
    player_id  TEXT NOT NULL REFERENCES players (id),
    rules_id   TEXT NOT NULL,
    mu         DOUBLE PRECISION NOT NULL,
    sigma      DOUBLE PRECISION NOT NULL,
    ordinal    DOUBLE PRECISION NOT NULL,
    races      INTEGER NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (player_id, rules_id)
);
CREATE INDEX race_ratings_rank ON race_ratings (rules_id, ordinal);
