package lobby

import "testing"

// TestJoinLeavesTheOldRoom: a session that goes into a new room through
// the registry leaves the one it was in; what becomes of the old room
// depends on what it was doing.
func TestJoinLeavesTheOldRoom(t *testing.T) {
	for _, tc := range []struct {
		name string
		// setup makes the old room, with bob in it on sink old, and
		// says whether bob hosts it.
		setup       func(e *env, old *fakeSink) *Room
		sameSession bool
		wantClosed  bool // the old room closed
		wantSeat    bool // bob keeps a seat there (a race that runs)
		wantHost    string
	}{
		{
			name: "host of an empty waiting room: it closes",
			setup: func(e *env, old *fakeSink) *Room {
				r, _, err := e.rooms.Create(pl("bob"), old, classic())
				wantErr(e.t, "Create", err, nil)
				return r
			},
			sameSession: true, wantClosed: true,
		},
		{
			name: "host of a waiting room with others: the part passes",
			setup: func(e *env, old *fakeSink) *Room {
				r, _, err := e.rooms.Create(pl("bob"), old, classic())
				wantErr(e.t, "Create", err, nil)
				e.join(r, "carol")
				return r
			},
			sameSession: true, wantHost: "id-carol",
		},
		{
			name: "member of a waiting room, another session: told its seat went",
			setup: func(e *env, old *fakeSink) *Room {
				r, _ := e.create("carol", classic())
				_, err := r.Join(pl("bob"), old)
				wantErr(e.t, "Join", err, nil)
				return r
			},
			wantHost: "id-carol",
		},
		{
			name: "racer of a race that runs: the seat stays",
			setup: func(e *env, old *fakeSink) *Room {
				r, _ := e.create("carol", classic())
				_, err := r.Join(pl("bob"), old)
				wantErr(e.t, "Join", err, nil)
				wantErr(e.t, "Start", r.Start("id-carol"), nil)
				e.clock.Advance(CountdownTime)
				return r
			},
			sameSession: true, wantSeat: true, wantHost: "id-carol",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 0)
			old := newSink()
			oldRoom := tc.setup(e, old)
			target, _ := e.create("alice", classic())
			sink := newSink()
			if tc.sameSession {
				sink = old
			}
			if _, err := e.rooms.Join(target, pl("bob"), sink); err != nil {
				t.Fatal(err)
			}
			snap := oldRoom.Snapshot()
			if closed := snap.Phase == PhaseClosed; closed != tc.wantClosed {
				t.Fatalf("old room's phase %v, want closed %v", snap.Phase, tc.wantClosed)
			}
			if tc.wantClosed {
				if _, ok := e.rooms.Room(oldRoom.Code()); ok {
					t.Error("the closed room is still listed")
				}
				return
			}
			m, seated := snap.Member("id-bob")
			if seated != tc.wantSeat || m.Present {
				t.Errorf("bob in the old room: %+v, seated %v; want seated %v, not present", m, seated, tc.wantSeat)
			}
			if snap.Host != tc.wantHost {
				t.Errorf("old room's host %s, want %s", snap.Host, tc.wantHost)
			}
			if _, told := hasPost[SeatTakenOver](old); told == tc.sameSession {
				t.Errorf("old session told SeatTakenOver: %v, want %v", told, !tc.sameSession)
			}
			if m, ok := target.Snapshot().Member("id-bob"); !ok || !m.Present {
				t.Errorf("bob is not in the new room: %+v", m)
			}
		})
	}
}

// TestQuickAndCreateLeaveTheOldRoom: quick match and a new room move the
// player too.
func TestQuickAndCreateLeaveTheOldRoom(t *testing.T) {
	e := newEnv(t, 0)
	old, _ := e.create("carol", classic())
	s := e.join(old, "bob")
	pub := classic()
	pub.Public = true
	r, _, created, err := e.rooms.QuickMatch(pl("bob"), s, pub)
	if err != nil || !created {
		t.Fatalf("QuickMatch: %v, created %v", err, created)
	}
	if _, ok := old.Snapshot().Member("id-bob"); ok {
		t.Error("bob is still in carol's room after quick match")
	}
	dave := newSink()
	e.join(old, "dave")
	if _, _, err := e.rooms.QuickJoin(pl("dave"), dave, pub.Rules.ID()); err != nil {
		t.Fatal(err)
	}
	if _, ok := old.Snapshot().Member("id-dave"); ok {
		t.Error("dave is still in carol's room after quick join")
	}
	_ = r
	erin := e.join(old, "erin")
	if _, _, err := e.rooms.Create(pl("erin"), erin, classic()); err != nil {
		t.Fatal(err)
	}
	if _, ok := old.Snapshot().Member("id-erin"); ok {
		t.Error("erin is still in carol's room after opening her own")
	}
}

// TestHandoverSkipsAHost: the host's part never passes to a member who
// hosts another room, so nobody hosts two; it passes to the next member.
func TestHandoverSkipsAHost(t *testing.T) {
	e := newEnv(t, 0)
	x, _ := e.create("alice", classic())
	y, _ := e.create("bob", classic())
	// bob's second session goes into alice's room by the room itself,
	// not the registry, so he stays in his own.
	if _, err := x.Join(pl("bob"), newSink()); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "Leave", x.Leave("id-alice", held(x, "id-alice")), nil)
	if h := x.Host(); h == "id-bob" {
		t.Fatalf("bob hosts %s and %s", y.Code(), x.Code())
	}
	e.join(x, "carol")
	if h := x.Host(); h != "id-carol" {
		t.Errorf("host of %s: %s, want id-carol", x.Code(), h)
	}
	// Once bob hosts nothing, he may take a host's part again.
	y.Close("test")
	wantErr(t, "Leave", x.Leave("id-carol", held(x, "id-carol")), nil)
	if h := x.Host(); h != "id-bob" {
		t.Errorf("host of %s after carol left: %s, want id-bob", x.Code(), h)
	}
	if r, ok := e.rooms.Hosted("id-bob"); !ok || r != x {
		t.Errorf("bob hosts %v, want %s", r, x.Code())
	}
}
