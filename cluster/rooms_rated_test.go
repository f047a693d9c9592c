package cluster

import (
	"context"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/rating"
)

// roomSink is a racer's queue as a room sees it, kept by a test.
type roomSink struct{ events chan lobby.Event }

func (s roomSink) Post(ev lobby.Event) bool {
	select {
	case s.events <- ev:
		return true
	default:
		return false
	}
}

func (s roomSink) Coalesce(string, lobby.Event) {}

// TestRoomsOnRated: once the holder stored a race that moved ratings,
// every server's rooms say so with the race's rules (the web page's
// rating lists); a race that rated nobody says nothing.
func TestRoomsOnRated(t *testing.T) {
	for _, tt := range []struct {
		name     string
		standing rating.Standing
		want     bool
	}{
		{"rated", rating.Rated, true},
		{"unrated", rating.Unrated, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clock := lobby.NewFakeClock(time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC))
			rated := make(chan string, 4)
			stored := make(chan struct{}, 4)
			rooms, err := NewRooms(context.Background(), RoomsConfig{RoomsConfig: lobby.RoomsConfig{Instance: "one", Clock: clock,
				OnRaceEnd: func(res lobby.RaceResult) ([]lobby.RatingChange, error) {
					stored <- struct{}{}
					var out []lobby.RatingChange
					for _, p := range res.Placings {
						out = append(out, lobby.RatingChange{ID: p.ID, Standing: tt.standing, Before: 1500, After: 1510})
					}
					return out, nil
				},
				OnRated: func(rulesID string) { rated <- rulesID }}})
			if err != nil {
				t.Fatal(err)
			}
			defer rooms.Shutdown()
			alice := lobby.Entrant{ID: "SHA256:alice", Name: "alice"}
			bob := lobby.Entrant{ID: "SHA256:bob", Name: "bob"}
			toAlice, toBob := roomSink{make(chan lobby.Event, 64)}, roomSink{make(chan lobby.Event, 64)}
			room, _, err := rooms.Create(alice, toAlice, lobby.RoomConfig{Rules: engine.MustRules("relaxed"), Deal: 42})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := rooms.Join(room, bob, toBob); err != nil {
				t.Fatal(err)
			}
			room.SetReady(bob.ID, true)
			if err := room.Start(alice.ID); err != nil {
				t.Fatal(err)
			}
			clock.Advance(lobby.CountdownTime + time.Minute)
			room.Report(bob.ID, toBob, lobby.Progress{Removed: 28, Moves: 40, Pass: 1, State: lobby.RacerCleared}, nil)
			room.Report(alice.ID, toAlice, lobby.Progress{Removed: 20, Moves: 38, Pass: 3, State: lobby.RacerStuck}, nil)
			select {
			case <-stored:
			case <-time.After(10 * time.Second):
				t.Fatal("the race was not stored")
			}
			if !tt.want {
				// The same op that would tell has come and gone: the
				// rooms show the ratings, and OnRated said nothing.
				eventuallyRated(t, room)
				select {
				case r := <-rated:
					t.Fatalf("OnRated(%q) for a race that rated nobody", r)
				default:
				}
				return
			}
			select {
			case r := <-rated:
				if r != engine.MustRules("relaxed").ID() {
					t.Fatalf("OnRated(%q), want the race's rules %q", r, engine.MustRules("relaxed").ID())
				}
			case <-time.After(10 * time.Second):
				t.Fatal("OnRated was not called for a race that moved ratings")
			}
		})
	}
}

// eventuallyRated waits until the room's results show the ratings.
func eventuallyRated(t *testing.T, room *lobby.Room) {
	t.Helper()
	eventually(t, "the results show the ratings", func() bool {
		for _, p := range room.Snapshot().Results {
			if p.Rating != nil {
				return true
			}
		}
		return false
	})
}
