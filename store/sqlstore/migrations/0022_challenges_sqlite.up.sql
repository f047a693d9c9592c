-- Challenges: an asynchronous duel of two players on one hidden deal the
-- server picked winnable. The challenged player accepts or declines; once
-- accepted each plays the deal once (their game is a race game whose race
-- key names the challenge) before deadline_at; the result is stored as a
-- race of two (race_id, through the races' one rating path) and the
-- challenge is closed as finished or expired. Times are Unix milliseconds;
-- 0 for none. A game or race ID of 0 is none yet.
CREATE TABLE challenges (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    challenger_id   TEXT NOT NULL,
    challenged_id   TEXT NOT NULL,
    rules_id        TEXT NOT NULL,
    deal_number     INTEGER NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('offered', 'accepted', 'declined', 'finished', 'expired')),
    offered_at      INTEGER NOT NULL,
    accepted_at     INTEGER NOT NULL DEFAULT 0,
    deadline_at     INTEGER NOT NULL,
    ended_at        INTEGER NOT NULL DEFAULT 0,
    challenger_game INTEGER NOT NULL DEFAULT 0,
    challenged_game INTEGER NOT NULL DEFAULT 0,
    race_id         INTEGER NOT NULL DEFAULT 0,
    winner_id       TEXT NOT NULL DEFAULT ''
) STRICT;
-- A player's challenges, either side, newest first.
CREATE INDEX challenges_challenger ON challenges (challenger_id, id);
CREATE INDEX challenges_challenged ON challenges (challenged_id, id);
