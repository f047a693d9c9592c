package lobby

import (
	"errors"
	"testing"
	"time"
)

// TestOutageVoidsTheRace: a server's outage of the database (OpOutage)
// voids the running races it has racers in, and no other.
func TestOutageVoidsTheRace(t *testing.T) {
	for _, tt := range []struct {
		name string
		inst string // the server out of reach
		void bool
	}{
		{"a racer's server", "b", true},
		{"this racer's server", "a", true},
		{"a server with nobody in the race", "c", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clock := NewFakeClock(t0)
			rs, l := syncRooms(t, clock)
			h, ann := syncRace(t, clock, rs, l)
			if err := l.log(RoomOp{Kind: OpOutage, Inst: tt.inst, At: clock.Now().Add(-20 * time.Second)}); err != nil {
				t.Fatal(err)
			}
			ann.mu.Lock()
			var told []RaceVoided
			for _, ev := range ann.posts {
				if v, ok := ev.(RaceVoided); ok {
					told = append(told, v)
				}
			}
			ann.mu.Unlock()
			if tt.void && (len(told) != 1 || told[0].Outage != 20*time.Second || told[0].Round != 1) {
				t.Errorf("ann told %+v, want the race void after 20s out of reach", told)
			} else if !tt.void && len(told) != 0 {
				t.Errorf("ann told %+v of a race that counts", told)
			}
			if err := h.Report("id-ann", ann, Progress{Removed: 2, Moves: 2, Pass: 1, State: RacerStuck}, nil); err != nil {
				t.Fatal(err)
			}
			if err := l.log(RoomOp{Kind: OpLeave, Inst: "b", Sid: "b/1", Code: h.Code(), Target: "id-bob"}); err != nil {
				t.Fatal(err)
			}
			var res *RaceResult
			waitFor(t, "the race's end", func() bool {
				rs.mu.Lock()
				defer rs.mu.Unlock()
				res = rs.rooms[h.Code()].lastEnd
				return res != nil
			})
			if res.Void != tt.void {
				t.Errorf("void %v, want %v", res.Void, tt.void)
			}
		})
	}
}

// TestComeBackAfterDeclaredGone: a server that another declared gone
// (OpGone) while it runs takes its sessions' seats (and views) again,
// and they play on; one that says itself it is gone (a shutdown) does
// not.
func TestComeBackAfterDeclaredGone(t *testing.T) {
	for _, tt := range []struct {
		name string
		by   string
		back bool
	}{
		{"declared by another", "b", true},
		{"its own shutdown", "a", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clock := NewFakeClock(t0)
			rs, l := syncRooms(t, clock)
			h, ann := syncRace(t, clock, rs, l)
			if _, err := h.Watch("viewer", newSink()); err != nil {
				t.Fatal(err)
			}
			if err := l.log(RoomOp{Kind: OpGone, Inst: tt.by, Gone: "a", At: clock.Now()}); err != nil {
				t.Fatal(err)
			}
			present := func() bool { m, _ := h.Snapshot().Member("id-ann"); return m.Present }
			if !tt.back {
				if present() || h.Snapshot().Spectators != 0 {
					t.Fatalf("ann or the spectator back after their server's shutdown: %+v", h.Snapshot())
				}
				err := h.Report("id-ann", ann, Progress{Removed: 2, Moves: 2, Pass: 1, State: RacerPlaying}, nil)
				if !errors.Is(err, ErrNotMember) {
					t.Fatalf("ann's move after her server's shutdown: %v", err)
				}
				return
			}
			waitFor(t, "ann back in her seat", present)
			waitFor(t, "the spectator back", func() bool { return h.Snapshot().Spectators == 1 })
			if err := h.Report("id-ann", ann, Progress{Removed: 2, Moves: 2, Pass: 1, State: RacerPlaying}, nil); err != nil {
				t.Fatalf("ann's move once back: %v", err)
			}
			if m, _ := h.Snapshot().Member("id-ann"); m.Removed != 2 || m.Away {
				t.Errorf("ann once back: %+v", m)
			}
		})
	}
}

// waitFor polls cond for up to ten seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond) // polling a condition, not synchronising on time
	}
}
