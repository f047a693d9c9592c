package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"pyramid/rating"
	"pyramid/store"
)

// testRatingVoidRace: an admin voids the second of five races among
// three players. It counts for nobody; the ratings, records and
// decisions of the races after it come out as if it had never been
// recorded (the same races recorded by three other players without it),
// the pair limit included, which counts over every rules: the fourth
// race, of other rules, where ann had been left out for a pair rated
// three times in a day, now rates her and bob. Every racer of the voided
// race has an audit entry.
func testRatingVoidRace(t *testing.T, e *env) {
	// The races, by the letters of the racers in place order.
	races := []struct{ order, rules string }{
		{"ab", "classic"}, {"bac", "classic"}, {"ab", "classic"}, {"ba", "double"}, {"cab", "classic"},
	}
	const voided = 1
	record := func(set string, skip int) ([]store.Player, []int64) {
		players := []store.Player{e.racer(set + "a"), e.racer(set + "b"), e.racer(set + "c")}
		var ids []int64
		for i, race := range races {
			if i == skip {
				ids = append(ids, 0)
				continue
			}
			var in []store.Player
			for _, r := range race.order {
				in = append(in, players[r-'a'])
			}
			nr := e.stuckRace(fmt.Sprintf("%s%d", set, i), time.Duration(i)*time.Hour, in...)
			nr.RulesID = race.rules
			ids = append(ids, e.record(nr).ID)
		}
		return players, ids
	}
	players, ids := record("", -1)
	want, wantIDs := record("replay-", voided)

	before, err := e.s.Race(e.ctx, ids[3])
	if err != nil {
		t.Fatal(err)
	}
	wantStandings(t, before, "unrated no-opponent", "unrated pair-limit")

	admin := e.racer("admin")
	changed, err := e.s.VoidRace(e.ctx, store.RaceVoid{RaceID: ids[voided], Actor: admin.ID, Reason: "bob's second key"})
	if err != nil {
		t.Fatalf("VoidRace: %v", err)
	}
	wantChanged := []string{players[0].ID, players[1].ID, players[2].ID}
	slices.Sort(wantChanged)
	if !slices.Equal(changed, wantChanged) {
		t.Errorf("VoidRace changed the ratings of %q, want %q", changed, wantChanged)
	}

	void, err := e.s.Race(e.ctx, ids[voided])
	if err != nil {
		t.Fatal(err)
	}
	wantStandings(t, void, "unrated voided", "unrated voided", "unrated voided")
	if void.Unrated != rating.ReasonVoided {
		t.Errorf("the voided race's Unrated = %q, want %q", void.Unrated, rating.ReasonVoided)
	}
	for i, id := range ids {
		if i == voided {
			continue
		}
		got, err := e.s.Race(e.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		replayed, err := e.s.Race(e.ctx, wantIDs[i])
		if err != nil {
			t.Fatal(err)
		}
		for j, p := range got.Placings {
			q := replayed.Placings[j]
			if standing(p) != standing(q) || p.Win != q.Win || p.Podium != q.Podium ||
				!sameRating(p.Rating, q.Rating) || !sameRating(p.Before, q.Before) {
				t.Errorf("race %d placing %d after the void: %s %+v, want as without it: %s %+v",
					i+1, j+1, standing(p), p.Rating, standing(q), q.Rating)
			}
		}
	}
	for i, p := range players {
		for _, rules := range []string{"classic", "double"} {
			got, err := e.s.RaceRecord(e.ctx, p.ID, rules)
			if err != nil {
				t.Fatal(err)
			}
			w, _ := e.s.RaceRecord(e.ctx, want[i].ID, rules)
			if rules == "classic" {
				w.Unrated++ // the voided race, which they raced
			}
			if got.Races != w.Races || got.Wins != w.Wins || got.Podiums != w.Podiums || got.Unrated != w.Unrated ||
				!sameRating(got.Rating, w.Rating) {
				t.Errorf("%s's %s record after the void: %+v, want %+v", p.Name, rules, got, w)
			}
		}
		hist, err := e.s.RatingHistory(e.ctx, p.ID, "classic", 0)
		if err != nil {
			t.Fatal(err)
		}
		wantHist, _ := e.s.RatingHistory(e.ctx, want[i].ID, "classic", 0)
		if len(hist) != len(wantHist) {
			t.Errorf("%s's rating history has %d points, want %d", p.Name, len(hist), len(wantHist))
		}
		log, err := e.s.AuditLog(e.ctx, p.ID, 0)
		if err != nil || len(log) != 1 || log[0].Action != store.AuditVoid || log[0].Actor != admin.ID ||
			log[0].Subject != fmt.Sprintf("race %d", ids[voided]) || log[0].Reason != "bob's second key" || !log[0].At.Equal(e.clock.Now()) {
			t.Errorf("%s's audit log = %+v, %v; want the void", p.Name, log, err)
		}
	}

	rated, err := e.s.RatedRaces(e.ctx, players[1].ID, 10)
	var got []int64
	for _, r := range rated {
		got = append(got, r.ID)
	}
	if wantRated := []int64{ids[4], ids[3], ids[2], ids[0]}; err != nil || !slices.Equal(got, wantRated) {
		t.Errorf("bob's rated races after the void = %v, %v; want %v", got, err, wantRated)
	}
	if rated, _ := e.s.RatedRaces(e.ctx, players[1].ID, 1); len(rated) != 1 || rated[0].ID != ids[4] || len(rated[0].Placings) != 3 {
		t.Errorf("bob's newest rated race = %+v, want race %d with its placings", rated, ids[4])
	}

	_, err = e.s.VoidRace(e.ctx, store.RaceVoid{RaceID: ids[voided], Actor: admin.ID})
	wantErr(t, "void a race twice", err, store.ErrVoided)
	_, err = e.s.VoidRace(e.ctx, store.RaceVoid{RaceID: ids[4] + 1000, Actor: admin.ID})
	wantErr(t, "void no race", err, store.ErrNotFound)
	if log, _ := e.s.AuditLog(e.ctx, admin.ID, 0); len(log) != 3 {
		t.Errorf("the admin's audit log has %d entries, want the 3 of the one void", len(log))
	}
}

// sameRating compares two ratings as the store tells them.
func sameRating(a, b store.Rating) bool {
	return nearly(a.Mu, b.Mu) && nearly(a.Sigma, b.Sigma) && a.Races == b.Races && a.Opponents == b.Opponents &&
		a.Provisional == b.Provisional
}

// testPlayerNameHold: a name given up is held for its player for
// store.NameHold: another player may not take it, nor one that looks like
// it, and a new player is not given it; its player may take it back; once
// the hold is over, anyone may.
func testPlayerNameHold(t *testing.T, e *env) {
	alice, bob := e.player("alice"), e.player("bob")
	wantErr(t, "alice gives up her name", e.s.RenamePlayer(e.ctx, alice.ID, "alicia"), nil)
	e.clock.Advance(store.NameHold / 2)
	for _, name := range []string{"alice", "ALICE", "\u0430lice"} {
		err := e.s.RenamePlayer(e.ctx, bob.ID, name)
		wantErr(t, "bob takes "+name, err, store.ErrNameHeld)
		var held *store.NameHeldError
		if !errors.As(err, &held) || held.Left != store.NameHold/2 {
			t.Errorf("bob takes %s: %v, want a NameHeldError with %v left", name, err, store.NameHold/2)
		}
	}
	p, created, err := e.s.GetOrCreatePlayer(e.ctx, "SHA256:new-key", "alice")
	if err != nil || !created || p.Name == "alice" {
		t.Errorf("a new player asking for alice = %+v, %v, %v; want another name", p, created, err)
	}
	wantErr(t, "alice takes hers back", e.s.RenamePlayer(e.ctx, alice.ID, "Alice"), nil)
	wantErr(t, "alice gives it up again", e.s.RenamePlayer(e.ctx, alice.ID, "alicia"), nil)
	wantErr(t, "bob within the new hold", e.s.RenamePlayer(e.ctx, bob.ID, "alice"), store.ErrNameHeld)
	e.clock.Advance(store.NameHold)
	wantErr(t, "bob after the hold", e.s.RenamePlayer(e.ctx, bob.ID, "alice"), nil)
	// bob's old name is held for him in turn.
	wantErr(t, "alicia takes bob's old name", e.s.RenamePlayer(e.ctx, alice.ID, "bob"), store.ErrNameHeld)
}
