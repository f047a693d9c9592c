package roomtest

import (
	"slices"
	"testing"
	"time"

	"pyramid/cluster"
	"pyramid/lobby"
)

// The scenarios of the waiting room and of a private room's privacy.

// testAllReadyStarts: a race starts with every racer ready: the host's
// start waits for the others (testRoomLifecycle), and once the last
// racer marks ready, host included, the countdown starts by itself.
func testAllReadyStarts(t *testing.T, e *roomsEnv) {
	r, a := e.create("alice", classic())
	wantErr(t, "alice ready alone", r.SetReady("id-alice", true), nil)
	if p := r.Snapshot().Phase; p != lobby.PhaseWaiting {
		t.Fatalf("one racer ready alone: phase %v, want waiting", p)
	}
	b := e.join(r, "bob")
	e.join(r, "carol")
	wantErr(t, "bob ready", r.SetReady("id-bob", true), nil)
	if p := r.Snapshot().Phase; p != lobby.PhaseWaiting {
		t.Fatalf("carol not ready: phase %v, want waiting", p)
	}
	e.clock.Advance(time.Second)
	wantErr(t, "carol ready", r.SetReady("id-carol", true), nil)
	s := r.Snapshot()
	if s.Phase != lobby.PhaseCountdown || !s.StartsAt.Equal(e.clock.Now().Add(lobby.CountdownTime)) {
		t.Fatalf("everybody ready: phase %v, start %v; want the countdown to %v", s.Phase, s.StartsAt, e.clock.Now().Add(lobby.CountdownTime))
	}
	for name, sink := range map[string]*fakeSink{"alice": a, "bob": b} {
		if _, ok := hasPost[lobby.CountdownStarted](sink); !ok {
			t.Errorf("%s was not told of the countdown", name)
		}
	}
	e.clock.Advance(lobby.CountdownTime)
	if p := r.Snapshot().Phase; p != lobby.PhaseRacing {
		t.Fatalf("after the countdown: phase %v, want racing", p)
	}
}

// testIdleHost: a host who does nothing in the waiting room for HostIdle
// while another racer is ready passes the host's part on to that racer,
// who is told; an action of the host, or a newer ready mark, counts
// HostIdle again; nobody ready, nobody takes it.
func testIdleHost(t *testing.T, e *roomsEnv) {
	rs := e.one()
	r, a := e.create("alice", classic())
	b := e.join(r, "bob")
	e.join(r, "carol")
	duties := func() {
		t.Helper()
		rs.TryLease()
		settled(t, rs)
	}
	e.clock.Advance(2 * lobby.HostIdle)
	duties()
	if h := r.Snapshot().Host; h != "id-alice" {
		t.Fatalf("nobody ready: the host is %s, want alice still", h)
	}
	wantErr(t, "carol ready", r.SetReady("id-carol", true), nil)
	e.clock.Advance(lobby.HostIdle - time.Second)
	wantErr(t, "alice says", r.Say("id-alice", "one more minute"), nil)
	e.clock.Advance(lobby.HostIdle - time.Second)
	duties()
	if h := r.Snapshot().Host; h != "id-alice" {
		t.Fatalf("alice chatted %v ago: the host is %s, want alice", lobby.HostIdle-time.Second, h)
	}
	e.clock.Advance(time.Second)
	duties()
	s := r.Snapshot()
	if s.Host != "id-carol" {
		t.Fatalf("alice idle for %v with carol ready: the host is %s, want carol", lobby.HostIdle, s.Host)
	}
	for name, sink := range map[string]*fakeSink{"alice": a, "bob": b} {
		if ev, ok := hasPost[lobby.HostPassed](sink); !ok || ev.From != "alice" || ev.To != "carol" {
			t.Errorf("%s told %+v, %v; want the host's part passed from alice to carol", name, ev, ok)
		}
	}
	// carol hosts now: her start needs bob and alice ready.
	wantErr(t, "alice starts", r.Start("id-alice"), lobby.ErrNotHost)
	wantErr(t, "bob ready", r.SetReady("id-bob", true), nil)
	wantErr(t, "carol starts with alice not ready", r.Start("id-carol"), lobby.ErrNotAllReady)
}

// testIdleHostAcrossServers: the idle host's part passes the same on every
// server: the host on one, the ready racer on another.
func testIdleHostAcrossServers(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	h, _, err := a.Create(pl("ann"), newSink(), classic())
	wantErr(t, "Create", err, nil)
	eventually(t, "b sees the room", func() bool { _, ok := b.Room(h.Code()); return ok })
	hb, _ := b.Room(h.Code())
	bobSink := newSink()
	_, err = b.Join(hb, pl("bob"), bobSink)
	wantErr(t, "bob joins on b", err, nil)
	wantErr(t, "bob ready", hb.SetReady("id-bob", true), nil)
	// The lease holder may be either server: both must know bob is
	// ready before the host's idle time runs out.
	for name, room := range map[string]*lobby.Room{"a": h, "b": hb} {
		eventually(t, name+" sees bob ready", func() bool {
			return slices.ContainsFunc(room.Snapshot().Members, func(r lobby.Racer) bool { return r.ID == "id-bob" && r.Ready })
		})
	}
	// A second more: each server reads the cluster's clock through its
	// own offset, measured at its own moment.
	e.clock.Advance(lobby.HostIdle + time.Second)
	for _, rs := range []*cluster.Rooms{a, b} {
		rs.TryLease()
	}
	for name, room := range map[string]*lobby.Room{"a": h, "b": hb} {
		eventually(t, name+" sees bob host", func() bool { return room.Snapshot().Host == "id-bob" })
	}
	eventually(t, "bob told", func() bool { _, ok := hasPost[lobby.HostPassed](bobSink); return ok })
}

// testPrivateSpectator: a private room is listed nowhere, on no server;
// its racers' presence names neither its code nor its deal; a spectator
// needs its code, on any server; a public room's racers are shown in it.
func testPrivateSpectator(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	h, _, err := a.Create(pl("ann"), newSink(), classic())
	wantErr(t, "Create", err, nil)
	_, err = a.Join(h, pl("bob"), newSink())
	wantErr(t, "bob joins", err, nil)
	wantErr(t, "Start", startReady(h, "id-ann"), nil)
	eventually(t, "b sees the countdown", func() bool { return phaseOf(b, h.Code()) == lobby.PhaseCountdown })
	e.clock.Advance(lobby.CountdownTime)
	eventually(t, "b sees the race", func() bool { return phaseOf(b, h.Code()) == lobby.PhaseRacing })
	for name, rs := range map[string]*cluster.Rooms{"a": a, "b": b} {
		if l := rs.Public(); len(l) != 0 {
			t.Errorf("%s lists %+v, want no room (it is private)", name, l)
		}
	}
	d := lobby.RacingIn(h.Snapshot(), 3)
	if !d.Private || d.Room != "" || d.Deal != 0 || d.What != lobby.Racing || d.Rules != "classic" || d.Removed != 3 {
		t.Errorf("a private room's racer is %+v to others, want racing classic in a private room, no code, no deal", d)
	}
	wrong := "CDFGHJ"
	if wrong == h.Code() {
		wrong = "CDFGHK"
	}
	_, err = b.Find(wrong)
	wantErr(t, "a stranger's guess", err, lobby.ErrNoRoom)
	hz, err := b.Find(h.Code())
	wantErr(t, "the code on b", err, nil)
	snap, err := hz.Watch("id-zed", newSink())
	wantErr(t, "zed watches with the code", err, nil)
	if snap.Code != h.Code() || len(snap.Members) != 2 {
		t.Errorf("the spectator's room: %+v", snap)
	}
	eventually(t, "a counts the spectator", func() bool { return h.Snapshot().Spectators == 1 })

	cfg := classic()
	cfg.Public = true
	hp, _, err := b.Create(pl("cat"), newSink(), cfg)
	wantErr(t, "Create a public room", err, nil)
	if d := lobby.RacingIn(hp.Snapshot(), 0); d.Private || d.Room != hp.Code() || d.Deal != 42 {
		t.Errorf("a public room's racer is %+v to others, want its room %s and deal 42", d, hp.Code())
	}
}
