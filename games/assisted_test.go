package games_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/games"
	"pyramid/store"
)

// solverLine is the solver's winning line of a classic deal, in notation.
func solverLine(t *testing.T, deal uint64) []string {
	t.Helper()
	r, _ := engine.Preset("classic")
	for n := deal; ; n++ {
		sol, err := engine.SolveDeal(context.Background(), r, engine.NewDeal(n, r.Decks), 1_000_000)
		if err != nil {
			t.Fatal(err)
		}
		if sol.Verdict == engine.Winnable {
			line := make([]string, len(sol.Moves))
			for i, m := range sol.Moves {
				line[i] = m.String()
			}
			return line
		}
	}
}

// ms is move times in milliseconds.
func ms(v ...int) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, n := range v {
		out[i] = time.Duration(n) * time.Millisecond
	}
	return out
}

// every is n move times step apart, from start.
func every(n int, start, step time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = start + time.Duration(i)*step
	}
	return out
}

// TestAssistedHumanGames: games recorded at a person's pace over SSH are
// not faster than play.
func TestAssistedHumanGames(t *testing.T) {
	for _, tt := range humanGames {
		t.Run(tt.name, func(t *testing.T) {
			moves := strings.Fields(tt.moves)
			if games.Assisted(moves, tt.times) {
				t.Errorf("Assisted(%s) = true, want false: a person played it", tt.name)
			}
		})
	}
}

// TestAssistedPastedAndScripted: the solver's line pasted through ":" (one
// input: every move at once), or typed by a program at a steady pace, is
// faster than play; so is any burst of BurstRemovals removals within a
// second, but not one removal fewer, and not draws however fast.
func TestAssistedPastedAndScripted(t *testing.T) {
	line := solverLine(t, 508412)
	removals := 0
	for _, s := range line {
		if s != "d" && s != "r" {
			removals++
		}
	}
	pasted := make([]time.Duration, len(line))
	for i := range pasted {
		pasted[i] = 18600 * time.Millisecond
	}
	burst := func(n int) ([]string, []time.Duration) {
		moves := []string{"d", "d", "d"}
		times := ms(1000, 1100, 1200)
		for i := range n {
			moves = append(moves, "7.1+7.2")
			times = append(times, 5*time.Second+time.Duration(i)*150*time.Millisecond)
		}
		return moves, times
	}
	draws := strings.Fields(strings.Repeat("d ", 40))
	for _, tt := range []struct {
		name  string
		moves []string
		times []time.Duration
		want  bool
	}{
		{"the solver's line pasted", line, pasted, true},
		{"the solver's line typed at 200 ms a move", line, every(len(line), time.Second, 200*time.Millisecond), true},
		{"the solver's line typed at 2 s a move", line, every(len(line), time.Second, 2*time.Second), false},
		{"a burst of the limit's removals", first(burst(games.BurstRemovals)), second(burst(games.BurstRemovals)), true},
		{"a burst of one removal fewer", first(burst(games.BurstRemovals - 1)), second(burst(games.BurstRemovals - 1)), false},
		{"draws held down", draws, every(len(draws), 0, 30*time.Millisecond), false},
		{"no times kept", line, nil, false},
		{"not notation", []string{"x", "x", "x", "x", "x", "x"}, ms(1, 1, 1, 1, 1, 1), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := games.Assisted(tt.moves, tt.times); got != tt.want {
				t.Errorf("Assisted = %v, want %v (%d moves, %d removals in the solver's line)", got, tt.want, len(tt.moves), removals)
			}
		})
	}
	if removals < games.RunRemovals {
		t.Fatalf("the solver's line has %d removals, fewer than RunRemovals (%d): pick a deal that tests the run", removals, games.RunRemovals)
	}
}

func first(m []string, _ []time.Duration) []string         { return m }
func second(_ []string, t []time.Duration) []time.Duration { return t }

// TestFastWinSetsNoRecord: a win whose moves came faster than play is
// stored as a win, fast (assisted), and sets no record; a chosen deal's
// win is stored as chosen and sets none either; a win at a person's pace
// of a dealt deal sets the first record.
func TestFastWinSetsNoRecord(t *testing.T) {
	e := newEnv(t)
	w := e.writer("session-a")
	line := solverLine(t, 508412)
	var dealt uint64 = 508412
	r, _ := engine.Preset("classic")
	for {
		if sol, _ := engine.SolveDeal(e.ctx, r, engine.NewDeal(dealt, 1), 1_000_000); sol.Verdict == engine.Winnable {
			break
		}
		dealt++
	}
	pasted := make([]time.Duration, len(line))
	for i := range pasted {
		pasted[i] = 9 * time.Second
	}
	win := func(p games.Play) games.Saved {
		t.Helper()
		saved, err := w.Save(e.ctx, e.player, 0, p, nil)
		if err != nil || saved.Status != store.StatusWon {
			t.Fatalf("Save = %+v, %v; want a win", saved, err)
		}
		return saved
	}
	fast := win(games.Play{Record: engine.Record{Rules: "classic", Deal: dealt, Moves: line}, Played: 9 * time.Second, MoveTimes: pasted})
	if !fast.Fast || !fast.Assisted || fast.FirstWin || fast.NewBestTime {
		t.Errorf("pasted win: %+v; want fast, assisted, no record", fast)
	}
	chosen := win(games.Play{Record: engine.Record{Rules: "classic", Deal: dealt, Moves: line}, Played: time.Minute,
		MoveTimes: every(len(line), time.Second, 2*time.Second), Chosen: true})
	if !chosen.Chosen || chosen.Fast || chosen.FirstWin || chosen.NewBestTime {
		t.Errorf("chosen deal's win: %+v; want chosen, not fast, no record", chosen)
	}
	st, err := e.st.Stats(e.ctx, e.player, "classic")
	if err != nil || st.Won != 2 || st.BestTime != 0 || st.AssistedWins != 1 {
		t.Fatalf("stats = %+v, %v; want 2 wins, 1 assisted, no best time", st, err)
	}
	played := win(games.Play{Record: engine.Record{Rules: "classic", Deal: dealt, Moves: line}, Played: 3 * time.Minute,
		MoveTimes: every(len(line), time.Second, 2*time.Second)})
	if played.Fast || played.Assisted || !played.FirstWin {
		t.Errorf("win at a person's pace: %+v; want the first record", played)
	}
}
