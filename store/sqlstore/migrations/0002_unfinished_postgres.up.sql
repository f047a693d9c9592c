-- A player's unfinished games, most recently played first (the menu's
-- Continue entries, UnfinishedGames and LatestUnfinishedGame), read from
-- an index that holds only unfinished games: however many finished games a
-- player has, none of them is read.
CREATE INDEX games_player_playing ON games (player_id, updated_at DESC, id DESC) WHERE status = 'playing';
