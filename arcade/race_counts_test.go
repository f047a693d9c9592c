package arcade

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/engine"
	"pyramid/rating"
	"pyramid/server/sshtest"
	"pyramid/store"
	"pyramid/store/storetest"
)

// TestRaceCountsAgree: stats --json and top race --json count the same
// races and wins for every player on the list, on both databases, after
// races that test the definition (a racer who never moved, one who left
// last of three, a pair past its limit), and a provisional rating shows
// with "?" in stats and nowhere in top race.
func TestRaceCountsAgree(t *testing.T) {
	for _, db := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"sqlite", func(*testing.T) string { return "" }},
		{"postgres", func(t *testing.T) string { return storetest.PostgresSchemaURL(t) }},
	} {
		t.Run(db.name, func(t *testing.T) { testRaceCountsAgree(t, newFixtureDB(t, db.url(t))) })
	}
}

func testRaceCountsAgree(t *testing.T, f *fixture) {
	ctx := context.Background()
	var keys []gossh.Signer
	var ids []string
	for i := range 7 {
		k := sshtest.NewKey(t)
		p, _, err := f.st.GetOrCreatePlayer(ctx, gossh.FingerprintSHA256(k.PublicKey()), fmt.Sprint("p", i))
		if err != nil {
			t.Fatal(err)
		}
		keys, ids = append(keys, k), append(ids, p.ID)
	}
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	race := func(n int, at time.Duration, order ...int) store.NewRace {
		nr := store.NewRace{Key: fmt.Sprint("r", n), Code: "KDXW", RulesID: engine.Classic().ID(), Started: start.Add(at),
			Ended: start.Add(at + 5*time.Minute), Racers: len(order), Rated: true}
		for place, i := range order {
			p := store.RacePlacing{PlayerID: ids[i], Place: place + 1, Removed: 20 - place, Moves: 30, Outcome: store.OutcomeStuck}
			nr.Placings = append(nr.Placings, p)
		}
		return nr
	}
	n := 0
	// Ten races of p0 … p5, three a day: settled ratings; p6 races them
	// in a few, never moving in one and leaving last in another.
	for i := range rating.ProvisionalRaces {
		at := time.Duration(i/3)*25*time.Hour + time.Duration(i%3)*time.Hour
		order := []int{(i) % 6, (i + 1) % 6, (i + 2) % 6, (i + 3) % 6, (i + 4) % 6, (i + 5) % 6}
		nr := race(n, at, order...)
		n++
		if _, err := f.st.RecordRace(ctx, nr); err != nil {
			t.Fatal(err)
		}
	}
	idle := race(n, 400*time.Hour, 6, 0, 1)
	idle.Placings[0].Moves, idle.Placings[0].Removed = 0, 0
	idle.Placings[0].Place, idle.Placings[1].Place, idle.Placings[2].Place = 3, 1, 2
	left := race(n+1, 401*time.Hour, 0, 1, 6)
	left.Placings[2].Outcome = store.OutcomeLeft
	for _, nr := range []store.NewRace{idle, left} {
		if _, err := f.st.RecordRace(ctx, nr); err != nil {
			t.Fatal(err)
		}
	}

	var top []ratingReport
	_, out, _ := f.run(session(keys[0], "p0", "top", "race", "--json"))
	if err := json.Unmarshal([]byte(out), &top); err != nil {
		t.Fatalf("top race --json: %v\n%s", err, out)
	}
	if len(top) != 6 {
		t.Fatalf("top race --json lists %d, want p0 … p5 (p6 is provisional): %+v", len(top), top)
	}
	for i, k := range keys {
		var stats []statsReport
		_, out, _ := f.run(session(k, fmt.Sprint("p", i), "stats", "--json"))
		if err := json.Unmarshal([]byte(out), &stats); err != nil || len(stats) != 1 || stats[0].Race == nil {
			t.Fatalf("p%d's stats --json: %v\n%s", i, err, out)
		}
		rr := stats[0].Race
		var on *ratingReport
		for j := range top {
			if top[j].Name == fmt.Sprint("p", i) {
				on = &top[j]
			}
		}
		switch {
		case i == 6:
			_, text, _ := f.run(session(k, "p6", "stats"))
			if on != nil || !rr.Provisional || rr.Races != 1 || rr.Podiums != 0 || !strings.Contains(text, displayText(rr.Rating, true)) {
				t.Errorf("p6 (one rated race, last of three after leaving): stats %+v, listed %v\n%s", rr, on != nil, text)
			}
			_, list, _ := f.run(session(k, "p6", "top", "race"))
			want := fmt.Sprintf("your rating: %s, provisional: 1 of 10 rated races, 2 of 5 different opponents", displayText(rr.Rating, true))
			if !strings.Contains(list, want) || strings.Contains(list, " p6 ") {
				t.Errorf("top race for p6, want %q and p6 off the list:\n%s", want, list)
			}
		case on == nil:
			t.Errorf("p%d is not on top race", i)
		case on.Races != rr.Races || on.Wins != rr.Wins || on.Rating != rr.Rating || rr.Provisional:
			t.Errorf("p%d: top race says %d races, %d wins, rating %v; stats says %+v", i, on.Races, on.Wins, on.Rating, rr)
		}
	}
}

// TestReplayRaceResults: replay of a race game says how the race counted
// for each racer, in JSON and, for the player, in words: an assisted
// racer's placing stays, "unrated: moves faster than play".
func TestReplayRaceResults(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var keys []gossh.Signer
	var ids []string
	var gameIDs []int64
	for i, name := range []string{"ann", "bob", "cat"} {
		k := sshtest.NewKey(t)
		p, _, err := f.st.GetOrCreatePlayer(ctx, gossh.FingerprintSHA256(k.PublicKey()), name)
		if err != nil {
			t.Fatal(err)
		}
		g, err := f.st.CreateGame(ctx, store.NewGame{PlayerID: p.ID, RulesID: "classic", DealNumber: 42, Owner: "s",
			Kind: store.KindRace, Race: fmt.Sprint("race/", i)})
		if err != nil {
			t.Fatal(err)
		}
		keys, ids, gameIDs = append(keys, k), append(ids, p.ID), append(gameIDs, g.ID)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	nr := store.NewRace{Key: "r", Code: "KDXW", RulesID: "classic", DealNumber: 42, Started: now, Ended: now.Add(time.Minute),
		Racers: 3, Rated: true}
	for i := range ids {
		nr.Placings = append(nr.Placings, store.RacePlacing{PlayerID: ids[i], Place: i + 1, Removed: 10 - i, Moves: 20,
			GameID: gameIDs[i], Outcome: store.OutcomeStuck, Assisted: i == 0})
	}
	if _, err := f.st.RecordRace(ctx, nr); err != nil {
		t.Fatal(err)
	}
	var rep gameReport
	_, out, _ := f.run(session(keys[0], "ann", "replay", fmt.Sprint(gameIDs[0]), "--json"))
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Race == nil || len(rep.Race.Placings) != 3 {
		t.Fatalf("replay --json: %v\n%s", err, out)
	}
	ann, bob := rep.Race.Placings[0], rep.Race.Placings[1]
	if ann.Name != "ann" || !ann.Assisted || ann.Counted != "unrated" || ann.Why != "moves faster than play" || ann.RatingAfter != 0 {
		t.Errorf("ann's placing %+v", ann)
	}
	if bob.Counted != "rated" || !bob.Win || bob.RatingBefore != 1500 || !(bob.RatingAfter > 1500) || !bob.Provisional {
		t.Errorf("bob's placing %+v", bob)
	}
	_, text, _ := f.run(session(keys[0], "ann", "replay", fmt.Sprint(gameIDs[0])))
	if !strings.Contains(text, "race: 1st of 3 · unrated: moves faster than play") {
		t.Errorf("replay of ann's race game:\n%s", text)
	}
	_, text, _ = f.run(session(keys[1], "bob", "replay", fmt.Sprint(gameIDs[1])))
	if want := fmt.Sprintf("race: 2nd of 3 · 1500 → %s +", displayText(bob.RatingAfter, true)); !strings.Contains(text, want) {
		t.Errorf("replay of bob's race game, want %q:\n%s", want, text)
	}
}
