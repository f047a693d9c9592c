package cluster_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"pyramid/cluster"
	"pyramid/engine"
	"pyramid/lobby"
)

// discard is a session's sink that takes every event and keeps none; n
// makes each one a sink of its own.
type discard struct{ n int }

func (discard) Post(lobby.Event) bool               { return true }
func (discard) Coalesce(key string, ev lobby.Event) {}

// BenchmarkReport is one racer's report in a full room of 8 racers and 50
// spectators on a server alone: the fan-out each move costs.
func BenchmarkReport(b *testing.B) {
	clock := lobby.NewFakeClock(time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC))
	rs, err := cluster.NewRooms(context.Background(), cluster.RoomsConfig{LeaseTTL: time.Hour,
		RoomsConfig: lobby.RoomsConfig{Instance: "one", Clock: clock}})
	if err != nil {
		b.Fatal(err)
	}
	defer rs.Kill()
	sinks := make([]*discard, lobby.MaxRacers)
	player := func(i int) lobby.Entrant { return lobby.Entrant{ID: fmt.Sprint("id-p", i), Name: fmt.Sprint("p", i)} }
	for i := range sinks {
		sinks[i] = &discard{n: i}
	}
	r, _, err := rs.Create(player(0), sinks[0], lobby.RoomConfig{Rules: engine.Classic(), Deal: 42, Verdict: engine.Winnable})
	if err != nil {
		b.Fatal(err)
	}
	for i := 1; i < lobby.MaxRacers; i++ {
		if _, err := rs.Join(r, player(i), sinks[i]); err != nil {
			b.Fatal(err)
		}
	}
	for i := range lobby.MaxSpectators {
		if _, err := r.Watch(fmt.Sprint("v", i), &discard{n: lobby.MaxRacers + i}); err != nil {
			b.Fatal(err)
		}
	}
	if err := r.Start("id-p0"); err != nil {
		b.Fatal(err)
	}
	clock.Advance(lobby.CountdownTime)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := r.Report("id-p1", sinks[1], lobby.Progress{Removed: i % 20, Moves: i, State: lobby.RacerPlaying}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
