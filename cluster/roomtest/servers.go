package roomtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"pyramid/cluster"
	"pyramid/lobby"
	"slices"
	"testing"
	"time"
)

// testRace: a room made on one server is joined from another, the
// race starts on both at the moment of the cluster's clock, each sees the
// other's progress, and the lease holder ends it and stores it once.
func testRace(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	if !a.Holder() || b.Holder() {
		t.Fatalf("holders: a %v, b %v; want a only", a.Holder(), b.Holder())
	}
	code, ann, bob := sharedRace(t, e, a, b)
	ha, _ := a.Room(code)
	hb, _ := b.Room(code)
	wantErr(t, "ann reports on b (not her server)", hb.Report("id-ann", held(hb, "id-ann"), lobby.Progress{Removed: 2, Moves: 1, Pass: 1, State: lobby.RacerPlaying}, nil), lobby.ErrNotMember)
	e.clock.Advance(10 * time.Second)
	wantErr(t, "bob reports", hb.Report("id-bob", held(hb, "id-bob"), lobby.Progress{Removed: 4, Moves: 3, Pass: 1, State: lobby.RacerPlaying}, nil), nil)
	eventually(t, "ann's server shows bob's progress", func() bool {
		m, _ := ha.Snapshot().Member("id-bob")
		return m.Removed == 4 && m.LastRemoval == 10*time.Second
	})
	sameRound(t, "b, racing", hb.Round(), hb.Snapshot())
	wantErr(t, "ann's chat", ha.Say("id-ann", "hello bob"), nil)
	eventually(t, "bob hears ann", func() bool {
		return bob.has(func(ev lobby.Event) bool { cl, ok := ev.(lobby.ChatLine); return ok && cl.Text == "hello bob" })
	})
	e.clock.Advance(10 * time.Second)
	wantErr(t, "ann clears", ha.Report("id-ann", held(ha, "id-ann"), lobby.Progress{Removed: 28, Moves: 40, Pass: 1, State: lobby.RacerCleared}, nil), nil)
	wantErr(t, "bob is stuck", hb.Report("id-bob", held(hb, "id-bob"), lobby.Progress{Removed: 4, Moves: 30, Pass: 3, State: lobby.RacerStuck}, nil), nil)
	eventually(t, "both see the results", func() bool { return ann.has(isEnded) && bob.has(isEnded) })
	eventually(t, "the holder stored the race", func() bool { return len(e.results("a")) == 1 })
	res := e.results("a")[0]
	if got := placingTimes(res.Placings); got != "1:ann:cleared:28:20s 2:bob:stuck:4:10s" {
		t.Fatalf("placings %q", got)
	}
	if len(e.results("b")) != 0 {
		t.Fatalf("b stored %d races, want none (not the holder)", len(e.results("b")))
	}
	if sb := hb.Snapshot(); sb.Phase != lobby.PhaseResults || placings(sb.Results) != placings(res.Placings) {
		t.Fatalf("b's room: %v %q", sb.Phase, placings(sb.Results))
	}
	sameRound(t, "a, after the race", ha.Round(), ha.Snapshot())
	sameRound(t, "b, after the race", hb.Round(), hb.Snapshot())
	if got := hb.Round(); got.Phase != lobby.PhaseResults || got.Round != 1 || got.StartsAt.IsZero() {
		t.Fatalf("b's Round() after the race = %+v", got)
	}
	gone := closedRoom(t, b)
	sameRound(t, "no such room", gone.Round(), gone.Snapshot())
}

// testOneRoomAtATime: a player who joins a room on one server leaves
// the room they were in on another.
func testOneRoomAtATime(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	h1, _, err := a.Create(pl("ann"), newSink(), classic())
	wantErr(t, "Create", err, nil)
	bobA := newSink()
	_, err = a.Join(h1, pl("bob"), bobA)
	wantErr(t, "bob joins on a", err, nil)
	h2, _, err := b.Create(pl("carol"), newSink(), classic())
	wantErr(t, "carol's room on b", err, nil)
	_, err = b.Join(h2, pl("bob"), newSink())
	wantErr(t, "bob joins carol's on b", err, nil)
	eventually(t, "bob out of ann's room on a", func() bool {
		_, in := h1.Snapshot().Member("id-bob")
		return !in && bobA.has(func(ev lobby.Event) bool { _, ok := ev.(lobby.SeatTakenOver); return ok })
	})
	if _, _, err := b.Create(pl("ann"), newSink(), classic()); !errors.Is(err, lobby.ErrAlreadyHosting) {
		t.Fatalf("ann opens a second room on b: %v, want ErrAlreadyHosting", err)
	}
	if got := len(b.Public()) + len(a.Public()); got != 0 {
		t.Fatalf("%d public rooms, want none", got)
	}
}

// testLeaseTakeover: the holder dies mid-race without a word; once
// its lease runs out another server takes it, the dead server's racer
// counts as left until she comes back (to the survivor), and the race ends
// and is stored by the new holder.
func testLeaseTakeover(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	code, _, bob := sharedRace(t, e, a, b)
	ha, _ := a.Room(code)
	wantErr(t, "ann removes 6", ha.Report("id-ann", held(ha, "id-ann"), lobby.Progress{Removed: 6, Moves: 5, Pass: 1, State: lobby.RacerPlaying, GameID: 77}, nil), nil)
	hb, _ := b.Room(code)
	eventually(t, "b sees ann's progress", func() bool { m, _ := hb.Snapshot().Member("id-ann"); return m.Removed == 6 })
	a.Kill()
	e.lease.Expire(cluster.RacesLease)
	b.TryLease()
	if !b.Holder() {
		t.Fatal("b did not take the lease")
	}
	eventually(t, "ann away, seen on b", func() bool { m, _ := hb.Snapshot().Member("id-ann"); return !m.Present && m.State == lobby.RacerAway })
	// ann comes back, on b: her seat and progress wait for her.
	ann2 := newSink()
	snap, err := b.Join(hb, pl("ann"), ann2)
	wantErr(t, "ann back on b", err, nil)
	if m, _ := snap.Member("id-ann"); !m.Present || m.Removed != 6 || m.GameID != 77 || snap.Phase != lobby.PhaseRacing {
		t.Fatalf("ann back: %+v in %v", m, snap.Phase)
	}
	e.clock.Advance(5 * time.Second)
	wantErr(t, "ann clears on b", hb.Report("id-ann", held(hb, "id-ann"), lobby.Progress{Removed: 28, Moves: 30, Pass: 1, State: lobby.RacerCleared, GameID: 77}, nil), nil)
	wantErr(t, "bob stuck", hb.Report("id-bob", held(hb, "id-bob"), lobby.Progress{Removed: 1, Moves: 9, Pass: 3, State: lobby.RacerStuck}, nil), nil)
	eventually(t, "the race ends", func() bool { return bob.has(isEnded) && ann2.has(isEnded) })
	eventually(t, "b stored it", func() bool { return len(e.results("b")) == 1 })
	if got := placingTimes(e.results("b")[0].Placings); got != "1:ann:cleared:28:5s 2:bob:stuck:1:5s" {
		t.Fatalf("placings %q", got)
	}
	if res := e.results("b")[0]; res.Void {
		t.Error("a race whose racer came back within the grace is void")
	}
}

// testServerDies: a server that is not the holder dies mid-race;
// once its own lease runs out the holder tells the others, and its racer
// is away: the race waits for them for the seat's grace, then counts them
// as left and ends when the others are done, void (the server failed
// them: nobody's rating may move on it).
func testServerDies(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	code, ann, _ := sharedRace(t, e, a, b)
	ha, _ := a.Room(code)
	hb, _ := b.Room(code)
	wantErr(t, "bob removes 2", hb.Report("id-bob", held(hb, "id-bob"), lobby.Progress{Removed: 2, Moves: 1, Pass: 1, State: lobby.RacerPlaying}, nil), nil)
	eventually(t, "a sees bob's progress", func() bool { m, _ := ha.Snapshot().Member("id-bob"); return m.Removed == 2 })
	b.Kill()
	a.TryLease()
	if m, _ := ha.Snapshot().Member("id-bob"); !m.Present {
		t.Fatal("bob gone while b's lease runs")
	}
	e.lease.Expire(cluster.InstanceLease("b"))
	a.TryLease()
	eventually(t, "bob away", func() bool { m, _ := ha.Snapshot().Member("id-bob"); return !m.Present && m.State == lobby.RacerAway })
	e.clock.Advance(3 * time.Second)
	wantErr(t, "ann stuck", ha.Report("id-ann", held(ha, "id-ann"), lobby.Progress{Removed: 1, Moves: 9, Pass: 3, State: lobby.RacerStuck}, nil), nil)
	a.TryLease()
	if ann.has(isEnded) || phaseOf(a, code) != lobby.PhaseRacing {
		t.Fatal("the race ended while bob's seat waits for him")
	}
	e.clock.Advance(lobby.DefaultSeatGrace)
	a.TryLease() // the holder's duties: bob's grace ran out
	eventually(t, "the race ends", func() bool { return ann.has(isEnded) })
	eventually(t, "a stored it", func() bool { return len(e.results("a")) == 1 })
	res := e.results("a")[0]
	if got := placingTimes(res.Placings); got != "1:ann:stuck:1:3s 2:bob:left:2:0s" {
		t.Fatalf("placings %q", got)
	}
	if !res.Void {
		t.Error("the race is not void")
	}
}

// testRacersServerDies: the server of every racer of a room dies
// mid-race (the holder is another): its racers are away, the race waits
// for them for the seat's grace, and a racer who comes back to another
// server within it plays on from their seat; once it ran out the others
// count as left and the race, which ended only because their server did,
// is void.
func testRacersServerDies(t *testing.T, e *roomsEnv) {
	holder := e.server("holder")
	a := e.server("a")
	ann, bob := newSink(), newSink()
	h, _, err := a.Create(pl("ann"), ann, classic())
	wantErr(t, "Create", err, nil)
	code := h.Code()
	_, err = a.Join(h, pl("bob"), bob)
	wantErr(t, "bob joins on a", err, nil)
	wantErr(t, "Start", startReady(h, "id-ann"), nil)
	eventually(t, "the holder counts down", func() bool { return phaseOf(holder, code) == lobby.PhaseCountdown })
	e.clock.Advance(lobby.CountdownTime)
	hh, _ := holder.Room(code)
	eventually(t, "the holder sees the race", func() bool { return phaseOf(holder, code) == lobby.PhaseRacing })
	wantErr(t, "bob removes 2", h.Report("id-bob", bob, lobby.Progress{Removed: 2, Moves: 1, Pass: 1, State: lobby.RacerPlaying}, nil), nil)
	eventually(t, "the holder sees bob's progress", func() bool { m, _ := hh.Snapshot().Member("id-bob"); return m.Removed == 2 })

	a.Kill()
	e.lease.Expire(cluster.InstanceLease("a"))
	holder.TryLease()
	eventually(t, "both away", func() bool {
		s := hh.Snapshot()
		ma, _ := s.Member("id-ann")
		mb, _ := s.Member("id-bob")
		return ma.State == lobby.RacerAway && mb.State == lobby.RacerAway
	})
	e.clock.Advance(lobby.DefaultSeatGrace / 2)
	holder.TryLease()
	if phaseOf(holder, code) != lobby.PhaseRacing {
		t.Fatal("the race ended within the seats' grace")
	}
	// bob comes back, to the holder, and plays on from his seat.
	bob2 := newSink()
	snap, err := holder.Join(hh, pl("bob"), bob2)
	wantErr(t, "bob back", err, nil)
	if m, _ := snap.Member("id-bob"); !m.Present || m.State != lobby.RacerPlaying || m.Removed != 2 {
		t.Fatalf("bob back: %+v", m)
	}
	wantErr(t, "bob stuck", hh.Report("id-bob", bob2, lobby.Progress{Removed: 3, Moves: 4, Pass: 3, State: lobby.RacerStuck}, nil), nil)
	if phaseOf(holder, code) != lobby.PhaseRacing {
		t.Fatal("the race ended while ann's seat waits for her")
	}
	e.clock.Advance(lobby.DefaultSeatGrace / 2)
	holder.TryLease()
	eventually(t, "the race ends once ann's grace ran out", func() bool { return bob2.has(isEnded) })
	eventually(t, "the holder stored it", func() bool { return len(e.results("holder")) == 1 })
	res := e.results("holder")[0]
	if got := placingTimes(res.Placings); got != "1:bob:stuck:3:30s 2:ann:left:0:0s" {
		t.Errorf("placings %q", got)
	}
	if !res.Void {
		t.Error("the race is not void")
	}

	// The same, with nobody coming back: the race waits out the grace,
	// then ends void.
	carl, dora := newSink(), newSink()
	b := e.server("b")
	hc, _, err := b.Create(pl("carl"), carl, classic())
	wantErr(t, "Create on b", err, nil)
	_, err = b.Join(hc, pl("dora"), dora)
	wantErr(t, "dora joins on b", err, nil)
	wantErr(t, "Start on b", startReady(hc, "id-carl"), nil)
	eventually(t, "the holder counts down", func() bool { return phaseOf(holder, hc.Code()) == lobby.PhaseCountdown })
	e.clock.Advance(lobby.CountdownTime)
	eventually(t, "the holder sees the race on b", func() bool { return phaseOf(holder, hc.Code()) == lobby.PhaseRacing })
	b.Kill()
	e.lease.Expire(cluster.InstanceLease("b"))
	holder.TryLease()
	hh2, _ := holder.Room(hc.Code())
	eventually(t, "carl and dora away", func() bool { m, _ := hh2.Snapshot().Member("id-dora"); return m.State == lobby.RacerAway })
	e.clock.Advance(lobby.DefaultSeatGrace)
	holder.TryLease()
	eventually(t, "the race on b ends", func() bool { return len(e.results("holder")) == 2 })
	if res := e.results("holder")[1]; !res.Void || len(res.Placings) != 2 {
		t.Errorf("race of a dead server's racers: %+v, want void", res)
	}
}

// testDropsRefusingSession: a session that stops reading leaves its
// room RoomDropAfter later, as in a Room: its racer counts as left.
func testDropsRefusingSession(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	code, ann, _ := sharedRace(t, e, a, b)
	hb, _ := b.Room(code)
	ann.setRefuse(true)
	wantErr(t, "bob says", hb.Say("id-bob", "still there?"), nil)
	eventually(t, "ann refused the line", func() bool { ann.mu.Lock(); defer ann.mu.Unlock(); return ann.refused > 0 })
	// The fold arms the drop's timer after her sink refused, under a's
	// lock: once a's fold is done with the line, it is armed (Advance
	// before that missed it, about 1 run in 600).
	settled(t, a)
	e.clock.Advance(lobby.RoomDropAfter)
	eventually(t, "ann left, seen on b", func() bool { m, _ := hb.Snapshot().Member("id-ann"); return !m.Present && m.State == lobby.RacerLeft })
}

// testStoreRetried: a result the holder fails to store is stored at
// its next tick.
func testStoreRetried(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	e.mu.Lock()
	e.fail = 1
	e.mu.Unlock()
	_, ann, _ := sharedRace(t, e, a, b)
	e.clock.Advance(lobby.DefaultTimeLimit)
	eventually(t, "the race ends", func() bool { return ann.has(isEnded) })
	eventually(t, "the first write failed", func() bool { e.mu.Lock(); defer e.mu.Unlock(); return e.fail == 0 })
	settled(t, a) // the end's fold, and the failed store it ran, are done
	if n := len(e.results("a")); n != 0 {
		t.Fatalf("%d results stored, want none yet", n)
	}
	a.TryLease()
	if n := len(e.results("a")); n != 1 {
		t.Fatalf("%d results stored after the next tick, want 1", n)
	}
	a.TryLease()
	if n := len(e.results("a")); n != 1 {
		t.Fatalf("%d results stored after one more tick, want still 1", n)
	}
}

// testDeadlineOneEnd: two servers that both think they hold the
// lease end the same race at the deadline at once: one end event, and the
// results both would store have one key.
func testDeadlineOneEnd(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	code, ann, bob := sharedRace(t, e, a, b)
	b.SetHolder(true) // as if a's lease had run out while a still ran
	e.clock.Advance(lobby.DefaultTimeLimit)
	eventually(t, "both see the end", func() bool { return ann.has(isEnded) && bob.has(isEnded) })
	eventually(t, "both stored", func() bool { return len(e.results("a")) == 1 && len(e.results("b")) == 1 })
	ka, kb := e.results("a")[0].Key(), e.results("b")[0].Key()
	if ka != kb {
		t.Fatalf("keys %q and %q, want one", ka, kb)
	}
	sub, err := e.bus().Subscribe(context.Background(), cluster.RoomsTopic, 0)
	wantErr(t, "Subscribe", err, nil)
	defer sub.Close()
	ends := 0
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		ev, err := sub.Next(ctx)
		cancel()
		if err != nil {
			break
		}
		if ev.Kind == "end" {
			ends++
		}
	}
	if ends != 1 {
		t.Fatalf("%d end events of room %s, want 1", ends, code)
	}
}

// testQuickMatchWatchMute: quick match on one server finds the room
// made on the other; a spectator and a mute cross servers too.
func testQuickMatchWatchMute(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	cfg := classic()
	ha, _, created, err := a.QuickMatch(pl("ann"), newSink(), cfg)
	if err != nil || !created {
		t.Fatalf("ann's quick match: created %v, %v", created, err)
	}
	eventually(t, "b lists ann's room", func() bool { return len(b.Public()) == 1 })
	hb, snap, created, err := b.QuickMatch(pl("bob"), newSink(), cfg)
	if err != nil || created || hb.Code() != ha.Code() || len(snap.Members) != 2 {
		t.Fatalf("bob's quick match: room %v (ann's %s), created %v, %d members, %v", hb, ha.Code(), created, len(snap.Members), err)
	}
	eventually(t, "a lists 2 players", func() bool { p := a.Public(); return len(p) == 1 && p[0].Players == 2 && p[0].Host == "ann" })
	if w, p := a.Waiting(), a.Public(); len(w) != 1 || w[0] != p[0] {
		t.Errorf("waiting rooms %+v, want the public room %+v", w, p)
	}
	carol := newSink()
	_, err = hb.Watch("id-carol", carol)
	wantErr(t, "carol watches on b", err, nil)
	eventually(t, "a counts carol", func() bool { return ha.Snapshot().Spectators == 1 })
	wantErr(t, "carol stops on a (not hers)", ha.Unwatch("id-carol", carol), lobby.ErrNotMember)
	wantErr(t, "another session of carol's stops on b", hb.Unwatch("id-carol", newSink()), lobby.ErrSeatTaken)
	wantErr(t, "carol stops on b", hb.Unwatch("id-carol", carol), nil)
	eventually(t, "a counts none", func() bool { return ha.Snapshot().Spectators == 0 })
	wantErr(t, "bob mutes ann (not the host)", hb.Mute("id-bob", "id-ann", true), lobby.ErrNotHost)
	wantErr(t, "ann mutes bob", ha.Mute("id-ann", "id-bob", true), nil)
	eventually(t, "b sees bob muted", func() bool { m, _ := hb.Snapshot().Member("id-bob"); return m.Muted })
	wantErr(t, "bob says", hb.Say("id-bob", "hey"), lobby.ErrMuted)
	wantErr(t, "ann closes", a.Close(ha.Code(), "testing"), nil)
	eventually(t, "b sees it closed", func() bool { _, ok := b.Room(ha.Code()); return !ok })
}

// testLateServer: a server that starts after rooms were made knows
// them as soon as it is up, from the bus's history.
func testLateServer(t *testing.T, e *roomsEnv) {
	a := e.server("a")
	h, _, err := a.Create(pl("ann"), newSink(), classic())
	wantErr(t, "Create", err, nil)
	_, err = a.Join(h, pl("bob"), newSink())
	wantErr(t, "Join", err, nil)
	c := e.server("c")
	hc, ok := c.Room(h.Code())
	if !ok {
		t.Fatalf("the late server does not know room %s", h.Code())
	}
	if snap := hc.Snapshot(); len(snap.Members) != 2 || snap.Host != "id-ann" {
		t.Fatalf("the late server's room: %+v", snap)
	}
}

// testStoredGameIsNews: a racer's stored game and end reach the
// other servers at once, not at the next ProgressEvery: a server that
// dies right after a racer's first move must not leave her comeback
// elsewhere without her game (progress itself still waits its turn).
func testStoredGameIsNews(t *testing.T, e *roomsEnv) {
	e.every = time.Hour // progress never goes out twice within this test
	a, b := e.server("a"), e.server("b")
	code, _, _ := sharedRace(t, e, a, b)
	ha, _ := a.Room(code)
	hb, _ := b.Room(code)
	wantErr(t, "ann's first move", ha.Report("id-ann", held(ha, "id-ann"), lobby.Progress{Removed: 2, Moves: 1, Pass: 1, State: lobby.RacerPlaying}, nil), nil)
	wantErr(t, "ann's game stored", ha.Report("id-ann", held(ha, "id-ann"), lobby.Progress{Removed: 2, Moves: 1, Pass: 1, State: lobby.RacerPlaying, GameID: 77}, nil), nil)
	eventually(t, "b knows ann's game", func() bool { m, _ := hb.Snapshot().Member("id-ann"); return m.GameID == 77 })
	wantErr(t, "ann's next move", ha.Report("id-ann", held(ha, "id-ann"), lobby.Progress{Removed: 4, Moves: 2, Pass: 1, State: lobby.RacerPlaying, GameID: 77}, nil), nil)
	wantErr(t, "ann stuck", ha.Report("id-ann", held(ha, "id-ann"), lobby.Progress{Removed: 4, Moves: 3, Pass: 3, State: lobby.RacerStuck, GameID: 77}, nil), nil)
	eventually(t, "b knows ann is stuck", func() bool {
		m, _ := hb.Snapshot().Member("id-ann")
		return m.State == lobby.RacerStuck && m.Moves == 3
	})
}

// testProgressTopics: each server publishes its racers' progress on
// a topic of its own (so that two servers' publishes never wait on one
// topic's counter), and every server reads the topics of the servers with
// a member in the room: a server that serves nobody in it (c) too, and
// the server of a member who joined after the room opened (a reads b's).
func testProgressTopics(t *testing.T, e *roomsEnv) {
	a, b, c := e.server("a"), e.server("b"), e.server("c")
	code, _, _ := sharedRace(t, e, a, b)
	ha, _ := a.Room(code)
	hb, _ := b.Room(code)
	eventually(t, "c sees the room", func() bool { _, ok := c.Room(code); return ok })
	hc, _ := c.Room(code)
	e.clock.Advance(5 * time.Second)
	wantErr(t, "bob reports", hb.Report("id-bob", held(hb, "id-bob"), lobby.Progress{Removed: 3, Moves: 2, Pass: 1, State: lobby.RacerPlaying}, nil), nil)
	wantErr(t, "ann reports", ha.Report("id-ann", held(ha, "id-ann"), lobby.Progress{Removed: 5, Moves: 4, Pass: 1, State: lobby.RacerPlaying}, nil), nil)
	for name, h := range map[string]*lobby.Room{"a": ha, "b": hb, "c": hc} {
		eventually(t, name+" shows both racers' progress", func() bool {
			mb, _ := h.Snapshot().Member("id-bob")
			ma, _ := h.Snapshot().Member("id-ann")
			return mb.Removed == 3 && ma.Removed == 5
		})
	}
	for _, inst := range []string{"a", "b"} {
		sub, err := e.bus().Subscribe(context.Background(), cluster.ProgressTopic(code, inst), 0)
		wantErr(t, "Subscribe", err, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		n := 0
		for {
			ev, err := sub.Next(ctx)
			if err != nil {
				break
			}
			var m struct {
				Inst string `json:"i"`
			}
			if err := json.Unmarshal(ev.Body, &m); err != nil || m.Inst != inst {
				t.Errorf("topic of %s holds progress of %q (%v)", inst, m.Inst, err)
			}
			n++
		}
		cancel()
		sub.Close()
		if n == 0 {
			t.Errorf("topic of %s holds no progress", inst)
		}
	}
}

// testProgressBeforeTheStart: progress and room changes come on
// different topics, so a server may hear a racer's progress before it
// has folded the race's start; it keeps it and shows it once the start
// is folded, instead of dropping what may be the racer's last word.
func testProgressBeforeTheStart(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	ann := newSink()
	h, _, err := a.Create(pl("ann"), ann, classic())
	wantErr(t, "Create", err, nil)
	code := h.Code()
	eventually(t, "b sees the room", func() bool { _, ok := b.Room(code); return ok })
	hb, err := b.Find(code)
	wantErr(t, "Find on b", err, nil)
	_, err = b.Join(hb, pl("bob"), newSink())
	wantErr(t, "Join on b", err, nil)
	eventually(t, "a sees bob", func() bool { return len(h.Snapshot().Members) == 2 })
	// Ann's progress of round 1 reaches b while b still has the room waiting.
	b.ApplyProgress(code, hb.Snapshot().RoomID, lobby.ServerProgress{Inst: "a", Round: 1,
		Racers: []lobby.RacerReport{{ID: "id-ann", Progress: lobby.Progress{Removed: 28, Moves: 30, State: lobby.RacerCleared}}}})
	if m, _ := hb.Snapshot().Member("id-ann"); m.Removed != 0 {
		t.Fatalf("progress applied in the waiting room: %+v", m)
	}
	wantErr(t, "bob ready", hb.SetReady("id-bob", true), nil)
	eventually(t, "a sees bob ready", func() bool { m, _ := h.Snapshot().Member("id-bob"); return m.Ready })
	wantErr(t, "Start", startReady(h, "id-ann"), nil)
	eventually(t, "b shows ann's progress once it folds the start", func() bool {
		m, _ := hb.Snapshot().Member("id-ann")
		return m.Removed == 28 && m.Moves == 30
	})
}

// testBoardFromEvents: a spectator's board of a racer is the room's, on
// any server: the racer's server keeps the line the racer reported, and
// the others make it whole from the progress events, which carry the last
// moves and a sum of them all. A line an event cannot make whole (an undo
// of more moves than an event carries, a server that came late) is
// unknown until the caller gives it (Learn).
func testBoardFromEvents(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	code, _, _ := sharedRace(t, e, a, b)
	ha, _ := a.Room(code)
	hb, _ := b.Room(code)
	if rec, ok := hb.Board("id-ann"); !ok || len(rec.Moves) != 0 || rec.Deal != 42 {
		t.Fatalf("ann's board before her first move: %+v, %v", rec, ok)
	}
	var line []string
	report := func(moves []string) {
		t.Helper()
		line = moves
		wantErr(t, "ann reports", ha.Report("id-ann", held(ha, "id-ann"), lobby.Progress{Removed: 2, Moves: len(moves), Pass: 1, State: lobby.RacerPlaying}, moves), nil)
	}
	sameBoard := func(what string, h *lobby.Room) {
		t.Helper()
		eventually(t, what, func() bool {
			rec, ok := h.Board("id-ann")
			return ok && slices.Equal(rec.Moves, line)
		})
	}
	moves := func(from, to int, tag string) []string {
		var out []string
		for i := from; i < to; i++ {
			out = append(out, fmt.Sprintf("%s%d", tag, i))
		}
		return out
	}
	for n := 1; n <= 40; n++ {
		report(moves(0, n, "m"))
		if n%3 == 0 {
			sameBoard(fmt.Sprintf("b follows ann's %d moves", n), hb)
		}
	}
	sameBoard("a has ann's line", ha)
	sameBoard("b has ann's 40 moves", hb)
	// An undo of more moves than an event carries, and another line
	// from there: b cannot make it whole, and says so.
	changed := slices.Concat(moves(0, 2, "m"), []string{"x2"}, moves(3, 40, "m"))
	report(changed)
	eventually(t, "b knows it cannot follow", func() bool { _, ok := hb.Board("id-ann"); return !ok })
	hb.Learn("id-ann", moves(0, 40, "m")) // not the line of the event: refused
	if _, ok := hb.Board("id-ann"); ok {
		t.Fatal("b took a line that is not ann's")
	}
	hb.Learn("id-ann", changed)
	sameBoard("b has the line it was given", hb)
	report(append(slices.Clone(changed), "m40"))
	sameBoard("b follows from there", hb)

	// A server that comes late knows the line once it has been given it.
	c := e.server("c")
	eventually(t, "c sees the room", func() bool { _, ok := c.Room(code); return ok })
	hc, _ := c.Room(code)
	report(append(slices.Clone(line), "m41"))
	eventually(t, "c has ann's progress", func() bool { m, _ := hc.Snapshot().Member("id-ann"); return m.Moves == len(line) })
	if rec, ok := hc.Board("id-ann"); ok && !slices.Equal(rec.Moves, line) {
		t.Fatalf("c's board of ann: %v, want %v or unknown", rec.Moves, line)
	}
	hc.Learn("id-ann", line)
	sameBoard("c has the line", hc)
}

// testCountdownHook: when a race's countdown begins, each server hears of
// it (OnCountdown) with the racers it serves, for their games to be made
// before the race; a server with none of them hears nothing.
func testCountdownHook(t *testing.T, e *roomsEnv) {
	a, b, c := e.server("a"), e.server("b"), e.server("c")
	code, _, _ := sharedRace(t, e, a, b)
	eventually(t, "c folded the start", func() bool { p := phaseOf(c, code); return p == lobby.PhaseCountdown || p == lobby.PhaseRacing })
	e.mu.Lock()
	defer e.mu.Unlock()
	for name, want := range map[string]string{"a": "id-ann", "b": "id-bob"} {
		got := e.countdowns[name]
		if len(got) != 1 || got[0].Code != code || got[0].Round != 1 || len(got[0].Racers) != 1 || got[0].Racers[0] != want ||
			got[0].RaceKey == "" || got[0].Deal != 42 {
			t.Errorf("%s's countdowns: %+v, want one of room %s with %s", name, got, code, want)
		}
	}
	if got := e.countdowns["c"]; len(got) != 0 {
		t.Errorf("c, which serves no racer, heard of %+v", got)
	}
}
