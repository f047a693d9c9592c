package lobby

import (
	"context"
	"encoding/json"
	"fmt"
	"pyramid/bus"
	"strings"
	"testing"
	"time"
)

// testOfferNewest: progress is offered to the coalescer without
// the room's lock, so two reports of one room may come to it in either
// order: the newest version goes, an older one that comes late is
// dropped, and late news takes the newest out at once.
func testOfferNewest(t *testing.T, e *roomsEnv) {
	e.every = time.Hour // after the first, only news goes out within the test
	a, b := e.server("a"), e.server("b")
	code, _, _ := sharedRace(t, e, a, b)
	r := a.lookup(code)
	offer := func(version uint64, removed int, news bool) {
		a.offerProgress(r, progressOffer{version: version, news: news, msg: progressMsg{Inst: "a", Round: r.round,
			Racers: []wireRacer{{ID: "id-ann", Removed: removed, Moves: removed / 2, Pass: 1}}}})
	}
	sub, err := e.bus().Subscribe(context.Background(), ProgressTopic(code, "a"), 0)
	wantErr(t, "Subscribe", err, nil)
	defer sub.Close()
	next := func() (removed int, ok bool) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		ev, err := sub.Next(ctx)
		if err != nil {
			return 0, false
		}
		var m progressMsg
		if err := json.Unmarshal(ev.Body, &m); err != nil || len(m.Racers) != 1 {
			t.Fatalf("event %s: %v", ev.Body, err)
		}
		return m.Racers[0].Removed, true
	}
	offer(1001, 2, false) // out at once: the first
	if got, ok := next(); !ok || got != 2 {
		t.Fatalf("the first progress: %d removed (%v), want 2", got, ok)
	}
	offer(1003, 6, false) // waits for ProgressEvery
	offer(1002, 4, true)  // late news: the newest goes out now, as news
	offer(1001, 2, false) // late and no news: dropped
	var got []int
	for {
		removed, ok := next()
		if !ok {
			break
		}
		got = append(got, removed)
	}
	if fmt.Sprint(got) != "[6]" {
		t.Fatalf("progress published after the first (cards removed): %v, want [6]", got)
	}
}

// testProgressUnchangedRacers: another server's progress holds all
// of its racers in the room; only those whose progress changed reach the
// local sessions' panels.
func testProgressUnchangedRacers(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	code, _, bob := sharedRace(t, e, a, b)
	r := b.lookup(code)
	key := RacerKey(code, "id-ann")
	tests := []struct {
		name    string
		removed int
		shown   bool
	}{
		{"a change", 2, true},
		{"the same again", 2, false},
		{"the next change", 4, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bob.mu.Lock()
			delete(bob.latest, key)
			bob.mu.Unlock()
			r.mu.Lock()
			b.applyProgress(r, progressMsg{Inst: "a", Round: r.round, Racers: []wireRacer{{ID: "id-ann", Removed: tt.removed, Moves: 1, Pass: 1}}})
			r.mu.Unlock()
			bob.mu.Lock()
			_, shown := bob.latest[key]
			bob.mu.Unlock()
			if shown != tt.shown {
				t.Errorf("ann's line on bob's panel: shown %v, want %v", shown, tt.shown)
			}
		})
	}
}

// TestProgressEventFits: a server's progress event of a full room, eight
// racers with the longest IDs and moves, each with a long line, fits in
// one event of the bus.
func TestProgressEventFits(t *testing.T) {
	m := progressMsg{Inst: strings.Repeat("i", 24), Round: 99, T: time.Now().UnixMicro()}
	line := make([]string, 400)
	for i := range line {
		line[i] = "10.10+9.10" // the longest move a double pyramid's notation has
	}
	for i := range MaxRacers {
		m.Racers = append(m.Racers, wireRacer{ID: fmt.Sprintf("SHA256:%043d~%d", i, i), Line: lineOf(line),
			Removed: 45, Moves: 400, Pass: 3, Board: 1<<45 - 1, State: int(RacerPlaying), GameID: 1 << 40,
			LastMS: 3_600_000, FinishMS: 3_600_000})
	}
	body, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(body) > bus.MaxBody {
		t.Fatalf("a full room's progress event is %d bytes, over the bus's %d", len(body), bus.MaxBody)
	}
	t.Logf("a full room's progress event: %d bytes of %d", len(body), bus.MaxBody)
}
