package games_test

import "time"

// humanGames are games played at a person's pace over SSH (real OpenSSH
// clients at 80×24), with the move times the server stored for them.
var humanGames = []struct {
	name  string
	moves string
	times []time.Duration
}{
	{"solo, three removals", "7.7 7.5+7.6 7.3+7.4", ms(5959, 8576, 11877)},
	{"race, three moves in one report", "d d d 7.1+7.7 d 7.4+w", ms(3965, 4301, 4625, 20788, 20788, 20788)},
	{"solo, key by key at 80x24", "7.2 7.1+7.5 7.4+7.7 d d d d d 7.6+w d d d d 6.4+w",
		ms(4691, 11268, 16279, 19702, 22262, 25796, 27963, 30151, 35524, 38712, 39896, 41138, 43974, 53851)},
}
