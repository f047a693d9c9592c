package arcade

import (
	"context"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/store"
	"pyramid/tui"
)

// removeOne is a record of the deal that removes a pyramid card or more:
// the hints' line up to its first removal of a pyramid card. (A race
// counts pyramid cards only: a line that ends with a King or a pair
// taken from the stock and waste removed nothing that a race stores.)
func removeOne(t *testing.T, rules engine.Rules, deal uint64) engine.Record {
	t.Helper()
	g, err := engine.NewNumbered(rules, deal)
	if err != nil {
		t.Fatal(err)
	}
	for g.Status() == engine.Playing {
		m, ok := g.Hint()
		if !ok || g.Apply(m) != nil {
			break
		}
		if g.Removed() > 0 {
			return g.Record()
		}
	}
	t.Skipf("the hints remove no pyramid card of deal %d", deal)
	return engine.Record{}
}

// raceTo plays rec in the room move by move as ann, then as bob (a race
// only one racer moved in counts for nobody), then ann and bob leave, and
// waits for the results and the stored race: ann first.
func raceTo(t *testing.T, f *fixture, room *lobby.Room, ann, bob *races, rec engine.Record, round int) {
	t.Helper()
	code := room.Code()
	playLine(t, ann, code, round, rec)
	playLine(t, bob, code, round, rec)
	for _, rs := range []*races{ann, bob} {
		if err := rs.Leave(code); err != nil {
			t.Fatal(err)
		}
	}
	waitPhase(t, room, lobby.PhaseResults)
}

// waitRecords polls ann's race records until they hold n races, rated or
// not.
func waitRecords(t *testing.T, f *fixture, playerID string, n int) store.RaceRecord {
	t.Helper()
	// Generous: after an outage the lease holder stores the race only
	// once it judges again, and the whole suite under the race detector
	// on 2 cores slows every step.
	deadline := time.Now().Add(30 * time.Second)
	for {
		rec, err := f.st.RaceRecord(context.Background(), playerID, engine.Classic().ID())
		if err == nil && rec.Races+rec.Unrated == n {
			return rec
		}
		if time.Now().After(deadline) {
			t.Fatalf("race record %+v (%v), want %d races", rec, err, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestChosenDealUnrated: a room opened on a deal the host chose races
// unrated (stored, no rating, no race won); a room on a random deal, and
// the rematch of a chosen deal's room, are rated.
func TestChosenDealUnrated(t *testing.T) {
	for _, tt := range []struct {
		name    string
		opts    tui.RoomOptions
		rated   bool
		rematch bool // then a rematch, which is rated
	}{
		{"chosen deal", tui.RoomOptions{Rules: engine.Classic(), Deal: 42, HasDeal: true}, false, false},
		{"random deal", tui.RoomOptions{Rules: engine.Classic()}, true, false},
		{"chosen deal, then a rematch", tui.RoomOptions{Rules: engine.Classic(), Deal: 42, HasDeal: true}, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			ctx := context.Background()
			ann, _ := f.racer(t, "ann", false)
			bob, _ := f.racer(t, "bob", false)
			code, room := startRace(t, f, tt.opts, ann, bob)
			snap := room.Snapshot()
			if snap.Rated != tt.rated {
				t.Fatalf("room Rated %v, want %v", snap.Rated, tt.rated)
			}
			raceTo(t, f, room, ann, bob, removeOne(t, engine.Classic(), snap.Deal), 1)
			rec := waitRecords(t, f, ann.me.ID, 1)
			top, err := f.st.TopRatings(ctx, engine.Classic().ID(), 10)
			if err != nil {
				t.Fatal(err)
			}
			if tt.rated {
				// Both rated, and provisional: off the rating list.
				recB := waitRecords(t, f, bob.me.ID, 1)
				if rec.Races != 1 || rec.Wins != 1 || rec.Unrated != 0 || rec.Rating.Races != 1 || !rec.Rating.Provisional ||
					recB.Races != 1 || recB.Wins != 0 || len(top) != 0 {
					t.Fatalf("after a rated race: ann's record %+v, bob's %+v, %d listed; want one race won, one lost, none listed",
						rec, recB, len(top))
				}
			} else if rec.Races != 0 || rec.Wins != 0 || rec.Unrated != 1 || rec.Rating.Races != 0 || len(top) != 0 {
				t.Fatalf("after an unrated race: ann's record %+v, %d rated players; want one unrated race, none rated", rec, len(top))
			}
			if !tt.rematch {
				return
			}
			// Both come back; the host's rematch deals at random: rated.
			for _, rs := range []*races{ann, bob} {
				if _, err := rs.Join(ctx, code); err != nil {
					t.Fatal(err)
				}
			}
			if err := ann.Rematch(ctx, code); err != nil {
				t.Fatal(err)
			}
			snap = room.Snapshot()
			if !snap.Rated || snap.Round != 2 {
				t.Fatalf("after the rematch: round %d, Rated %v; want round 2, rated", snap.Round, snap.Rated)
			}
			readyAll(t, code, bob)
			if err := ann.Start(code); err != nil {
				t.Fatal(err)
			}
			waitPhase(t, room, lobby.PhaseRacing)
			raceTo(t, f, room, ann, bob, removeOne(t, engine.Classic(), snap.Deal), 2)
			rec = waitRecords(t, f, ann.me.ID, 2)
			if rec.Races != 1 || rec.Wins != 1 || rec.Unrated != 1 || rec.Rating.Races != 1 {
				t.Fatalf("after the rematch: ann's record %+v, want one rated race won and one unrated", rec)
			}
		})
	}
}
