package cluster_test

import (
	"context"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"pyramid/bus"
	"pyramid/bus/pgbus"
	"pyramid/cluster"
	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/store/storetest"
)

// keepSink is a session's queue that keeps everything.
type keepSink struct {
	mu    sync.Mutex
	posts []lobby.Event
}

func (s *keepSink) Post(ev lobby.Event) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.posts = append(s.posts, ev)
	return true
}

func (s *keepSink) Coalesce(_ string, ev lobby.Event) { s.Post(ev) }

// has reports whether the session was sent an event for which pred holds.
func (s *keepSink) has(pred func(lobby.Event) bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.ContainsFunc(s.posts, pred)
}

// eventually polls cond until it holds, for at most 30 seconds (the
// suite under the race detector on 2 cores slows every step).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond) // polling a condition, not synchronising on time
	}
}

// TestDatabaseRestartMidRace: two servers on one PostgreSQL, a rated
// race with racers on both, and the database out of reach for several
// leases' time: of both servers (a restart of
// PostgreSQL), or of one (a network's fault, which the other takes for
// its death). When it is back, every racer of both servers is seated (in
// the first case nobody is declared gone; in the second the server
// declared gone takes its racers' seats again) and plays on, each server
// sees the other's progress again, and the race is stored void (racers
// could not move meanwhile), not rated.
func TestDatabaseRestartMidRace(t *testing.T) {
	t.Run("both", func(t *testing.T) { testDatabaseOutage(t, true) })
	t.Run("one", func(t *testing.T) { testDatabaseOutage(t, false) })
}

// testDatabaseOutage is TestDatabaseRestartMidRace with the database out
// of reach of server b, and of a too when both.
func testDatabaseOutage(t *testing.T, both bool) {
	base := storetest.PostgresSchemaURL(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	proxies := map[string]*storetest.Proxy{"a": storetest.NewProxy(t, u.Host), "b": storetest.NewProxy(t, u.Host)}

	const ttl = time.Second
	var mu sync.Mutex
	var stored []lobby.RaceResult
	server := func(name string) *cluster.Rooms {
		b, err := pgbus.Open(context.Background(), proxies[name].Via(t, base), pgbus.Options{RetainTopic: map[string]int{cluster.RoomsTopic: cluster.RoomsRetain},
			PingEvery: 200 * time.Millisecond, ReconnectMax: 200 * time.Millisecond})
		if err != nil {
			t.Fatalf("open the bus of %s: %v", name, err)
		}
		t.Cleanup(func() { b.Close() })
		rs, err := cluster.NewRooms(context.Background(), cluster.RoomsConfig{Bus: b, Lease: b, LeaseTTL: ttl, DBNow: b.Now,
			ProgressEvery: 20 * time.Millisecond, RoomsConfig: lobby.RoomsConfig{Instance: name,
				OnRaceEnd: func(res lobby.RaceResult) ([]lobby.RatingChange, error) {
					mu.Lock()
					defer mu.Unlock()
					stored = append(stored, res)
					return nil, nil
				},
				Logf: func(f string, args ...any) { t.Logf(name+": "+f, args...) }}})
		if err != nil {
			t.Fatalf("rooms of %s: %v", name, err)
		}
		t.Cleanup(rs.Kill)
		return rs
	}
	a, b := server("a"), server("b")

	// ann and bob race on a, carol and dave on b.
	sinks := map[string]*keepSink{}
	entrant := func(name string) lobby.Entrant {
		sinks[name] = &keepSink{}
		return lobby.Entrant{ID: "id-" + name, Name: name}
	}
	ann := entrant("ann")
	ha, _, err := a.Create(ann, sinks["ann"], lobby.RoomConfig{Rules: engine.Classic(), Deal: 42, Verdict: engine.Winnable, Rated: true})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	code := ha.Code()
	if _, err := a.Join(ha, entrant("bob"), sinks["bob"]); err != nil {
		t.Fatalf("bob joins on a: %v", err)
	}
	eventually(t, "b sees the room", func() bool { _, ok := b.Room(code); return ok })
	hb, _ := b.Room(code)
	for _, name := range []string{"carol", "dave"} {
		if _, err := b.Join(hb, entrant(name), sinks[name]); err != nil {
			t.Fatalf("%s joins on b: %v", name, err)
		}
	}
	eventually(t, "a sees four racers", func() bool { return len(ha.Snapshot().Members) == 4 })
	for _, r := range []struct {
		h    *lobby.Room
		name string
	}{{ha, "bob"}, {hb, "carol"}, {hb, "dave"}} {
		if err := r.h.SetReady("id-"+r.name, true); err != nil {
			t.Fatalf("%s ready: %v", r.name, err)
		}
	}
	eventually(t, "everybody ready", func() bool {
		for _, m := range ha.Snapshot().Members {
			if !m.Ready && m.ID != "id-ann" {
				return false
			}
		}
		return true
	})
	if err := ha.Start("id-ann"); err != nil {
		t.Fatalf("Start: %v", err)
	}
	racing := func(h *lobby.Room) bool { return h.Snapshot().Phase == lobby.PhaseRacing }
	eventually(t, "the race on both", func() bool { return racing(ha) && racing(hb) })

	// Every racer moves once, and both servers see every move.
	room := map[string]*lobby.Room{"ann": ha, "bob": ha, "carol": hb, "dave": hb}
	move := func(name string, n int) error {
		h := room[name]
		return h.Report("id-"+name, h.SeatSink("id-"+name), lobby.Progress{Removed: n, Moves: n, Pass: 1, State: lobby.RacerPlaying}, nil)
	}
	seen := func(h *lobby.Room, name string, n int) bool {
		m, ok := h.Snapshot().Member("id-" + name)
		return ok && m.Present && m.Removed == n
	}
	allSeen := func(n int) bool {
		for name := range room {
			if !seen(ha, name, n) || !seen(hb, name, n) {
				return false
			}
		}
		return true
	}
	for name := range room {
		if err := move(name, 2); err != nil {
			t.Fatalf("%s moves: %v", name, err)
		}
	}
	eventually(t, "every move on both servers", func() bool { return allSeen(2) })

	// The database goes for four leases' time, for b, and a when both.
	cut := []*storetest.Proxy{proxies["b"]}
	if both {
		cut = append(cut, proxies["a"])
	}
	for _, p := range cut {
		p.Cut()
	}
	time.Sleep(4 * ttl) // the outage itself: the lease's time has to run out, and does so on its own
	if !both {
		// a, which kept the database, takes b for dead.
		eventually(t, "a declares b gone", func() bool { m, _ := ha.Snapshot().Member("id-carol"); return !m.Present })
	}
	for _, p := range cut {
		p.Restore()
	}

	// Back: every racer moves again, on their own server, without
	// coming back; both servers see every move.
	eventually(t, "every racer plays on after the outage", func() bool {
		for name := range room {
			if move(name, 4) != nil {
				return false
			}
		}
		return allSeen(4)
	})
	// And they stay: the servers' leases run out and are taken again a
	// few times, and nobody is declared gone meanwhile.
	until := time.Now().Add(5 * ttl)
	for time.Now().Before(until) {
		for name := range room {
			for _, h := range []*lobby.Room{ha, hb} {
				if m, _ := h.Snapshot().Member("id-" + name); !m.Present {
					t.Fatalf("%s is away after the outage: %+v", name, m)
				}
			}
		}
		time.Sleep(10 * time.Millisecond) // polling a condition, not synchronising on time
	}
	for name := range room {
		if err := move(name, 6); err != nil {
			t.Fatalf("%s moves after the outage: %v", name, err)
		}
	}
	eventually(t, "every move on both servers", func() bool { return allSeen(6) })

	// The race ends: stored, void.
	for name, h := range room {
		if err := h.Report("id-"+name, h.SeatSink("id-"+name), lobby.Progress{Removed: 6, Moves: 9, Pass: 3, State: lobby.RacerStuck}, nil); err != nil {
			t.Fatalf("%s is stuck: %v", name, err)
		}
	}
	eventually(t, "the race stored", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(stored) > 0
	})
	mu.Lock()
	res := stored[0]
	mu.Unlock()
	if !res.Void {
		t.Errorf("the race is stored counting (void %v): %+v", res.Void, res.Placings)
	}
	for _, p := range res.Placings {
		if p.State == lobby.RacerLeft {
			t.Errorf("%s counts as left", p.Name)
		}
	}
}

// TestDeclaredGoneThenDies: a server declared gone while it runs takes
// its racer's seat again; when it then dies before it takes its own
// lease again, the holder declares it gone again a lease's time after
// its racer came back (the holder takes a dead server's lease for a
// moment only, so that a server that runs can take it back).
func TestDeclaredGoneThenDies(t *testing.T) {
	clock := lobby.NewFakeClock(time.Date(2026, 12, 5, 18, 0, 0, 0, time.UTC))
	b := bus.NewMemory(bus.MemoryOptions{Now: clock.Now, Lossless: true})
	t.Cleanup(func() { b.Close() })
	lease := cluster.NewMemoryLease(clock)
	const ttl = time.Minute
	server := func(name string) *cluster.Rooms {
		rs, err := cluster.NewRooms(context.Background(), cluster.RoomsConfig{Bus: b, Lease: lease, LeaseTTL: ttl,
			RoomsConfig: lobby.RoomsConfig{Instance: name, Clock: clock, Logf: t.Logf}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rs.Kill)
		return rs
	}
	sa, sb := server("a"), server("b")
	ann := &keepSink{}
	ha, _, err := sa.Create(lobby.Entrant{ID: "id-ann", Name: "ann"}, ann,
		lobby.RoomConfig{Rules: engine.Classic(), Deal: 42, Verdict: engine.Winnable, TimeLimit: lobby.MaxTimeLimit})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "b sees the room", func() bool { _, ok := sb.Room(ha.Code()); return ok })
	hb, _ := sb.Room(ha.Code())
	bob := &keepSink{}
	if _, err := sb.Join(hb, lobby.Entrant{ID: "id-bob", Name: "bob"}, bob); err != nil {
		t.Fatal(err)
	}
	if err := hb.SetReady("id-bob", true); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a sees bob ready", func() bool { m, _ := ha.Snapshot().Member("id-bob"); return m.Ready })
	if err := ha.Start("id-ann"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the countdown on b", func() bool { return hb.Snapshot().Phase == lobby.PhaseCountdown })
	clock.Advance(lobby.CountdownTime)
	eventually(t, "the race on both", func() bool {
		return ha.Snapshot().Phase == lobby.PhaseRacing && hb.Snapshot().Phase == lobby.PhaseRacing
	})
	bobOnA := func() lobby.Racer { m, _ := ha.Snapshot().Member("id-bob"); return m }

	// b's lease runs out (b was out of reach): a declares it gone, b
	// reads it, and bob takes his seat again.
	lease.Expire(cluster.InstanceLease("b"))
	sa.TryLease()
	eventually(t, "b declared gone", func() bool {
		return ann.has(func(ev lobby.Event) bool {
			rc, ok := ev.(lobby.RoomChanged)
			if !ok {
				return false
			}
			m, ok := rc.Snapshot.Member("id-bob")
			return ok && m.State == lobby.RacerAway
		})
	})
	eventually(t, "bob back on b, seen on a", func() bool { return bobOnA().Present })
	// b dies before it takes its lease again: a waits a lease's time
	// from bob's return for it, then declares it gone again.
	sb.Kill()
	sa.TryLease()
	if !bobOnA().Present {
		t.Fatal("bob away at once: b had no time to take its lease again")
	}
	clock.Advance(ttl)
	sa.TryLease()
	eventually(t, "b gone again", func() bool { return bobOnA().State == lobby.RacerAway })
}
