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
	{"race, draws then removals", "d d d 7.1+7.7 d 7.4+w", ms(3965, 4301, 4625, 20788, 20788, 20788)},
}
