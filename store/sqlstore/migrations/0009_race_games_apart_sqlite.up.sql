-- Race and ghost games apart (issue 14): a player has one unfinished game
-- of their own per rules ID (solo, or a replay of a daily), the rule that
-- keeps a player from holding several attempts at a deal open to keep the
-- best. A race's game and a ghost race's game are practice and record no
-- result: they no longer take that place, so a racer with a solo game of
-- the race's rules waiting gets her race game stored too (before, it was
-- not, and a server that died in the race lost her moves).
DROP INDEX games_one_playing;
CREATE UNIQUE INDEX games_one_playing ON games (player_id, rules_id) WHERE status = 'playing' AND kind IN ('solo', 'replay');
