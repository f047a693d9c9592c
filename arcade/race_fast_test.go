package arcade

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/log"

	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/store"
	"pyramid/store/sqlstore"
	"pyramid/tui"
)

// racesKept is a store that keeps the races written to it, as they were
// asked to be written.
type racesKept struct {
	store.Store
	mu    sync.Mutex
	races []store.NewRace
}

func (s *racesKept) RecordRace(ctx context.Context, nr store.NewRace) (int64, error) {
	s.mu.Lock()
	s.races = append(s.races, nr)
	s.mu.Unlock()
	return s.Store.RecordRace(ctx, nr)
}

// hintLine is the hints' line of a deal until it has made n removals.
func hintLine(t *testing.T, rules engine.Rules, deal uint64, n int) engine.Record {
	t.Helper()
	g, err := engine.NewNumbered(rules, deal)
	if err != nil {
		t.Fatal(err)
	}
	removals := 0
	for g.Status() == engine.Playing && removals < n {
		m, ok := g.Hint()
		if !ok || g.Apply(m) != nil {
			break
		}
		if m.Kind == engine.RemoveKing || m.Kind == engine.RemovePair {
			removals++
		}
	}
	if removals < n {
		t.Fatalf("the hints of deal %d make %d removals, want %d", deal, removals, n)
	}
	return g.Record()
}

// TestRacePastedLineIsAssisted: a racer who sends a line of moves at once
// (pasted through ":") is told the race is unrated for them, keeps their
// place, and is stored placed and assisted; a racer who played at a
// person's pace is not.
func TestRacePastedLineIsAssisted(t *testing.T) {
	st, err := sqlstore.Open(context.Background(), t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	kept := &racesKept{Store: st}
	f := &fixture{t: t, st: kept, app: New(Config{Store: kept, Logger: log.New(&bytes.Buffer{}), Connect: "ssh test"})}
	ann, _ := f.racer(t, "ann", false)
	bob, _ := f.racer(t, "bob", false)
	code, room := startRace(t, f, tui.RoomOptions{Rules: engine.Classic(), Deal: 42, HasDeal: true}, ann, bob)
	pasted := hintLine(t, engine.Classic(), 42, 8)
	note, err := ann.Play(context.Background(), code, 1, 1, pasted)
	if err != nil {
		t.Fatal(err)
	}
	if note == "" || !bytes.Contains([]byte(note), []byte("unrated: moves faster than play")) {
		t.Errorf("the pasted line's note %q, want it to say the race is unrated for ann", note)
	}
	playLine(t, bob, code, 1, removeOne(t, engine.Classic(), 42))
	for _, rs := range []*races{ann, bob} {
		if err := rs.Leave(code); err != nil {
			t.Fatal(err)
		}
	}
	waitPhase(t, room, lobby.PhaseResults)
	deadline := time.Now().Add(10 * time.Second)
	for {
		kept.mu.Lock()
		n := len(kept.races)
		kept.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the race was not stored")
		}
		time.Sleep(10 * time.Millisecond)
	}
	kept.mu.Lock()
	defer kept.mu.Unlock()
	got := map[string]store.RacePlacing{}
	for _, p := range kept.races[0].Placings {
		got[p.PlayerID] = p
	}
	if p, ok := got[ann.me.ID]; !ok || !p.Assisted || p.Place != 1 {
		t.Errorf("ann's placing %+v, want placed first and assisted", p)
	}
	if p, ok := got[bob.me.ID]; !ok || p.Assisted {
		t.Errorf("bob's placing %+v, want placed and not assisted", p)
	}
}
