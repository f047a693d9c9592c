package roomtest

import (
	"context"
	"pyramid/cluster"
	"pyramid/lobby"
	"pyramid/rating"
	"testing"

	"pyramid/bus"
	"pyramid/engine"
)

// testRated: a room's Rated flag travels with the rooms' open and
// rematch events, every server folds it (its snapshot and its public list
// line show it), and the holder's result carries it.
func testRated(t *testing.T, e *roomsEnv) {
	for i, rated := range []bool{false, true} {
		if i > 0 {
			e = e.fork(t)
		}
		a, b := e.server("a"), e.server("b")
		cfg := classic()
		cfg.Rated, cfg.Public = rated, true
		h, _, err := a.Create(pl("ann"), newSink(), cfg)
		wantErr(t, "Create", err, nil)
		eventually(t, "b sees the room", func() bool { _, ok := b.Room(h.Code()); return ok })
		hb, _ := b.Room(h.Code())
		if got := hb.Snapshot().Rated; got != rated {
			t.Fatalf("b folds Rated %v, want %v", got, rated)
		}
		if list := b.Public(); len(list) != 1 || list[0].Rated != rated {
			t.Errorf("public list %+v, want one room of Rated %v", list, rated)
		}
		_, err = b.Join(hb, pl("bob"), newSink())
		wantErr(t, "Join", err, nil)
		eventually(t, "a sees bob", func() bool { return len(h.Snapshot().Members) == 2 })
		wantErr(t, "Start", startReady(h, "id-ann"), nil)
		eventually(t, "both count down", func() bool {
			return phaseOf(a, h.Code()) == lobby.PhaseCountdown && phaseOf(b, h.Code()) == lobby.PhaseCountdown
		})
		e.clock.Advance(lobby.CountdownTime)
		eventually(t, "both race", func() bool {
			return phaseOf(a, h.Code()) == lobby.PhaseRacing && phaseOf(b, h.Code()) == lobby.PhaseRacing
		})
		wantErr(t, "ann clears", h.Report("id-ann", held(h, "id-ann"), lobby.Progress{Removed: 28, Moves: 40, Pass: 1, State: lobby.RacerCleared}, nil), nil)
		wantErr(t, "bob is stuck", hb.Report("id-bob", held(hb, "id-bob"), lobby.Progress{Removed: 4, Moves: 30, Pass: 3, State: lobby.RacerStuck}, nil), nil)
		eventually(t, "the holder stored the race", func() bool { return len(e.results("a")) == 1 })
		if got := e.results("a")[0].Rated; got != rated {
			t.Errorf("stored result Rated %v, want %v", got, rated)
		}
		eventually(t, "b has the results", func() bool { return phaseOf(b, h.Code()) == lobby.PhaseResults })
		wantErr(t, "Rematch", h.Rematch("id-ann", 43, engine.Winnable, !rated), nil)
		eventually(t, "b folds the rematch", func() bool { return hb.Snapshot().Round == 2 })
		if got := hb.Snapshot().Rated; got != !rated {
			t.Errorf("b after the rematch: Rated %v, want %v", got, !rated)
		}
	}
}

// testOldEventUnrated: a room opened by a server that did not know
// of the flag (its event has none) is unrated: its deal may have been
// chosen, and a chosen deal must never count.
func testOldEventUnrated(t *testing.T, e *roomsEnv) {
	a := e.server("a")
	old := []byte(`{"op":"open","c":"QXWZ","i":"old","s":"sid","p":{"id":"id-ann","n":"ann"},` +
		`"cfg":{"r":"classic","d":42,"v":1,"l":600000,"m":8}}`)
	if _, err := e.bus().Publish(context.Background(), cluster.RoomsTopic, bus.Message{Kind: "open", Body: old}); err != nil {
		t.Fatalf("Publish: %v", err)
	}
	eventually(t, "a folds the old event", func() bool { _, ok := a.Room("QXWZ"); return ok })
	h, _ := a.Room("QXWZ")
	if s := h.Snapshot(); s.Rated || s.Deal != 42 {
		t.Errorf("old room: deal %d, Rated %v; want 42, unrated", s.Deal, s.Rated)
	}
}

// storedRatings is what the servers' store tells of a stored race: the
// winner of the keyed racers gains 16, the others lose 8, from 1500. It
// depends on the result alone, as a store's read back does.
func storedRatings(res lobby.RaceResult) []lobby.RatingChange {
	var out []lobby.RatingChange
	for _, p := range res.Placings {
		if p.Guest {
			continue
		}
		c := lobby.RatingChange{ID: p.ID, Standing: rating.Rated, Before: 1500, After: 1492, Provisional: true}
		if p.Place == 1 {
			c.After = 1516
		}
		out = append(out, c)
	}
	return out
}

// testRatingsReachResults: the lease holder stores a race and logs how it
// counted for each racer; every server's results show it, to the racers
// of every server, after the results themselves.
func testRatingsReachResults(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	code, ann, bob := sharedRace(t, e, a, b)
	ha, _ := a.Room(code)
	hb, _ := b.Room(code)
	wantErr(t, "ann clears", ha.Report("id-ann", held(ha, "id-ann"), lobby.Progress{Removed: 28, Moves: 40, Pass: 1, State: lobby.RacerCleared}, nil), nil)
	wantErr(t, "bob is stuck", hb.Report("id-bob", held(hb, "id-bob"), lobby.Progress{Removed: 4, Moves: 30, Pass: 3, State: lobby.RacerStuck}, nil), nil)
	eventually(t, "the holder stored the race", func() bool { return len(e.results("a")) == 1 })
	want := map[string]float64{"id-ann": 1516, "id-bob": 1492}
	rated := func(s lobby.Snapshot) bool {
		if s.Phase != lobby.PhaseResults || len(s.Results) != 2 {
			return false
		}
		for _, p := range s.Results {
			if p.Rating == nil || p.Rating.Standing != rating.Rated || p.Rating.Before != 1500 || p.Rating.After != want[p.ID] {
				return false
			}
		}
		return true
	}
	eventually(t, "a's results carry the ratings", func() bool { return rated(ha.Snapshot()) })
	eventually(t, "b's results carry the ratings", func() bool { return rated(hb.Snapshot()) })
	eventually(t, "ann's session sees them", func() bool { s, ok := ann.room(code); return ok && rated(s) })
	eventually(t, "bob's session on b sees them", func() bool { s, ok := bob.room(code); return ok && rated(s) })
	// A rematch clears them: the next race's results have none yet.
	wantErr(t, "Rematch", ha.Rematch("id-ann", 43, engine.Winnable, true), nil)
	eventually(t, "b folds the rematch", func() bool { return hb.Snapshot().Round == 2 })
	if res := hb.Snapshot().Results; len(res) != 0 {
		t.Errorf("results after the rematch: %+v", res)
	}
}
