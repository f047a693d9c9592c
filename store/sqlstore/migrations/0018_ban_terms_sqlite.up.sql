-- A ban's terms: until when (Unix milliseconds; 0 while not banned, or
-- banned for good) and why, told to the player when they connect. A timed
-- ban is lifted (banned back to 0) when the player is next seen after it.
ALTER TABLE players ADD COLUMN banned_until INTEGER NOT NULL DEFAULT 0;
ALTER TABLE players ADD COLUMN ban_reason TEXT NOT NULL DEFAULT '';
