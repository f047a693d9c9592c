-- Pyramid arcade schema, PostgreSQL dialect. Times are Unix milliseconds
-- (UTC), durations milliseconds, so that one set of queries serves SQLite
-- and PostgreSQL alike.

-- A player is a person; their ID is the fingerprint of the first key they
-- were seen with.
CREATE TABLE players (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    -- name_key is the case-folded name: display names are unique
    -- case-insensitively.
    name_key   TEXT NOT NULL CONSTRAINT players_name_key_key UNIQUE,
    created_at BIGINT NOT NULL,
    banned     BOOLEAN NOT NULL DEFAULT FALSE
);

-- Every key maps to exactly one player; a player has one or more keys.
CREATE TABLE player_keys (
    fingerprint TEXT PRIMARY KEY,
    player_id   TEXT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    added_at    BIGINT NOT NULL
);
CREATE INDEX player_keys_player ON player_keys (player_id);

-- One-time codes that link a new key to a player, stored as SHA-256 hashes.
CREATE TABLE link_codes (
    code_hash  TEXT PRIMARY KEY,
    player_id  TEXT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX link_codes_player ON link_codes (player_id);

-- A game: rules + deal + the move log and redo stack (moves in notation,
-- separated by single spaces) + where it stands. owner is the token of the
-- session allowed to write it; version counts the writes.
CREATE TABLE games (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    player_id   TEXT NOT NULL REFERENCES players (id),
    rules_id    TEXT NOT NULL,
    -- deal_number holds the bits of the unsigned 64-bit deal number.
    deal_number BIGINT NOT NULL,
    deal_text   TEXT NOT NULL DEFAULT '',
    -- daily is the UTC date (YYYY-MM-DD) of the daily deal, or ''.
    daily       TEXT NOT NULL DEFAULT '',
    moves       TEXT NOT NULL DEFAULT '',
    redo        TEXT NOT NULL DEFAULT '',
    status      TEXT NOT NULL CHECK (status IN ('playing', 'won', 'lost', 'abandoned')),
    removed     INTEGER NOT NULL DEFAULT 0,
    elapsed_ms  BIGINT NOT NULL DEFAULT 0,
    started_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    finished_at BIGINT,
    version     BIGINT NOT NULL DEFAULT 1,
    owner       TEXT NOT NULL DEFAULT '',
    CHECK ((status = 'playing') = (finished_at IS NULL))
);
-- At most one unfinished game per player per rules ID.
CREATE UNIQUE INDEX games_one_playing ON games (player_id, rules_id) WHERE status = 'playing';
CREATE INDEX games_player ON games (player_id, id);

-- The result of a finished game, as computed by replaying it. Statistics and
-- leaderboards are queries over this table, so they cannot drift from it.
-- player_id, rules_id and daily repeat the game's, for the indexes.
CREATE TABLE results (
    game_id     BIGINT PRIMARY KEY REFERENCES games (id),
    player_id   TEXT NOT NULL REFERENCES players (id),
    rules_id    TEXT NOT NULL,
    daily       TEXT NOT NULL DEFAULT '',
    won         BOOLEAN NOT NULL,
    removed     INTEGER NOT NULL,
    moves       INTEGER NOT NULL,
    elapsed_ms  BIGINT NOT NULL,
    finished_at BIGINT NOT NULL
);
CREATE INDEX results_player ON results (player_id, rules_id, finished_at, game_id);
CREATE INDEX results_rules ON results (rules_id, player_id);
CREATE INDEX results_daily ON results (rules_id, daily, player_id, finished_at, game_id) WHERE daily <> '';
