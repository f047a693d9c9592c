package roomtest

import (
	"testing"

	"pyramid/engine"
	"pyramid/lobby"
)

// testRematchBothLeave: the path of TestE2ERaceRated as of bcb4f7b (on
// PostgreSQL its rematch did not end about one run in twenty): a race ends as
// ann clears it with bob gone; after the rematch bob comes back with a new
// session, ann removes a pair, and both leave during the race: the holder
// ends the race and stores it.
func testRematchBothLeave(t *testing.T, e *roomsEnv) {
	a := e.server("a")
	ann, bob := newSink(), newSink()
	h, _, err := a.Create(pl("ann"), ann, classic())
	wantErr(t, "Create", err, nil)
	code := h.Code()
	_, err = a.Join(h, pl("bob"), bob)
	wantErr(t, "Join", err, nil)
	wantErr(t, "Start", startReady(h, "id-ann"), nil)
	e.clock.Advance(lobby.CountdownTime)
	eventually(t, "racing", func() bool { return phaseOf(a, code) == lobby.PhaseRacing })
	wantErr(t, "bob leaves", h.Leave("id-bob", held(h, "id-bob")), nil)
	wantErr(t, "ann clears", h.Report("id-ann", held(h, "id-ann"), lobby.Progress{Removed: 28, Moves: 40, Pass: 1, State: lobby.RacerCleared}, nil), nil)
	eventually(t, "results", func() bool { return phaseOf(a, code) == lobby.PhaseResults })
	eventually(t, "the first race stored", func() bool { return len(e.results("a")) == 1 })

	wantErr(t, "Rematch", h.Rematch("id-ann", 43, engine.Winnable, true), nil)
	bob2 := newSink()
	_, err = a.Join(h, pl("bob"), bob2)
	wantErr(t, "Join again", err, nil)
	wantErr(t, "Start again", startReady(h, "id-ann"), nil)
	e.clock.Advance(lobby.CountdownTime)
	eventually(t, "racing again", func() bool { return phaseOf(a, code) == lobby.PhaseRacing })
	wantErr(t, "ann removes", h.Report("id-ann", held(h, "id-ann"), lobby.Progress{Removed: 2, Moves: 1, Pass: 1, State: lobby.RacerPlaying}, nil), nil)
	wantErr(t, "bob leaves", h.Leave("id-bob", held(h, "id-bob")), nil)
	wantErr(t, "ann leaves", h.Leave("id-ann", held(h, "id-ann")), nil)
	eventually(t, "the rematch ends", func() bool { return phaseOf(a, code) == lobby.PhaseResults })
	eventually(t, "the rematch stored", func() bool { return len(e.results("a")) == 2 })
	res := e.results("a")[1]
	if res.Round != 2 || !res.Rated || len(res.Placings) != 2 || res.Placings[0].ID != "id-ann" || res.Placings[0].Removed != 2 {
		t.Fatalf("the rematch stored as round %d, rated %v, placings %q; want round 2, rated, ann first with 2 removed",
			res.Round, res.Rated, placingTimes(res.Placings))
	}
}
