-- Arenas (package arena): timed tournaments in which free players are
-- paired into races by their standing, and each game scores points. Times
-- are Unix milliseconds, durations milliseconds.

-- An arena as its organiser set it up. end_at is start_at + duration_ms,
-- kept for the listings' index. every is the recurrence ('' for none,
-- 'day', 'week'); series the ID of the first occurrence of a recurring
-- arena (its own ID for that one), 0 for a one-off: two servers
-- scheduling the next occurrence of one series store it once.
CREATE TABLE arenas (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT NOT NULL,
    rules_id    TEXT NOT NULL,
    start_at    INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL CHECK (duration_ms > 0),
    end_at      INTEGER NOT NULL,
    game_ms     INTEGER NOT NULL DEFAULT 0,
    every       TEXT NOT NULL DEFAULT '' CHECK (every IN ('', 'day', 'week')),
    series      INTEGER NOT NULL DEFAULT 0,
    created_by  TEXT NOT NULL,
    cancelled   INTEGER NOT NULL DEFAULT 0 CHECK (cancelled IN (0, 1)),
    created_at  INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX arenas_series_start ON arenas (series, start_at) WHERE series <> 0;
CREATE INDEX arenas_end ON arenas (end_at);
CREATE INDEX arenas_creator ON arenas (created_by, created_at);

-- The races an arena scored, once each: race_id is the key, so a race
-- scores in one arena once however many servers record it.
CREATE TABLE arena_races (
    race_id   INTEGER PRIMARY KEY REFERENCES races (id),
    arena_id  INTEGER NOT NULL REFERENCES arenas (id),
    scored_at INTEGER NOT NULL
) STRICT;

-- A player's scored game of an arena: points are what it added, streak
-- whether it counted double, at when its race ended.
CREATE TABLE arena_games (
    arena_id  INTEGER NOT NULL REFERENCES arenas (id),
    race_id   INTEGER NOT NULL REFERENCES races (id),
    player_id TEXT NOT NULL REFERENCES players (id),
    points    INTEGER NOT NULL,
    streak    INTEGER NOT NULL CHECK (streak IN (0, 1)),
    racers    INTEGER NOT NULL,
    place     INTEGER NOT NULL,
    cleared   INTEGER NOT NULL CHECK (cleared IN (0, 1)),
    berserk   INTEGER NOT NULL CHECK (berserk IN (0, 1)),
    void      INTEGER NOT NULL CHECK (void IN (0, 1)),
    at        INTEGER NOT NULL,
    PRIMARY KEY (arena_id, race_id, player_id)
) STRICT;
CREATE INDEX arena_games_player ON arena_games (arena_id, player_id, at);

-- A player's line of an arena's standings, the sum of their games there
-- (arena.Score, game by game). reached_at is when their points last went
-- up (their first game's end until they do): the tie-break.
CREATE TABLE arena_lines (
    arena_id   INTEGER NOT NULL REFERENCES arenas (id),
    player_id  TEXT NOT NULL REFERENCES players (id),
    points     INTEGER NOT NULL DEFAULT 0,
    streak     INTEGER NOT NULL DEFAULT 0,
    games      INTEGER NOT NULL DEFAULT 0,
    wins       INTEGER NOT NULL DEFAULT 0,
    berserks   INTEGER NOT NULL DEFAULT 0,
    reached_at INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (arena_id, player_id)
) STRICT;
CREATE INDEX arena_lines_standing ON arena_lines (arena_id, points DESC, games, reached_at);
CREATE INDEX arena_lines_player ON arena_lines (player_id);
