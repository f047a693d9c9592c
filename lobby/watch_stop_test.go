package lobby

import "testing"

// TestStopWatching: a player who joins a race room stops watching in
// every session: the watched player's count drops, the watching session
// is told why, and another player's spectating is left alone.
func TestStopWatching(t *testing.T) {
	l := New(Config{})
	defer l.Close()
	bob := l.Join(Player{ID: "b", Name: "bob"})
	ann := l.Join(Player{ID: "a", Name: "ann"})
	ann2 := l.Join(Player{ID: "a", Name: "ann"})
	carol := l.Join(Player{ID: "c", Name: "carol"})
	for _, v := range []*Session{ann, carol} {
		if _, err := l.Watch(v, "bob"); err != nil {
			t.Fatal(err)
		}
	}
	l.SetDoing(ann, Doing{What: Watching, Watched: "bob"})
	if n := l.SpectatorsOf(bob); n != 2 {
		t.Fatalf("bob has %d spectators, want 2", n)
	}
	events(t, ann)
	l.StopWatching(ann2, "you joined room KMTX")
	if n := l.SpectatorsOf(bob); n != 1 {
		t.Errorf("after ann joined a room bob has %d spectators, want carol alone", n)
	}
	end, ok := lastOf[WatchEnded](events(t, ann))
	if !ok || end.Reason != "you joined room KMTX" || end.Name != "bob" {
		t.Errorf("ann's watching session got %+v (%v), want WatchEnded saying why", end, ok)
	}
	if _, ok := lastOf[WatchEnded](events(t, carol)); ok {
		t.Error("carol's spectating ended too")
	}
	if _, ok := lastOf[WatchEnded](events(t, ann2)); ok {
		t.Error("the session that joined the room was told it stopped watching")
	}
	// Who shows ann racing, even once her watching session says it is
	// at the menu.
	l.SetDoing(ann2, Doing{What: Racing, Room: "KMTX"})
	l.SetDoing(ann, Doing{What: AtMenu})
	for _, p := range l.Who() {
		if p.Player.ID == "a" && p.Doing.What != Racing {
			t.Errorf("who shows ann %+v, want racing", p.Doing)
		}
	}
}
