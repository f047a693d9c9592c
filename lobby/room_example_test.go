package lobby_test

import (
	"fmt"
	"time"

	"pyramid/engine"
	"pyramid/lobby"
)

// sink is a session's queue as the room sees it; a real one is bounded and
// drained by the session.
type sink struct{ name string }

func (s sink) Post(ev lobby.Event) bool {
	switch ev := ev.(type) {
	case lobby.CountdownStarted:
		fmt.Printf("%s: race starts at %s\n", s.name, ev.StartsAt.Format(time.TimeOnly))
	case lobby.RaceEnded:
		fmt.Printf("%s: race over, %s placed %d\n", s.name, ev.Results[0].Name, ev.Results[0].Place)
	case lobby.ChatLine:
		fmt.Printf("%s: <%s> %s\n", s.name, ev.From, ev.Text)
	}
	return true
}

func (s sink) Coalesce(key string, ev lobby.Event) {}

// Example drives one race the way two sessions would.
func Example() {
	clock := lobby.NewFakeClock(time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC))
	rooms := lobby.NewRooms(lobby.RoomsConfig{Clock: clock, OnRaceEnd: func(res lobby.RaceResult) {
		fmt.Printf("store: %d placings of deal %d\n", len(res.Placings), res.Deal)
	}})
	alice := lobby.Entrant{ID: "SHA256:alice", Name: "alice"}
	bob := lobby.Entrant{ID: "SHA256:bob", Name: "bob"}

	room, _, _ := rooms.Create(alice, sink{"alice"}, lobby.RoomConfig{Rules: engine.Classic(), Deal: 42})
	found, _ := rooms.Find(bob.ID, room.Code()) // the code bob typed
	found.Join(bob, sink{"bob"})
	found.SetReady(bob.ID, true)
	found.Say(bob.ID, "gl\x1b[5m hf")
	room.Start(alice.ID)
	clock.Advance(lobby.CountdownTime)

	clock.Advance(90 * time.Second)
	room.Report(bob.ID, sink{"bob"}, lobby.Progress{Removed: 28, Moves: 40, Pass: 1, State: lobby.RacerCleared})
	room.Report(alice.ID, sink{"alice"}, lobby.Progress{Removed: 20, Moves: 38, Pass: 3, State: lobby.RacerStuck})
	for _, p := range room.Snapshot().Results {
		fmt.Printf("%d. %s %v %d/28 in %v\n", p.Place, p.Name, p.State, p.Removed, p.Time)
	}
	// Output:
	// alice: <bob> gl\x1b[5m hf
	// bob: <bob> gl\x1b[5m hf
	// alice: race starts at 20:00:03
	// bob: race starts at 20:00:03
	// alice: race over, bob placed 1
	// bob: race over, bob placed 1
	// store: 2 placings of deal 42
	// 1. bob cleared 28/28 in 1m30s
	// 2. alice stuck 20/28 in 1m30s
}
