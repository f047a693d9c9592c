package arena

import "testing"

func TestScore(t *testing.T) {
	tests := []struct {
		name       string
		before     Line
		game       Game
		wantPoints int
		wantStreak int
		wantWin    bool
	}{
		{"win of two", Line{}, Game{Racers: 2, Place: 1}, 2, 1, true},
		{"win of two, cleared", Line{}, Game{Racers: 2, Place: 1, Cleared: true}, 3, 1, true},
		{"second of two", Line{Streak: 1}, Game{Racers: 2, Place: 2}, 0, 0, false},
		{"second of two, cleared", Line{}, Game{Racers: 2, Place: 2, Cleared: true}, 1, 0, false},
		{"second of four", Line{}, Game{Racers: 4, Place: 2}, 1, 0, false},
		{"third of four", Line{}, Game{Racers: 4, Place: 3}, 1, 0, false},
		{"last of four", Line{}, Game{Racers: 4, Place: 4}, 0, 0, false},
		{"last of three, shared", Line{}, Game{Racers: 3, Place: 2, Shared: true}, 1, 0, false},
		{"tie for first is no win", Line{Streak: 1}, Game{Racers: 2, Place: 1, Shared: true}, 1, 0, false},
		{"third win starts doubling", Line{Streak: 2}, Game{Racers: 2, Place: 1}, 4, 3, true},
		{"streak doubles the clear", Line{Streak: 3}, Game{Racers: 3, Place: 1, Cleared: true}, 6, 4, true},
		{"streak doubles a loss's place and ends", Line{Streak: 2}, Game{Racers: 3, Place: 2}, 2, 0, false},
		{"second win is not doubled", Line{Streak: 1}, Game{Racers: 2, Place: 1}, 2, 2, true},
		{"berserk clear", Line{}, Game{Racers: 2, Place: 1, Cleared: true, Berserk: true}, 4, 1, true},
		{"berserk clear on a streak: bonus not doubled", Line{Streak: 2}, Game{Racers: 2, Place: 1, Cleared: true, Berserk: true}, 7, 3, true},
		{"berserk without a clear", Line{}, Game{Racers: 2, Place: 1, Berserk: true}, 2, 1, true},
		{"solo cleared is a win", Line{}, Game{Racers: 1, Place: 1, Cleared: true}, 3, 1, true},
		{"solo not cleared", Line{Streak: 2}, Game{Racers: 1, Place: 1}, 0, 0, false},
		{"walkover cleared: a win that keeps the streak as it was", Line{Streak: 1}, Game{Racers: 1, Place: 1, Cleared: true, Walkover: true}, 3, 1, true},
		{"walkover cleared on a streak: doubled as a solo deal", Line{Streak: 2}, Game{Racers: 1, Place: 1, Cleared: true, Walkover: true}, 6, 2, true},
		{"walkover not cleared: nothing, the streak ends", Line{Streak: 2}, Game{Racers: 1, Place: 1, Walkover: true}, 0, 0, false},
		{"assisted scores nothing", Line{Streak: 2}, Game{Racers: 2, Place: 1, Cleared: true, Void: true}, 0, 0, false},
		{"void berserk scores nothing", Line{}, Game{Racers: 2, Place: 1, Cleared: true, Berserk: true, Void: true}, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.before
			before.Points, before.Games, before.Wins = 10, 5, 3
			p, after := Score(before, tt.game)
			if p != tt.wantPoints {
				t.Errorf("points %d, want %d", p, tt.wantPoints)
			}
			if after.Points != before.Points+tt.wantPoints || after.Games != before.Games+1 {
				t.Errorf("line %+v after %+v: points or games not added", after, before)
			}
			if after.Streak != tt.wantStreak {
				t.Errorf("streak %d, want %d", after.Streak, tt.wantStreak)
			}
			if got := after.Wins - before.Wins; got != map[bool]int{true: 1}[tt.wantWin] {
				t.Errorf("wins went up by %d, want a win %v", got, tt.wantWin)
			}
			if tt.game.Berserk != (after.Berserks == before.Berserks+1) {
				t.Errorf("berserks %d after %d", after.Berserks, before.Berserks)
			}
		})
	}
}

func TestStreakSequence(t *testing.T) {
	win := Game{Racers: 2, Place: 1}
	loss := Game{Racers: 2, Place: 2}
	var l Line
	var got []int
	for _, g := range []Game{win, win, win, win, loss, win, win, win} {
		var p int
		p, l = Score(l, g)
		got = append(got, p)
	}
	want := []int{2, 2, 4, 4, 0, 2, 2, 4}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("points %v, want %v", got, want)
		}
	}
	if l.Points != 20 || l.Wins != 7 || l.Games != 8 || l.Streak != 3 {
		t.Errorf("line %+v", l)
	}
}

func TestPlacingGame(t *testing.T) {
	played := func(place, removed int) Placing { return Placing{Place: place, Removed: removed} }
	cleared := Placing{Place: 1, Removed: 28, Cleared: true}
	tests := []struct {
		name   string
		racers int
		ps     []Placing
		i      int
		want   Game
	}{
		{"solo deal", 1, []Placing{cleared}, 0, Game{Racers: 1, Place: 1, Cleared: true}},
		{"a race everybody played", 3, []Placing{cleared, played(2, 20), played(3, 6)}, 2, Game{Racers: 3, Place: 3}},
		{"a win over a quitter alone is a walkover", 2, []Placing{cleared, played(2, 0)}, 0,
			Game{Racers: 1, Place: 1, Cleared: true, Walkover: true}},
		{"a walkover not cleared", 2, []Placing{played(1, 20), played(2, PlayedCards-1)}, 0, Game{Racers: 1, Place: 1, Walkover: true}},
		{"the quitter is last among those who played", 2, []Placing{cleared, played(2, 3)}, 1, Game{Racers: 2, Place: 2}},
		{"a quitter ranked above (stuck; the player left later): the others race as two", 3, []Placing{played(1, 20), played(2, 2), played(3, 10)}, 2,
			Game{Racers: 2, Place: 2}},
		{"a quitter tied with the player is no share", 3, []Placing{played(1, 20), played(2, 3), played(2, 9)}, 2,
			Game{Racers: 2, Place: 2}},
		{"a tie among players is shared", 3, []Placing{played(1, 9), played(1, 9), played(3, 0)}, 0,
			Game{Racers: 2, Place: 1, Shared: true}},
		{"racers without a placing count as played", 3, []Placing{played(1, 20), played(3, 0)}, 0, Game{Racers: 2, Place: 1}},
		{"everybody quit", 2, []Placing{played(1, 2), played(2, 0)}, 0, Game{Racers: 1, Place: 1, Walkover: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PlacingGame(tt.racers, tt.ps, tt.i); got != tt.want {
				t.Errorf("PlacingGame = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestFarmedWalkovers: a player whose second key quits at once, race
// after race, scores what solo deals score and never starts a streak.
func TestFarmedWalkovers(t *testing.T) {
	var l Line
	for range 5 {
		g := PlacingGame(2, []Placing{{Place: 1, Removed: 28, Cleared: true}, {Place: 2}}, 0)
		_, l = Score(l, g)
	}
	if want := 5 * (WinPoints + ClearBonus); l.Points != want || l.Streak != 0 || l.OnStreak() {
		t.Errorf("after five farmed races: %+v, want %d points and no streak", l, want)
	}
}
