package lobby

import (
	"context"
	"testing"
	"time"
)

// TestLobbyRename: a player renamed elsewhere is listed by the new name
// at once, watch finds them by it and no longer by the old one, and each
// of their sessions is told.
func TestLobbyRename(t *testing.T) {
	l := New(Config{})
	defer l.Close()
	dan1 := l.Join(Player{ID: "SHA256:d", Name: "dan"})
	dan2 := l.Join(Player{ID: "SHA256:d", Name: "dan"})
	fay := l.Join(Player{ID: "SHA256:f", Name: "fay"})
	l.SetDoing(dan1, Doing{What: Playing, Rules: "classic", Deal: 7})

	if n := l.Rename("SHA256:d", "dån", "", 0); n != 2 {
		t.Fatalf("Rename renamed %d sessions, want 2", n)
	}
	if got, want := names(l.Who()), "dån:playing fay:menu "; got != want {
		t.Fatalf("Who = %q, want %q", got, want)
	}
	if got := dan2.Player().Name; got != "dån" {
		t.Errorf("Player().Name = %q, want dån", got)
	}
	if _, err := l.Watch(fay, "dån"); err != nil {
		t.Errorf("watch dån: %v", err)
	}
	if _, err := l.Watch(fay, "dan"); err == nil {
		t.Error("watch dan still finds dån")
	}
	for i, s := range []*Session{dan1, dan2} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var got []Event
		for {
			ev, err := s.Queue().Next(ctx)
			if err != nil {
				t.Fatalf("session %d: no Renamed: %v (had %v)", i+1, err, got)
			}
			got = append(got, ev)
			if r, ok := ev.(Renamed); ok {
				if r.Name != "dån" {
					t.Errorf("session %d told %+v", i+1, r)
				}
				break
			}
		}
		cancel()
	}
	if n := l.Rename("SHA256:nobody", "x", "", 0); n != 0 {
		t.Errorf("Rename of a player not here renamed %d", n)
	}
}
