package lobby

import (
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"pyramid/engine"
)

// events takes every waiting event of a session's queue.
func events(t *testing.T, s *Session) []Event {
	t.Helper()
	return drain(t, s.Queue())
}

// lastOf returns the last event of type T in evs.
func lastOf[T any](evs []Event) (T, bool) {
	var zero T
	for i := len(evs) - 1; i >= 0; i-- {
		if v, ok := evs[i].(T); ok {
			return v, true
		}
	}
	return zero, false
}

func board(moves ...string) Board {
	return Board{Record: engine.Record{Rules: "classic", Deal: 42, Moves: moves, Redo: []string{"d"}}}
}

func TestWatchRefusals(t *testing.T) {
	l := New(Config{})
	defer l.Close()
	ann := l.Join(Player{ID: "a", Name: "Ann"})
	ann2 := l.Join(Player{ID: "a", Name: "Ann"})
	shy := l.Join(Player{ID: "s", Name: "shy"})
	l.SetWatchable(shy, false)
	bob := l.Join(Player{ID: "b", Name: "bob"})
	tests := []struct {
		name   string
		viewer *Session
		watch  string
		want   error
	}{
		{"nobody of that name", bob, "carol", ErrNotOnline},
		{"empty name", bob, " ", ErrNotOnline},
		{"oneself", ann, "ann", ErrWatchSelf},
		{"oneself from another session", ann2, "ANN", ErrWatchSelf},
		{"setting off", bob, "shy", ErrNotWatchable},
		{"allowed, any case", bob, "aNN", nil},
		// A look-alike of a name finds nobody: the store keeps one name
		// of each look (keys.LookAlike), so the name as typed finds the
		// one player who has it, or nobody, never a second.
		{"a look-alike, a Cyrillic A", bob, "\u0410nn", ErrNotOnline},
		{"a look-alike, a default-ignorable", bob, "Ann\u034f", ErrNotOnline},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := l.Watch(tt.viewer, tt.watch)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Watch(%q): got %v, want %v", tt.watch, err, tt.want)
			}
		})
	}
	if l.Watchable(shy) || !l.Watchable(ann) {
		t.Fatal("Watchable does not say what SetWatchable set")
	}
}

func TestWatchFollowsPublish(t *testing.T) {
	l := New(Config{})
	defer l.Close()
	ann := l.Join(Player{ID: "a", Name: "ann"})
	menu := l.Join(Player{ID: "a", Name: "ann"}) // ann's other session, in the menu
	bob := l.Join(Player{ID: "b", Name: "bob"})
	l.SetDoing(ann, Doing{What: Playing, Rules: "classic", Deal: 42})
	l.Publish(ann, board("d"))
	w, err := l.Watch(bob, "ann")
	if err != nil {
		t.Fatal(err)
	}
	if !w.Board.Playing() || len(w.Board.Record.Moves) != 1 || w.Board.Record.Redo != nil || w.Spectators != 1 || w.Name != "ann" {
		t.Fatalf("Watch returned %+v, want ann's session that plays, 1 move, no redo, 1 spectator", w)
	}
	if n, ok := lastOf[Spectators](events(t, ann)); !ok || n.N != 1 {
		t.Fatalf("ann is told %+v (%v), want 1 spectator", n, ok)
	}
	if len(events(t, menu)) != 0 {
		t.Fatal("ann's other session is told of a spectator it does not have")
	}
	// Three moves while bob does not read: he gets the newest board once.
	events(t, bob)
	l.Publish(ann, board("d", "d"))
	l.Publish(ann, board("d", "d", "d"))
	l.Publish(ann, board("d", "d", "d", "d"))
	evs := events(t, bob)
	if len(evs) != 1 {
		t.Fatalf("bob got %d events for three boards, want one (coalesced)", len(evs))
	}
	if w := evs[0].(Watched); len(w.Board.Record.Moves) != 4 {
		t.Fatalf("bob's board has %d moves, want the newest (4)", len(w.Board.Record.Moves))
	}
	l.Unwatch(bob)
	if ann.board.Playing() {
		t.Fatal("the board of a session nobody watches is kept: it goes stale")
	}
	l.Publish(ann, board())
	if len(events(t, bob)) != 0 {
		t.Fatal("bob gets boards after Unwatch")
	}
	if n, _ := lastOf[Spectators](events(t, ann)); n.N != 0 || l.SpectatorsOf(ann) != 0 {
		t.Fatalf("after Unwatch ann has %d spectators", n.N)
	}
}

func TestWatchEnds(t *testing.T) {
	tests := []struct {
		name   string
		end    func(l *Lobby, ann *Session)
		reason string
	}{
		{"the player leaves", func(l *Lobby, ann *Session) { l.Leave(ann) }, "ann left"},
		{"the player turns watching off", func(l *Lobby, ann *Session) { l.SetWatchable(ann, false) }, "ann no longer lets others watch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := New(Config{})
			defer l.Close()
			ann := l.Join(Player{ID: "a", Name: "ann"})
			bob := l.Join(Player{ID: "b", Name: "bob"})
			guest := l.Join(Player{Name: "guest", Guest: true})
			for _, v := range []*Session{bob, guest} {
				if _, err := l.Watch(v, "ann"); err != nil {
					t.Fatal(err)
				}
				events(t, v)
			}
			tt.end(l, ann)
			for _, v := range []*Session{bob, guest} {
				end, ok := lastOf[WatchEnded](events(t, v))
				if !ok || end.Reason != tt.reason || end.Name != "ann" {
					t.Fatalf("spectator told %+v (%v), want %q", end, ok, tt.reason)
				}
				if v.watching != nil {
					t.Fatal("the spectator still watches")
				}
			}
		})
	}
}

func TestWatchSpectatorLeaves(t *testing.T) {
	l := New(Config{})
	defer l.Close()
	ann := l.Join(Player{ID: "a", Name: "ann"})
	bob := l.Join(Player{ID: "b", Name: "bob"})
	if _, err := l.Watch(bob, "ann"); err != nil {
		t.Fatal(err)
	}
	l.Leave(bob)
	if n, _ := lastOf[Spectators](events(t, ann)); n.N != 0 || len(ann.spectators) != 0 {
		t.Fatalf("ann keeps %d spectators after bob left", len(ann.spectators))
	}
}

func TestWatchCap(t *testing.T) {
	l := New(Config{})
	defer l.Close()
	ann := l.Join(Player{ID: "a", Name: "ann"})
	for i := range MaxSpectators {
		v := l.Join(Player{ID: "v" + strconv.Itoa(i), Name: "v" + strconv.Itoa(i)})
		if _, err := l.Watch(v, "ann"); err != nil {
			t.Fatalf("spectator %d: %v", i, err)
		}
	}
	late := l.Join(Player{ID: "late", Name: "late"})
	if _, err := l.Watch(late, "ann"); !errors.Is(err, ErrGameFull) {
		t.Fatalf("spectator %d: got %v, want ErrGameFull", MaxSpectators+1, err)
	}
	if n := l.SpectatorsOf(ann); n != MaxSpectators {
		t.Fatalf("ann has %d spectators, want %d", n, MaxSpectators)
	}
}

// TestWatchStuckSpectator: a spectator that never reads costs the player
// nothing and is dropped once its queue stayed full for DropAfter.
func TestWatchStuckSpectator(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	l := New(Config{Now: clock, QueueSize: 2})
	defer l.Close()
	ann := l.Join(Player{ID: "a", Name: "ann"})
	stuck := l.Join(Player{ID: "s", Name: "stuck"})
	if _, err := l.Watch(stuck, "ann"); err != nil {
		t.Fatal(err)
	}
	// Fill stuck's queue with other keys, so the board is refused.
	stuck.Queue().Coalesce("x", 1)
	stuck.Queue().Coalesce("y", 2)
	l.Publish(ann, board("d"))
	if stuck.gone {
		t.Fatal("dropped at once")
	}
	mu.Lock()
	now = now.Add(DropAfter)
	mu.Unlock()
	l.Publish(ann, board("d", "d"))
	if !stuck.gone || l.SpectatorsOf(ann) != 0 {
		t.Fatalf("a spectator full for DropAfter: gone %v, ann has %d spectators", stuck.gone, l.SpectatorsOf(ann))
	}
}

func TestDaily(t *testing.T) {
	l := New(Config{})
	defer l.Close()
	ann := l.Join(Player{ID: "a", Name: "ann"})
	ann2 := l.Join(Player{ID: "a", Name: "ann"})
	bob := l.Join(Player{ID: "b", Name: "bob"})
	g := l.Join(Player{Name: "guest", Guest: true})
	l.SetDoing(ann, Doing{What: Playing, Rules: "daily", Deal: 7})
	l.SetDoing(ann2, Doing{What: Playing, Rules: "daily", Deal: 7})
	l.SetDoing(g, Doing{What: Playing, Rules: "daily", Deal: 7})
	l.SetDoing(bob, Doing{What: Playing, Rules: "classic", Deal: 7})
	if n := l.PlayingRules("daily"); n != 2 {
		t.Fatalf("PlayingRules(daily) = %d, want 2 (ann once, the guest)", n)
	}
	l.WatchDaily(bob, true)
	events(t, bob)
	l.DailyFinished("daily", "2026-03-01")
	l.DailyFinished("daily", "2026-03-01")
	evs := events(t, bob)
	if len(evs) != 1 || evs[0] != (DailyChanged{Rules: "daily", Date: "2026-03-01"}) {
		t.Fatalf("bob got %v, want one DailyChanged", evs)
	}
	if len(events(t, ann)) != 0 {
		t.Fatal("a session that does not watch the board is told of it")
	}
	l.WatchDaily(bob, false)
	l.DailyFinished("daily", "2026-03-01")
	if len(events(t, bob)) != 0 {
		t.Fatal("told after WatchDaily off")
	}
}
