package cluster_test

import (
	"context"
	"fmt"
	"time"

	"pyramid/cluster"
	"pyramid/engine"
	"pyramid/lobby"
)

// sink is a session's queue as the room sees it; a real one is bounded and
// drained by the session.
type sink struct{ events chan lobby.Event }

func (s sink) Post(ev lobby.Event) bool {
	select {
	case s.events <- ev:
		return true
	default:
		return false
	}
}

func (s sink) Coalesce(key string, ev lobby.Event) {}

// next is the next event of type T a session was posted, the others
// skipped.
func next[T lobby.Event](s sink) T {
	for {
		if ev, ok := (<-s.events).(T); ok {
			return ev
		}
	}
}

// Example drives one race the way two sessions of a server alone would:
// its rooms run over a bus and a lease of its own, in memory.
func Example() {
	clock := lobby.NewFakeClock(time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC))
	stored := make(chan lobby.RaceResult, 1)
	rooms, err := cluster.NewRooms(context.Background(), cluster.RoomsConfig{RoomsConfig: lobby.RoomsConfig{Instance: "one", Clock: clock,
		OnRaceEnd: func(res lobby.RaceResult) ([]lobby.RatingChange, error) { stored <- res; return nil, nil }}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rooms.Shutdown()
	alice := lobby.Entrant{ID: "SHA256:alice", Name: "alice"}
	bob := lobby.Entrant{ID: "SHA256:bob", Name: "bob"}
	toAlice, toBob := sink{make(chan lobby.Event, 16)}, sink{make(chan lobby.Event, 16)}

	room, _, _ := rooms.Create(alice, toAlice, lobby.RoomConfig{Rules: engine.Classic(), Deal: 42})
	found, _ := rooms.Find(room.Code()) // the code bob typed
	rooms.Join(found, bob, toBob)
	found.SetReady(bob.ID, true)
	found.Say(bob.ID, "gl\x1b[5m hf")
	fmt.Println("alice hears:", next[lobby.ChatLine](toAlice).Text)
	room.Start(alice.ID)
	fmt.Println("bob is told the race starts at", next[lobby.CountdownStarted](toBob).StartsAt.Format(time.TimeOnly))
	clock.Advance(lobby.CountdownTime)

	clock.Advance(90 * time.Second)
	room.Report(bob.ID, toBob, lobby.Progress{Removed: 28, Moves: 40, Pass: 1, State: lobby.RacerCleared}, nil)
	room.Report(alice.ID, toAlice, lobby.Progress{Removed: 20, Moves: 38, Pass: 3, State: lobby.RacerStuck}, nil)
	res := <-stored
	fmt.Printf("store: %d placings of deal %d\n", len(res.Placings), res.Deal)
	for _, p := range res.Placings {
		fmt.Printf("%d. %s %v %d/28 in %v\n", p.Place, p.Name, p.State, p.Removed, p.Time)
	}
	// Output:
	// alice hears: gl\x1b[5m hf
	// bob is told the race starts at 20:00:03
	// store: 2 placings of deal 42
	// 1. bob cleared 28/28 in 1m30s
	// 2. alice stuck 20/28 in 1m30s
}
