-- Race the ghost (issue 14): when each move was made. move_ms holds the
-- play time (milliseconds since the game's start, over all its sessions)
-- of each move of the move log, in the same order, separated by single
-- spaces; it may be shorter than the log (games from before this
-- migration have none), never longer. It is written by the same UPDATE
-- as the moves.
ALTER TABLE games ADD COLUMN move_ms TEXT NOT NULL DEFAULT '';
