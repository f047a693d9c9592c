package arcade

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/charmbracelet/log"

	"pyramid/bus"
	"pyramid/cluster"
	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/race"
	"pyramid/store"
	"pyramid/tui"
)

// TestClusterRace: two arcades on one bus and one store, as two servers
// on one PostgreSQL: a room made on one is joined on the other; the first
// closes mid-race (its racer's session with it); she comes back on the
// second to her stored game, the race ends and is stored once.
func TestClusterRace(t *testing.T) {
	f := newFixture(t)
	one, two := clusterPair(t, f)
	ctx := context.Background()
	rec := winningRecord(t)
	ann, bob := clusterRacer(t, f, one, "ann"), clusterRacer(t, f, two, "bob")
	code, r2 := clusterRoom(t, one, two, ann, bob, rec.Deal)
	half := len(rec.Moves) / 2
	for i := range half {
		r := rec
		r.Moves = rec.Moves[:i+1]
		if note, err := ann.Play(ctx, code, 1, i+1, r); err != nil || note != "" && note != race.FastNote { // moves at a machine's pace are faster than play
			t.Fatalf("ann's move %d: note %q, err %v", i+1, note, err)
		}
	}
	waitFor(t, "two sees ann's moves", func() bool { m, _ := r2.Snapshot().Member(ann.me.ID); return m.Moves == half && m.GameID > 0 })

	// one goes; ann comes back on two, to her game.
	one.Close()
	waitFor(t, "ann left, seen on two", func() bool { m, _ := r2.Snapshot().Member(ann.me.ID); return !m.Present })
	ann2 := clusterRacer(t, f, two, "ann")
	back, err := ann2.Join(ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	if back.Resume == nil || len(back.Resume.Moves) != half {
		t.Fatalf("ann back on two: resume %+v, want her %d moves", back.Resume, half)
	}
	waitFor(t, "two took the lease over", two.rooms.Holder)
	for i := half; i < len(rec.Moves); i++ {
		r := rec
		r.Moves = rec.Moves[:i+1]
		if note, err := ann2.Play(ctx, code, 1, i+1, r); err != nil || note != "" && note != race.FastNote {
			t.Fatalf("ann's move %d on two: note %q, err %v", i+1, note, err)
		}
	}
	// bob plays too (a race nobody else moved in counts for nobody),
	// then leaves.
	playLine(t, bob, code, 1, removeOne(t, engine.Classic(), rec.Deal))
	if err := bob.Leave(code); err != nil {
		t.Fatalf("%v: %+v", err, r2.Snapshot())
	}
	waitPhase(t, r2, lobby.PhaseResults)
	var recs []store.RaceRecord
	waitFor(t, "the race stored", func() bool { recs, _ = f.st.RaceRecords(ctx, ann.me.ID); return len(recs) == 1 })
	if recs[0].Unrated != 1 || recs[0].Races != 0 || recs[0].Rating.Races != 0 {
		// The room's deal was chosen: the flag went with the room to the
		// server that stored the race.
		t.Fatalf("ann's race records: %+v, want one unrated race", recs)
	}
	if res := r2.Snapshot().Results; len(res) != 2 || res[0].ID != ann.me.ID || !res[0].Cleared || res[0].GameID == 0 {
		t.Fatalf("results %+v, want ann first with her stored game", res)
	}
}

// clusterPair is two arcades on one bus, one store and one lease, as two
// servers on one PostgreSQL, closed when the test ends: one holds the
// lease.
func clusterPair(t *testing.T, f *fixture) (one, two *App) {
	t.Helper()
	b := bus.NewMemory(bus.MemoryOptions{})
	t.Cleanup(func() { b.Close() })
	lease := cluster.NewMemoryLease(nil)
	newApp := func(instance string) *App {
		a := New(Config{Store: f.st, Logger: log.New(&bytes.Buffer{}), Bus: b, Instance: instance, Lease: lease,
			LeaseTTL: 300 * time.Millisecond, Cluster: cluster.PresenceConfig{Heartbeat: 50 * time.Millisecond}})
		t.Cleanup(a.Close)
		return a
	}
	one = newApp("one")
	waitFor(t, "one holds the lease", one.rooms.Holder)
	two = newApp("two")
	if two.rooms.Holder() {
		t.Fatal("two holds a lease: its rooms are its own, not the cluster's")
	}
	return one, two
}

// clusterRacer is a session of the player name on a, its inbox read as
// the tui reads it, until the test ends.
func clusterRacer(t *testing.T, f *fixture, a *App, name string) *races {
	t.Helper()
	sp, _, err := f.st.GetOrCreatePlayer(context.Background(), "SHA256:"+name, name)
	if err != nil {
		t.Fatal(err)
	}
	sess := a.lobby.Join(lobby.Player{ID: sp.ID, Name: name})
	w := a.newWriter(sess)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	rs := a.newRaces(ctx, tui.Player{ID: sp.ID, Name: name}, sess, w)
	readInbox(ctx, inbox{q: sess.Queue()})
	return rs
}

// readInbox reads a session's inbox as the tui does, until ctx ends.
func readInbox(ctx context.Context, in inbox) {
	go func() {
		for {
			if _, err := in.Next(ctx); err != nil {
				return
			}
		}
	}()
}

// clusterRoom has host on one open a room of Classic's deal, guest on two
// join it, and the host start it; it returns the room's code and the
// room on two once both servers see the race on.
func clusterRoom(t *testing.T, one, two *App, host, guest *races, deal uint64) (string, *lobby.Room) {
	t.Helper()
	ctx := context.Background()
	seat, err := host.Create(ctx, tui.RoomOptions{Rules: engine.Classic(), Deal: deal, HasDeal: true})
	if err != nil {
		t.Fatal(err)
	}
	code := seat.Snapshot.Code
	waitFor(t, "two knows the room", func() bool { _, ok := two.rooms.Room(code); return ok })
	if _, err := guest.Join(ctx, code); err != nil {
		t.Fatal(err)
	}
	readyAll(t, code, guest)
	if err := host.Start(code); err != nil {
		t.Fatal(err)
	}
	r1, _ := one.rooms.Room(code)
	r2, _ := two.rooms.Room(code)
	waitPhase(t, r1, lobby.PhaseRacing)
	waitPhase(t, r2, lobby.PhaseRacing)
	return code, r2
}

// waitFor polls cond for up to ten seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); { // generous: the whole suite under the race detector
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond) // polling, not synchronising
	}
}

// TestClusterRaceGamesLetGo: on a cluster the server of a racer who never
// moved finishes the empty game it made for them at the countdown when
// the round is over (the lease holder, which stores the race, knows only
// its own racers' games), and lets go of the round's games.
func TestClusterRaceGamesLetGo(t *testing.T) {
	f := newFixture(t)
	one, two := clusterPair(t, f)
	ctx := context.Background()
	rec := winningRecord(t)
	ann, bob := clusterRacer(t, f, one, "ann"), clusterRacer(t, f, two, "bob")
	code, _ := clusterRoom(t, one, two, ann, bob, rec.Deal)
	var bobGame int64
	waitFor(t, "bob's game made at the countdown, on two", func() bool {
		bobGame = two.race.Stored(code, 1, bob.me.ID)
		return bobGame > 0
	})
	playLine(t, ann, code, 1, engine.Record{Rules: rec.Rules, Deal: rec.Deal, Moves: rec.Moves[:2]})
	// The room is closed mid-race (an admin): bob never moved.
	if err := one.rooms.Close(code, "testing"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "two let go of bob's game", func() bool { return two.race.Stored(code, 1, bob.me.ID) == 0 })
	waitFor(t, "bob's empty game finished", func() bool {
		g, err := f.st.Game(ctx, bobGame)
		return err == nil && g.Status != store.StatusPlaying
	})
}

// TestClusterRaceGameNotContinue: played through HAProxy, a racer whose
// server was killed mid-race came back on the other and found her race
// game under the menu's cursor as "Continue  Classic · deal N · 10
// moves" beside "Back to race CODE": Continue would play the race's game
// at the solo table, out of the race. The game her seat holds is the
// race's on every server of the cluster, not only on the one she raced
// on.
func TestClusterRaceGameNotContinue(t *testing.T) {
	f := newFixture(t)
	b := bus.NewMemory(bus.MemoryOptions{})
	defer b.Close()
	lease := cluster.NewMemoryLease(nil)
	// Nothing here waits for a lease to run out: a long one keeps a
	// loaded machine (a renewal late by more than a short time to live)
	// from having two take the races over and reap one as dead, whose
	// sessions then left the room under ann's move ("you are not in this
	// room", 2 runs in 30 under load with 300 ms).
	newApp := func(instance string) *App {
		a := New(Config{Store: f.st, Logger: log.New(&bytes.Buffer{}), Bus: b, Instance: instance, Lease: lease,
			LeaseTTL: time.Minute, Cluster: cluster.PresenceConfig{Heartbeat: 50 * time.Millisecond}})
		t.Cleanup(a.Close)
		return a
	}
	one := newApp("one")
	waitFor(t, "one holds the lease", one.rooms.Holder)
	two := newApp("two")
	type racer struct {
		rs *races
		g  *sessionGames
	}
	seat := func(a *App, name string) racer {
		sp, _, err := f.st.GetOrCreatePlayer(context.Background(), "SHA256:"+name, name)
		if err != nil {
			t.Fatal(err)
		}
		sess := a.lobby.Join(lobby.Player{ID: sp.ID, Name: name})
		g := a.sessionGames(sp.ID, a.newWriter(sess))
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		return racer{a.newRaces(ctx, tui.Player{ID: sp.ID, Name: name}, sess, g.w), g}
	}
	ctx := context.Background()
	rec := winningRecord(t)
	ann, bob := seat(one, "ann"), seat(two, "bob")
	s, err := ann.rs.Create(ctx, tui.RoomOptions{Rules: engine.Classic(), Deal: rec.Deal, HasDeal: true})
	if err != nil {
		t.Fatal(err)
	}
	code := s.Snapshot.Code
	waitFor(t, "two knows the room", func() bool { _, ok := two.rooms.Room(code); return ok })
	if _, err := bob.rs.Join(ctx, code); err != nil {
		t.Fatal(err)
	}
	readyAll(t, code, bob.rs)
	if err := ann.rs.Start(code); err != nil {
		t.Fatal(err)
	}
	// Each server starts the race on its own timer at the start moment:
	// ann plays on one, which under load may start it after two did.
	r1, _ := one.rooms.Room(code)
	r2, _ := two.rooms.Room(code)
	waitPhase(t, r1, lobby.PhaseRacing)
	waitPhase(t, r2, lobby.PhaseRacing)
	r := rec
	r.Moves = rec.Moves[:2]
	if _, err := ann.rs.Play(ctx, code, 1, 1, r); err != nil {
		t.Fatalf("ann's first move, on one: %v", err)
	}
	if list, err := ann.g.Unfinished(ctx, ann.rs.me.ID); err != nil || len(list) != 0 {
		t.Fatalf("on her own server ann's Continue lists %+v (%v), want nothing", list, err)
	}
	waitFor(t, "two sees ann's stored game", func() bool { m, _ := r2.Snapshot().Member(ann.rs.me.ID); return m.GameID > 0 })
	one.Close()
	ann2 := seat(two, "ann")
	list, err := ann2.g.Unfinished(ctx, ann2.rs.me.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, sg := range list {
		t.Errorf("back on two, ann's Continue lists her race game %s (%s deal %d, %d moves)", sg.ID, sg.Record.Rules, sg.Record.Deal, len(sg.Record.Moves))
	}
}
