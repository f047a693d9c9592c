package lobby

import (
	"context"
	"testing"

	"pyramid/bus"
	"pyramid/engine"
)

// TestRoomRated: a room's Rated flag shows in its snapshot and its public
// list line, goes into the result of its race, and a rematch sets it
// anew for the next deal.
func TestRoomRated(t *testing.T) {
	for _, tt := range []struct {
		name         string
		rated        bool // the room's first deal
		rematchRated bool
	}{
		{"chosen deal, then a random one", false, true},
		{"random deal, then a chosen one", true, false},
		{"random deals", true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, 0)
			cfg := classic()
			cfg.Rated, cfg.Public = tt.rated, true
			r, _ := e.race(cfg)
			if s := r.Snapshot(); s.Rated != tt.rated {
				t.Errorf("snapshot Rated %v, want %v", s.Rated, tt.rated)
			}
			if list := e.rooms.Public(); len(list) != 1 || list[0].Rated != tt.rated {
				t.Errorf("public list %+v, want one room of Rated %v", list, tt.rated)
			}
			report(t, r, "alice", 28, RacerCleared)
			report(t, r, "bob", 3, RacerStuck)
			report(t, r, "carol", 2, RacerStuck)
			wantErr(t, "Rematch", r.Rematch("id-alice", 43, engine.Winnable, tt.rematchRated), nil)
			if s := r.Snapshot(); s.Rated != tt.rematchRated || s.Deal != 43 {
				t.Errorf("after the rematch: deal %d, Rated %v; want 43, %v", s.Deal, s.Rated, tt.rematchRated)
			}
			wantErr(t, "Start", r.Start("id-alice"), nil)
			e.clock.Advance(CountdownTime)
			report(t, r, "bob", 28, RacerCleared)
			report(t, r, "alice", 1, RacerStuck)
			report(t, r, "carol", 1, RacerStuck)
			res := e.results()
			if len(res) != 2 {
				t.Fatalf("%d results, want 2", len(res))
			}
			if res[0].Rated != tt.rated || res[1].Rated != tt.rematchRated {
				t.Errorf("results rated %v, %v; want %v, %v", res[0].Rated, res[1].Rated, tt.rated, tt.rematchRated)
			}
		})
	}
}

// TestSharedRated: the flag travels with the shared rooms' open and
// rematch events, every server folds it, and the holder's result carries
// it.
func TestSharedRated(t *testing.T) {
	for _, rated := range []bool{false, true} {
		e := newSharedEnv(t)
		a, b := e.server("a"), e.server("b")
		cfg := classic()
		cfg.Rated = rated
		h, _, err := a.Create(pl("ann"), newSink(), cfg)
		wantErr(t, "Create", err, nil)
		eventually(t, "b sees the room", func() bool { _, ok := b.Room(h.Code()); return ok })
		hb, _ := b.Room(h.Code())
		if got := hb.Snapshot().Rated; got != rated {
			t.Fatalf("b folds Rated %v, want %v", got, rated)
		}
		_, err = b.Join(hb, pl("bob"), newSink())
		wantErr(t, "Join", err, nil)
		eventually(t, "a sees bob", func() bool { return len(h.Snapshot().Members) == 2 })
		wantErr(t, "Start", h.Start("id-ann"), nil)
		eventually(t, "both count down", func() bool {
			return phaseOf(a, h.Code()) == PhaseCountdown && phaseOf(b, h.Code()) == PhaseCountdown
		})
		e.clock.Advance(CountdownTime)
		eventually(t, "both race", func() bool { return phaseOf(a, h.Code()) == PhaseRacing && phaseOf(b, h.Code()) == PhaseRacing })
		wantErr(t, "ann clears", h.Report("id-ann", heldShared(h, "id-ann"), Progress{Removed: 28, Moves: 40, Pass: 1, State: RacerCleared}), nil)
		wantErr(t, "bob is stuck", hb.Report("id-bob", heldShared(hb, "id-bob"), Progress{Removed: 4, Moves: 30, Pass: 3, State: RacerStuck}), nil)
		eventually(t, "the holder stored the race", func() bool { return len(e.results("a")) == 1 })
		if got := e.results("a")[0].Rated; got != rated {
			t.Errorf("stored result Rated %v, want %v", got, rated)
		}
		eventually(t, "b has the results", func() bool { return phaseOf(b, h.Code()) == PhaseResults })
		wantErr(t, "Rematch", h.Rematch("id-ann", 43, engine.Winnable, !rated), nil)
		eventually(t, "b folds the rematch", func() bool { return hb.Snapshot().Round == 2 })
		if got := hb.Snapshot().Rated; got != !rated {
			t.Errorf("b after the rematch: Rated %v, want %v", got, !rated)
		}
	}
}

// TestSharedOldEventUnrated: a room opened by a server that did not know
// of the flag (its event has none) is unrated: its deal may have been
// chosen, and a chosen deal must never count.
func TestSharedOldEventUnrated(t *testing.T) {
	e := newSharedEnv(t)
	a := e.server("a")
	old := []byte(`{"op":"open","c":"QXWZ","i":"old","s":"sid","p":{"id":"id-ann","n":"ann"},` +
		`"cfg":{"r":"classic","d":42,"v":1,"l":600000,"m":8}}`)
	if _, err := e.bus.Publish(context.Background(), SharedTopic, bus.Message{Kind: "open", Body: old}); err != nil {
		t.Fatalf("Publish: %v", err)
	}
	eventually(t, "a folds the old event", func() bool { _, ok := a.Room("QXWZ"); return ok })
	h, _ := a.Room("QXWZ")
	if s := h.Snapshot(); s.Rated || s.Deal != 42 {
		t.Errorf("old room: deal %d, Rated %v; want 42, unrated", s.Deal, s.Rated)
	}
}
