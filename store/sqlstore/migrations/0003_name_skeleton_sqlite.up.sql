-- name_skeleton is the name's confusable skeleton (keys.Skeleton: the case
-- fold, then Unicode UTS #39): two names with one skeleton look alike, and
-- a new or changed name is refused when another player's has its
-- skeleton. Not UNIQUE, because names given before this column may
-- already look alike; the store fills it in for them when it opens.
ALTER TABLE players ADD COLUMN name_skeleton TEXT;
CREATE INDEX players_name_skeleton ON players (name_skeleton);
