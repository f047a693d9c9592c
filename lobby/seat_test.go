package lobby

import (
	"testing"
)

// held is the sink of the session holding the seat of id in r (nil: none),
// for tests that report as that session.
func held(r *Room, id string) Sink {
	r.mu.Lock()
	defer r.unlock()
	if m := r.member(id); m != nil {
		return m.sink
	}
	return nil
}

// heldShared is held for a shared room: the sink of the session on this
// server holding the seat.
func heldShared(h *SharedRoom, id string) Sink {
	rs := h.rs
	r := rs.lookup(h.code)
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if m := r.member(id); m != nil {
		return rs.sinkOf(m.inst, m.sid)
	}
	return nil
}

// TestReportFromTheSeatOnly: once another session of a racer takes the
// seat over, the old session's reports are refused (ErrSeatTaken) and
// change nothing; the new session's count.
func TestReportFromTheSeatOnly(t *testing.T) {
	e := newEnv(t, 0)
	r, sinks := e.race(classic())
	old := sinks["bob"]
	e.join(r, "bob") // bob's second session takes the seat over
	wantErr(t, "the old session reports", r.Report("id-bob", old, Progress{Removed: 2, Moves: 1, Pass: 1, State: RacerPlaying}), ErrSeatTaken)
	if m, _ := r.Snapshot().Member("id-bob"); m.Moves != 0 || m.Removed != 0 {
		t.Fatalf("after the old session's report: bob %d moves, %d removed; want 0, 0", m.Moves, m.Removed)
	}
	wantErr(t, "the new session reports", r.Report("id-bob", held(r, "id-bob"), Progress{Removed: 2, Moves: 1, Pass: 1, State: RacerPlaying}), nil)
	wantErr(t, "a stranger's sink", r.Report("id-bob", newSink(), Progress{Removed: 4, Moves: 2, Pass: 1, State: RacerPlaying}), ErrSeatTaken)
	if m, _ := r.Snapshot().Member("id-bob"); m.Moves != 1 || m.Removed != 2 {
		t.Errorf("bob %d moves, %d removed; want the new session's 1, 2", m.Moves, m.Removed)
	}
}

// TestSharedReportFromTheSeatOnly: in the cluster's rooms too, a racer's
// session whose seat another session took over (on the same server, or on
// another) reports nothing.
func TestSharedReportFromTheSeatOnly(t *testing.T) {
	e := newSharedEnv(t)
	a, b := e.server("a"), e.server("b")
	code, _, bob := sharedRace(t, e, a, b)
	ha, _ := a.Room(code)
	hb, _ := b.Room(code)
	bob2 := newSink()
	_, err := b.Join(hb, pl("bob"), bob2)
	wantErr(t, "bob's second session on b", err, nil)
	p := Progress{Removed: 2, Moves: 1, Pass: 1, State: RacerPlaying}
	wantErr(t, "bob's old session reports", hb.Report("id-bob", bob, p), ErrSeatTaken)
	wantErr(t, "bob's new session reports", hb.Report("id-bob", bob2, p), nil)
	eventually(t, "a shows the new session's move", func() bool { m, _ := ha.Snapshot().Member("id-bob"); return m.Moves == 1 })
	_, err = a.Join(ha, pl("bob"), newSink())
	wantErr(t, "bob's third session, on a", err, nil)
	eventually(t, "b knows bob's seat moved to a", func() bool {
		return hb.Report("id-bob", bob2, Progress{Removed: 4, Moves: 2, Pass: 1, State: RacerPlaying}) != nil
	})
	wantErr(t, "bob's session on b reports", hb.Report("id-bob", bob2, Progress{Removed: 4, Moves: 2, Pass: 1, State: RacerPlaying}), ErrNotMember)
	if m, _ := ha.Snapshot().Member("id-bob"); m.Moves != 1 {
		t.Errorf("a shows %d moves of bob's, want 1", m.Moves)
	}
}
