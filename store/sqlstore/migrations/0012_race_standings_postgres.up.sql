-- Ratings that mean play: how each race counted for each racer, decided
-- once by the races' policy (package rating, Decide) when the race is
-- recorded, so that stats, the rating list and the results all count the
-- same thing; the ratings before the race, for the results' change; the
-- pairs of players rated against each other, for the limit of rated races
-- per pair and for a rating's different opponents (provisional until
-- enough).

-- standing is 'rated', 'unrated' (raced, did not count: reason says why)
-- or 'aborted' (no race for the racer: counts nowhere). win and podium
-- are the policy's, for rated placings. mu_before and sigma_before are
-- the rating before a rated race; races, opponents_before and opponents
-- the player's rated races and different opponents in the rules after it
-- (and before it, for the opponents). assisted: moves faster than play.
ALTER TABLE race_placings ADD COLUMN standing TEXT NOT NULL DEFAULT 'aborted'
    CHECK (standing IN ('rated', 'unrated', 'aborted'));
ALTER TABLE race_placings ADD COLUMN reason TEXT NOT NULL DEFAULT '';
ALTER TABLE race_placings ADD COLUMN win BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE race_placings ADD COLUMN podium BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE race_placings ADD COLUMN assisted BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE race_placings ADD COLUMN mu_before DOUBLE PRECISION;
ALTER TABLE race_placings ADD COLUMN sigma_before DOUBLE PRECISION;
ALTER TABLE race_placings ADD COLUMN races INTEGER;
ALTER TABLE race_placings ADD COLUMN opponents_before INTEGER;
ALTER TABLE race_placings ADD COLUMN opponents INTEGER;

-- Each rated race of a player against another rated player, both ways.
CREATE TABLE race_opponents (
    race_id     BIGINT NOT NULL REFERENCES races (id),
    player_id   TEXT NOT NULL REFERENCES players (id),
    opponent_id TEXT NOT NULL REFERENCES players (id),
    rules_id    TEXT NOT NULL,
    ended_at    BIGINT NOT NULL,
    PRIMARY KEY (race_id, player_id, opponent_id)
);
CREATE INDEX race_opponents_pair ON race_opponents (player_id, opponent_id, ended_at);
CREATE INDEX race_opponents_rules ON race_opponents (player_id, rules_id, opponent_id);

ALTER TABLE race_ratings ADD COLUMN opponents INTEGER NOT NULL DEFAULT 0;

-- The races stored before: a placing with a rating was rated (it stays
-- so); the others are decided as the policy would, from what was kept.
UPDATE race_placings rp SET
    standing = CASE
        WHEN rp.mu IS NOT NULL THEN 'rated'
        WHEN rp.moves = 0 THEN 'aborted'
        WHEN rp.outcome = 'left' AND rp.removed = 0 AND NOT rp.cleared THEN 'aborted'
        WHEN NOT r.rated THEN 'unrated'
        ELSE 'aborted' END,
    reason = CASE
        WHEN rp.mu IS NOT NULL THEN ''
        WHEN rp.moves = 0 THEN 'never-moved'
        WHEN rp.outcome = 'left' AND rp.removed = 0 AND NOT rp.cleared THEN 'left-empty'
        WHEN NOT r.rated THEN 'chosen-deal'
        ELSE 'few-movers' END
FROM races r WHERE r.id = rp.race_id;

-- Wins and podiums of the rated placings, by the policy: first among the
-- rated placings of the race (a win), or within the first three and a
-- win or ahead of one of them (a podium).
UPDATE race_placings rp SET
    win = NOT EXISTS (
        SELECT 1 FROM race_placings o WHERE o.race_id = rp.race_id AND o.standing = 'rated' AND o.place < rp.place),
    podium = (SELECT COUNT(*) FROM race_placings o
             WHERE o.race_id = rp.race_id AND o.standing = 'rated' AND o.place < rp.place) < 3
        AND (NOT EXISTS (SELECT 1 FROM race_placings o
                         WHERE o.race_id = rp.race_id AND o.standing = 'rated' AND o.place < rp.place)
             OR EXISTS (SELECT 1 FROM race_placings o
                        WHERE o.race_id = rp.race_id AND o.standing = 'rated' AND o.place > rp.place))
WHERE rp.standing = 'rated';

INSERT INTO race_opponents (race_id, player_id, opponent_id, rules_id, ended_at)
SELECT a.race_id, a.player_id, b.player_id, a.rules_id, r.ended_at
FROM race_placings a
JOIN race_placings b ON b.race_id = a.race_id AND b.player_id <> a.player_id AND b.standing = 'rated'
JOIN races r ON r.id = a.race_id
WHERE a.standing = 'rated';

UPDATE race_ratings rr SET opponents = (
    SELECT COUNT(DISTINCT o.opponent_id) FROM race_opponents o
    WHERE o.player_id = rr.player_id AND o.rules_id = rr.rules_id);
