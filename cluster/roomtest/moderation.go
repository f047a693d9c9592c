package roomtest

import (
	"testing"

	"pyramid/cluster"
	"pyramid/lobby"
)

// guestFrom is a guest of server inst (n its session) connecting from
// addr.
func guestFrom(n, inst, addr string) lobby.Entrant {
	return lobby.Entrant{ID: "guest-" + n + "@" + inst, Name: "guest-" + n, Guest: true, Addr: addr}
}

// testMuteHoldsForAddress: a muted guest came back as a new guest and
// chatted on. A mute holds for the guests of the member's address as
// well as their account, on every server: the guest's next session, on
// another server, is muted too; a guest of another address is not, nor
// a player with a key behind the same address (a club behind one NAT),
// nor the host; the host's unmute lifts it for the address.
func testMuteHoldsForAddress(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	ann := pl("ann")
	ann.Addr = "203.0.113.7"
	h, _, err := a.Create(ann, newSink(), classic())
	wantErr(t, "Create", err, nil)
	g1 := guestFrom("1", "a", "203.0.113.7")
	_, err = a.Join(h, g1, newSink())
	wantErr(t, "the guest joins", err, nil)
	wantErr(t, "the guest says", h.Say(g1.ID, "spam"), nil)
	wantErr(t, "ann mutes the guest", h.Mute("id-ann", g1.ID, true), nil)
	wantErr(t, "the muted guest says", h.Say(g1.ID, "spam"), lobby.ErrMuted)
	wantErr(t, "the guest leaves", h.Leave(g1.ID, held(h, g1.ID)), nil)
	// Back as a new guest, on the other server.
	eventually(t, "b sees the room", func() bool { _, ok := b.Room(h.Code()); return ok })
	hb, _ := b.Room(h.Code())
	g2 := guestFrom("2", "b", "203.0.113.7")
	_, err = b.Join(hb, g2, newSink())
	wantErr(t, "the guest joins again as a new guest", err, nil)
	wantErr(t, "the new guest says", hb.Say(g2.ID, "spam"), lobby.ErrMuted)
	if m, _ := hb.Snapshot().Member(g2.ID); !m.Muted {
		t.Errorf("the new guest is shown %+v, want muted", m)
	}
	other := guestFrom("3", "b", "198.51.100.2")
	_, err = b.Join(hb, other, newSink())
	wantErr(t, "a guest of another address joins", err, nil)
	wantErr(t, "a guest of another address says", hb.Say(other.ID, "hello"), nil)
	dave := pl("dave")
	dave.Addr = "203.0.113.7"
	_, err = b.Join(hb, dave, newSink())
	wantErr(t, "a player with a key of the address joins", err, nil)
	wantErr(t, "a player with a key of the address says", hb.Say("id-dave", "hi"), nil)
	wantErr(t, "the host of the address says", h.Say("id-ann", "welcome"), nil)
	eventually(t, "a sees the new guest", func() bool { _, ok := h.Snapshot().Member(g2.ID); return ok })
	wantErr(t, "ann unmutes the new guest", h.Mute("id-ann", g2.ID, false), nil)
	eventually(t, "b sees the unmute", func() bool { m, _ := hb.Snapshot().Member(g2.ID); return !m.Muted })
	wantErr(t, "the guest says after the unmute", hb.Say(g2.ID, "sorry"), nil)
}

// testHostRemoves: a racer who never marked ready held the start up for
// ever. The host removes a member: their session is told, the start goes
// on without them, and neither their account nor their address comes
// back (a new guest of it neither), on any server; nobody but the host
// removes, and not themselves.
func testHostRemoves(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	h, _, err := a.Create(pl("ann"), newSink(), classic())
	wantErr(t, "Create", err, nil)
	eventually(t, "b sees the room", func() bool { _, ok := b.Room(h.Code()); return ok })
	hb, _ := b.Room(h.Code())
	bob := pl("bob")
	bob.Addr = "203.0.113.7"
	bobSink := newSink()
	_, err = b.Join(hb, bob, bobSink)
	wantErr(t, "bob joins on b", err, nil)
	_, err = a.Join(h, pl("carol"), newSink())
	wantErr(t, "carol joins on a", err, nil)
	wantErr(t, "carol ready", h.SetReady("id-carol", true), nil)
	wantErr(t, "the start with bob not ready", h.Start("id-ann"), lobby.ErrNotAllReady)
	wantErr(t, "carol removes bob", h.Remove("id-carol", "id-bob"), lobby.ErrNotHost)
	wantErr(t, "ann removes herself", h.Remove("id-ann", "id-ann"), lobby.ErrNotMember)
	wantErr(t, "ann removes bob", h.Remove("id-ann", "id-bob"), nil)
	eventually(t, "bob is told on b", func() bool {
		ev, ok := hasPost[lobby.Removed](bobSink)
		return ok && ev.Code == h.Code()
	})
	eventually(t, "b sees bob gone", func() bool { _, in := hb.Snapshot().Member("id-bob"); return !in })
	_, err = b.Join(hb, bob, newSink())
	wantErr(t, "bob comes back", err, lobby.ErrRemoved)
	_, err = b.Join(hb, guestFrom("9", "b", "203.0.113.7"), newSink())
	wantErr(t, "a guest of bob's address", err, lobby.ErrRemoved)
	wantErr(t, "the start without bob", h.Start("id-ann"), nil)
}

// testHostRemovesRacer: a racer the host removes in a race that runs
// counts as left, and the race goes on without them.
func testHostRemovesRacer(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	code, _, bobSink := sharedRace(t, e, a, b)
	h, _ := a.Room(code)
	wantErr(t, "ann removes bob in the race", h.Remove("id-ann", "id-bob"), nil)
	for name, rs := range map[string]*cluster.Rooms{"a": a, "b": b} {
		eventually(t, name+" shows bob left", func() bool {
			r, _ := rs.Room(code)
			m, _ := r.Snapshot().Member("id-bob")
			return m.State == lobby.RacerLeft
		})
	}
	if _, ok := hasPost[lobby.Removed](bobSink); !ok {
		t.Error("bob was not told")
	}
	hb, _ := b.Room(code)
	_, err := b.Join(hb, pl("bob"), newSink())
	wantErr(t, "bob back to his seat", err, lobby.ErrRemoved)
}

// testSpectatorMuteHoldsForAddress: a guest spectator the host muted
// comes back as a new guest, on another server, and is still muted: the
// mute holds for the address their chat line came from, as a member's;
// a spectator of another address is not.
func testSpectatorMuteHoldsForAddress(t *testing.T, e *roomsEnv) {
	a, b := e.server("a"), e.server("b")
	h, _, err := a.Create(pl("ann"), newSink(), classic())
	wantErr(t, "Create", err, nil)
	g1 := guestFrom("1", "a", "203.0.113.9")
	s1 := newSink()
	if _, err := h.Watch(g1.ID, s1); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "the guest says", h.SayWatching(g1, "spam"), nil)
	wantErr(t, "ann mutes the spectator", h.Mute("id-ann", g1.ID, true), nil)
	wantErr(t, "the muted spectator says", h.SayWatching(g1, "spam"), lobby.ErrMuted)
	wantErr(t, "the guest stops watching", h.Unwatch(g1.ID, s1), nil)

	eventually(t, "b sees the room", func() bool { _, ok := b.Room(h.Code()); return ok })
	hb, _ := b.Room(h.Code())
	g2 := guestFrom("2", "b", "203.0.113.9")
	if _, err := hb.Watch(g2.ID, newSink()); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "the same address as a new guest says", hb.SayWatching(g2, "spam again"), lobby.ErrMuted)
	other := guestFrom("3", "b", "198.51.100.9")
	if _, err := hb.Watch(other.ID, newSink()); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "a guest of another address says", hb.SayWatching(other, "hello"), nil)
}
