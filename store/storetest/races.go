package storetest

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/rating"
	"pyramid/store"
)

// The race tests, run as one entry of the suite.
func testRaces(t *testing.T, e *env) {
	tests := []struct {
		name string
		fn   func(t *testing.T, e *env)
	}{
		{"RecordAndRead", testRaceRecordAndRead},
		{"Idempotent", testRaceIdempotent},
		{"IdempotentAtOnce", testRaceIdempotentAtOnce},
		{"Invalid", testRaceInvalid},
		{"TiesAndGuests", testRaceTiesAndGuests},
		{"TopRatings", testRaceTopRatings},
		{"ConcurrentRatings", testRaceConcurrentRatings},
		{"Unrated", testRaceUnrated},
		{"InRoom", testRaceInRoom},
	}
	tests = append(tests, ratingTests...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One store for all: each subtest makes players of its own.
			sub := *e
			sub.t = t
			tt.fn(t, &sub)
		})
	}
}

// prefix starts the names of the players and the keys of the races a race
// subtest makes, so that subtests sharing a store keep apart.
func (e *env) prefix() string { return e.t.Name() + "/" }

// racer creates a player for a race test, named uniquely within the store.
func (e *env) racer(name string) store.Player { return e.player(e.prefix() + name) }

// newRace is a rated race of a winnable deal started now, ended 5
// minutes later, with placings for players in that order, places 1, 2,
// 3, …: the first cleared, the others stuck, left, ran out of time.
func (e *env) newRace(key string, players ...store.Player) store.NewRace {
	nr := store.NewRace{Key: e.prefix() + key, Code: "KDXW", RulesID: "classic", DealNumber: 42,
		Started: e.clock.Now(), Ended: e.clock.Now().Add(5 * time.Minute), Racers: len(players), Rated: true,
		Verdict: engine.Winnable}
	outcomes := []store.Outcome{store.OutcomeStuck, store.OutcomeLeft, store.OutcomeTimeUp}
	for i, p := range players {
		nr.Placings = append(nr.Placings, store.RacePlacing{PlayerID: p.ID, Place: i + 1,
			Removed: 28 - 3*i, Moves: 40 + i, Time: time.Duration(100+10*i) * time.Second,
			Outcome: outcomes[(i+len(outcomes)-1)%len(outcomes)]})
	}
	nr.Placings[0].Cleared, nr.Placings[0].Outcome = true, store.OutcomeCleared
	return nr
}

// model is the rating model the store is expected to use.
func model() rating.Model {
	m := rating.Default()
	m.Tau = rating.SuggestedTau
	return m
}

func nearly(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func testRaceRecordAndRead(t *testing.T, e *env) {
	a, b, c := e.racer("alice"), e.racer("bob"), e.racer("carol")
	empty, err := e.s.RaceRecord(e.ctx, a.ID, "classic")
	if err != nil || empty.Races != 0 || empty.Rating.Races != 0 || !nearly(empty.Rating.Mu, rating.DefaultMu) {
		t.Errorf("record before racing: %+v, %v", empty, err)
	}
	g := e.game(a, "classic", 42)
	nr := e.newRace("one", a, b, c)
	nr.Placings[0].GameID = g.ID
	id, err := e.s.RecordRace(e.ctx, nr)
	if err != nil {
		t.Fatalf("RecordRace: %v", err)
	}
	race, err := e.s.Race(e.ctx, id)
	if err != nil {
		t.Fatalf("Race: %v", err)
	}
	if race.Code != "KDXW" || race.RulesID != "classic" || race.DealNumber != 42 || race.Racers != 3 || !race.Rated ||
		race.Verdict != engine.Winnable ||
		!race.Started.Equal(start) || !race.Ended.Equal(start.Add(5*time.Minute)) || len(race.Placings) != 3 {
		t.Fatalf("race %+v", race)
	}
	d := model().New()
	want, _ := model().Rate([]rating.Rating{d, d, d}, []int{1, 2, 3})
	for i, p := range race.Placings {
		np := nr.Placings[i]
		if p.PlayerID != np.PlayerID || p.PlayerName != e.prefix()+[]string{"alice", "bob", "carol"}[i] || p.Place != np.Place ||
			p.Cleared != np.Cleared || p.Removed != np.Removed || p.Moves != np.Moves || p.Time != np.Time || p.GameID != np.GameID ||
			p.Outcome != np.Outcome {
			t.Errorf("placing %d: got %+v, want %+v", i+1, p, np)
		}
		if !nearly(p.Rating.Mu, want[i].Mu) || !nearly(p.Rating.Sigma, want[i].Sigma) || !nearly(p.Rating.Ordinal, want[i].Ordinal()) {
			t.Errorf("placing %d rating %+v, want %v", i+1, p.Rating, want[i])
		}
	}
	rec, err := e.s.RaceRecord(e.ctx, a.ID, "classic")
	if err != nil || rec.Races != 1 || rec.Wins != 1 || rec.Podiums != 1 || rec.Rating.Races != 1 ||
		!nearly(rec.Rating.Mu, want[0].Mu) {
		t.Errorf("alice's record %+v, %v", rec, err)
	}
	// A second race in other rules, where carol wins.
	nr2 := e.newRace("two", c, a)
	nr2.RulesID = "double"
	if _, err := e.s.RecordRace(e.ctx, nr2); err != nil {
		t.Fatal(err)
	}
	recs, err := e.s.RaceRecords(e.ctx, c.ID)
	if err != nil || len(recs) != 2 || recs[0].RulesID != "classic" || recs[1].RulesID != "double" ||
		recs[0].Wins != 0 || recs[0].Podiums != 0 || recs[1].Wins != 1 {
		t.Errorf("carol's records %+v, %v", recs, err)
	}
	if _, err := e.s.Race(e.ctx, id+1000); err == nil {
		t.Error("Race of an unknown ID: no error")
	}
	wantErr(t, "Race of an unknown ID", func() error { _, err := e.s.Race(e.ctx, id+1000); return err }(), store.ErrNotFound)
	// The race a game was raced in.
	of, err := e.s.RaceOfGame(e.ctx, g.ID)
	if err != nil || of.ID != id || len(of.Placings) != 3 || of.Placings[0].GameID != g.ID {
		t.Errorf("RaceOfGame(%d) = %+v, %v; want race %d", g.ID, of, err, id)
	}
	other := e.game(b, "classic", 43)
	wantErr(t, "RaceOfGame of a game in no race", func() error { _, err := e.s.RaceOfGame(e.ctx, other.ID); return err }(), store.ErrNotFound)
}

func testRaceIdempotent(t *testing.T, e *env) {
	a, b := e.racer("alice"), e.racer("bob")
	nr := e.newRace("once", a, b)
	id, err := e.s.RecordRace(e.ctx, nr)
	if err != nil {
		t.Fatal(err)
	}
	again, err := e.s.RecordRace(e.ctx, nr)
	if err != nil || again != id {
		t.Fatalf("second RecordRace = %d, %v; want %d", again, err, id)
	}
	rec, _ := e.s.RaceRecord(e.ctx, a.ID, "classic")
	if rec.Races != 1 || rec.Rating.Races != 1 {
		t.Errorf("after a retry: %+v", rec)
	}
}

// testRaceIdempotentAtOnce: two servers of a cluster store the same race
// at the same moment (a lease holder and the one taking its lease over):
// one race, one rating update, both told its ID.
func testRaceIdempotentAtOnce(t *testing.T, e *env) {
	a, b := e.racer("alice"), e.racer("bob")
	nr := e.newRace("at-once", a, b)
	var wg sync.WaitGroup
	ids := make([]int64, 4)
	errs := make([]error, len(ids))
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i], errs[i] = e.s.RecordRace(e.ctx, nr)
		}()
	}
	wg.Wait()
	for i := range ids {
		if errs[i] != nil || ids[i] != ids[0] {
			t.Fatalf("RecordRace %d at once = %d, %v; want %d", i, ids[i], errs[i], ids[0])
		}
	}
	rec, _ := e.s.RaceRecord(e.ctx, a.ID, "classic")
	if rec.Races != 1 || rec.Rating.Races != 1 {
		t.Errorf("after four writes at once: %+v", rec)
	}
}

func testRaceInvalid(t *testing.T, e *env) {
	a, b := e.racer("alice"), e.racer("bob")
	bobsGame := e.game(b, "classic", 42)
	tests := []struct {
		name string
		edit func(nr *store.NewRace)
	}{
		{"no key", func(nr *store.NewRace) { nr.Key = "" }},
		{"no rules", func(nr *store.NewRace) { nr.RulesID = "" }},
		{"no placings", func(nr *store.NewRace) { nr.Placings = nil }},
		{"nine racers", func(nr *store.NewRace) { nr.Racers = 9 }},
		{"fewer racers than placings", func(nr *store.NewRace) { nr.Racers = 1 }},
		{"twice the same player", func(nr *store.NewRace) { nr.Placings[1].PlayerID = a.ID }},
		{"place 0", func(nr *store.NewRace) { nr.Placings[0].Place = 0 }},
		{"place past the racers", func(nr *store.NewRace) { nr.Placings[1].Place = 3 }},
		{"negative removed", func(nr *store.NewRace) { nr.Placings[1].Removed = -1 }},
		{"ends before it starts", func(nr *store.NewRace) { nr.Ended = nr.Started.Add(-time.Second) }},
		{"another player's game", func(nr *store.NewRace) { nr.Placings[0].GameID = bobsGame.ID }},
		{"a game of other rules", func(nr *store.NewRace) { nr.RulesID = "double"; nr.Placings[1].GameID = bobsGame.ID }},
		{"an unknown game", func(nr *store.NewRace) { nr.Placings[0].GameID = bobsGame.ID + 1000 }},
		{"an unknown outcome", func(nr *store.NewRace) { nr.Placings[1].Outcome = "won" }},
		{"cleared, said stuck", func(nr *store.NewRace) { nr.Placings[0].Outcome = store.OutcomeStuck }},
		{"not cleared, said cleared", func(nr *store.NewRace) { nr.Placings[1].Outcome = store.OutcomeCleared }},
		{"an unknown verdict", func(nr *store.NewRace) { nr.Verdict = engine.Unwinnable + 1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nr := e.newRace("bad", a, b)
			tt.edit(&nr)
			_, err := e.s.RecordRace(e.ctx, nr)
			wantErr(t, "RecordRace", err, store.ErrInvalid)
		})
	}
	rec, err := e.s.RaceRecord(e.ctx, a.ID, "classic")
	if err != nil || rec.Races != 0 || rec.Rating.Races != 0 {
		t.Errorf("refused races left a trace: %+v, %v", rec, err)
	}
}

func testRaceTiesAndGuests(t *testing.T, e *env) {
	a, b, c := e.racer("alice"), e.racer("bob"), e.racer("carol")
	// Alice and bob tie for first; a guest was third; carol fourth.
	nr := e.newRace("tie", a, b, c)
	nr.Racers = 4
	nr.Placings[1].Place = 1
	nr.Placings[2].Place = 4
	if _, err := e.s.RecordRace(e.ctx, nr); err != nil {
		t.Fatal(err)
	}
	ra, _ := e.s.RaceRecord(e.ctx, a.ID, "classic")
	rb, _ := e.s.RaceRecord(e.ctx, b.ID, "classic")
	rc, _ := e.s.RaceRecord(e.ctx, c.ID, "classic")
	if ra.Wins != 1 || rb.Wins != 1 || rc.Podiums != 0 {
		t.Errorf("records %+v %+v %+v", ra, rb, rc)
	}
	if !nearly(ra.Rating.Mu, rb.Rating.Mu) || ra.Rating.Mu <= rating.DefaultMu || rc.Rating.Mu >= rating.DefaultMu {
		t.Errorf("ratings %+v %+v %+v", ra.Rating, rb.Rating, rc.Rating)
	}
	// A race with one registered player (the rest guests) is stored and
	// counts nowhere: guests count for nobody.
	d := e.racer("dave")
	solo := e.newRace("solo", d)
	solo.Racers = 3
	id, err := e.s.RecordRace(e.ctx, solo)
	if err != nil {
		t.Fatal(err)
	}
	race, _ := e.s.Race(e.ctx, id)
	rd, _ := e.s.RaceRecord(e.ctx, d.ID, "classic")
	if len(race.Placings) != 1 || race.Placings[0].Rating != (store.Rating{}) || race.Placings[0].Standing != rating.Aborted ||
		rd.Races != 0 || rd.Wins != 0 || rd.Unrated != 0 || rd.Rating.Races != 0 {
		t.Errorf("solo race %+v, record %+v", race, rd)
	}
}

// testRaceTopRatings: the settled players of a rules ID, best first,
// banned players and provisional ratings left off.
func testRaceTopRatings(t *testing.T, e *env) {
	a, b, c, x := e.racer("alice"), e.racer("bob"), e.racer("carol"), e.racer("xavier")
	y, z := e.racer("yann"), e.racer("zoe")
	// Ten races of six, three a day (the pairs' limit): settled ratings.
	for i := range rating.ProvisionalRaces {
		at := time.Duration(i/3)*25*time.Hour + time.Duration(i%3)*time.Hour
		e.record(e.stuckRace(fmt.Sprint("top", i), at, a, b, c, x, y, z))
	}
	other := e.newRace("other", c, a)
	other.RulesID = "double"
	if _, err := e.s.RecordRace(e.ctx, other); err != nil {
		t.Fatal(err)
	}
	if err := e.s.SetBanned(e.ctx, x.ID, true); err != nil {
		t.Fatal(err)
	}
	top, err := e.s.TopRatings(e.ctx, "classic", 0)
	if err != nil {
		t.Fatal(err)
	}
	// Other subtests' players are in the store too: keep this one's.
	var got []store.RatingEntry
	for _, en := range top {
		if en.PlayerID == a.ID || en.PlayerID == b.ID || en.PlayerID == c.ID || en.PlayerID == x.ID {
			got = append(got, en)
		}
	}
	if len(got) != 3 || got[0].PlayerID != a.ID || got[1].PlayerID != b.ID || got[2].PlayerID != c.ID {
		t.Fatalf("top %+v", got)
	}
	if got[0].Wins != 10 || got[0].Races != 10 || got[0].PlayerName != a.Name || !(got[0].Display > got[1].Display) ||
		got[0].Provisional || !nearly(got[0].Ordinal, got[0].Mu-3*got[0].Sigma) || !(got[0].Rank < got[1].Rank) {
		t.Errorf("first line %+v", got[0])
	}
	if two, _ := e.s.TopRatings(e.ctx, "classic", 2); len(two) != 2 {
		t.Errorf("limit 2: %d lines", len(two))
	}
	// One race in double: provisional, off its list.
	dbl, _ := e.s.TopRatings(e.ctx, "double", 0)
	for _, en := range dbl {
		if en.PlayerID == c.ID || en.PlayerID == a.ID {
			t.Errorf("a provisional rating on the double list: %+v", en)
		}
	}
}

// testRaceConcurrentRatings records races that share a player at the same
// time: no rating update may be lost.
func testRaceConcurrentRatings(t *testing.T, e *env) {
	hub := e.racer("hub")
	const n = 6
	others := make([]store.Player, n)
	for i := range others {
		others[i] = e.racer(fmt.Sprint("p", i))
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	ids := make([]int64, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nr := e.newRace(fmt.Sprint("con", i), hub, others[i])
			if i%2 == 1 {
				nr = e.newRace(fmt.Sprint("con", i), others[i], hub)
			}
			id, err := e.s.RecordRace(e.ctx, nr)
			if err != nil {
				errs <- err
			}
			ids[i] = id
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	rec, err := e.s.RaceRecord(e.ctx, hub.ID, "classic")
	if err != nil || rec.Races != n || rec.Rating.Races != n || rec.Wins != n/2 {
		t.Errorf("hub's record %+v, %v", rec, err)
	}
	// The races were rated one after the other: the hub's σ shrinks with
	// each, so ordering the hub's ratings after each race by σ gives the
	// order they were rated in, and replaying them in that order from a new
	// rating must give every one of them. A lost update shows as two races
	// rated from the same rating.
	type step struct {
		won   bool
		after store.Rating
	}
	var steps []step
	for _, id := range ids {
		race, err := e.s.Race(e.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range race.Placings {
			if p.PlayerID == hub.ID {
				steps = append(steps, step{won: p.Place == 1, after: p.Rating})
			}
		}
	}
	slices.SortFunc(steps, func(a, b step) int { return cmp.Compare(b.after.Sigma, a.after.Sigma) })
	cur := model().New()
	for i, st := range steps {
		ranks := []int{2, 1}
		if st.won {
			ranks = []int{1, 2}
		}
		got, err := model().Rate([]rating.Rating{cur, model().New()}, ranks)
		if err != nil {
			t.Fatal(err)
		}
		cur = got[0]
		if !nearly(cur.Mu, st.after.Mu) || !nearly(cur.Sigma, st.after.Sigma) {
			t.Fatalf("race %d in rating order: hub rated %+v, want %v (a lost update)", i+1, st.after, cur)
		}
	}
	if !nearly(rec.Rating.Mu, cur.Mu) {
		t.Errorf("hub's rating %+v, want %v", rec.Rating, cur)
	}
}

// testRaceUnrated: an unrated race (a chosen deal) keeps its placings and
// changes no rating, no race count, win or podium; the records count it
// apart, and the rating list neither ranks a player by it nor counts its
// wins.
func testRaceUnrated(t *testing.T, e *env) {
	a, b, c := e.racer("alice"), e.racer("bob"), e.racer("carol")
	// One rated race first: bob wins it.
	if _, err := e.s.RecordRace(e.ctx, e.newRace("rated", b, a)); err != nil {
		t.Fatalf("RecordRace rated: %v", err)
	}
	beforeA, _ := e.s.RaceRecord(e.ctx, a.ID, "classic")
	beforeB, _ := e.s.RaceRecord(e.ctx, b.ID, "classic")
	beforeC, _ := e.s.RaceRecord(e.ctx, c.ID, "classic") // never raced
	top, _ := e.s.TopRatings(e.ctx, "classic", 100)

	g := e.game(a, "classic", 42)
	nr := e.newRace("chosen", a, b, c)
	nr.Rated = false
	nr.Placings[0].GameID = g.ID
	id, err := e.s.RecordRace(e.ctx, nr)
	if err != nil {
		t.Fatalf("RecordRace unrated: %v", err)
	}
	race, err := e.s.Race(e.ctx, id)
	if err != nil || race.Rated || len(race.Placings) != 3 || race.Placings[0].PlayerID != a.ID ||
		race.Placings[0].GameID != g.ID || !race.Placings[0].Cleared {
		t.Fatalf("unrated race %+v, %v", race, err)
	}
	for i, p := range race.Placings {
		if p.Rating != (store.Rating{}) {
			t.Errorf("placing %d of an unrated race has a rating %+v", i+1, p.Rating)
		}
	}
	for _, tt := range []struct {
		who    store.Player
		before store.RaceRecord
	}{
		{a, beforeA}, {b, beforeB}, {c, beforeC},
	} {
		rec, err := e.s.RaceRecord(e.ctx, tt.who.ID, "classic")
		if err != nil {
			t.Fatalf("RaceRecord %s: %v", tt.who.Name, err)
		}
		want := tt.before
		want.Unrated++
		if rec != want {
			t.Errorf("%s's record after an unrated race: %+v, want %+v", tt.who.Name, rec, want)
		}
	}
	// carol raced only unrated: her records list the rules, with no
	// rated race and a new player's rating.
	recs, err := e.s.RaceRecords(e.ctx, c.ID)
	if err != nil || len(recs) != 1 || recs[0].Races != 0 || recs[0].Unrated != 1 || recs[0].Rating.Races != 0 {
		t.Errorf("carol's records %+v, %v", recs, err)
	}
	after, err := e.s.TopRatings(e.ctx, "classic", 100)
	if err != nil || !slices.Equal(after, top) {
		t.Errorf("rating list after an unrated race:\n%+v\nwant\n%+v (%v)", after, top, err)
	}
	// Its game still leads to it (share gives the place).
	if of, err := e.s.RaceOfGame(e.ctx, g.ID); err != nil || of.ID != id || of.Rated {
		t.Errorf("RaceOfGame(%d) = %+v, %v", g.ID, of, err)
	}
	// Stored once, as any race.
	if again, err := e.s.RecordRace(e.ctx, nr); err != nil || again != id {
		t.Errorf("second RecordRace = %d, %v; want %d", again, err, id)
	}
}

// testRaceInRoom: a player's newest race in a room code, no older than
// since; nobody else's, and none of another code.
func testRaceInRoom(t *testing.T, e *env) {
	a, b, c := e.racer("alice"), e.racer("bob"), e.racer("carol")
	first := e.newRace("first", a, b)
	first.Verdict = engine.Unknown
	if _, err := e.s.RecordRace(e.ctx, first); err != nil {
		t.Fatalf("RecordRace: %v", err)
	}
	second := e.newRace("second", b, a)
	second.Started, second.Ended = first.Ended.Add(time.Minute), first.Ended.Add(3*time.Minute)
	secondID, err := e.s.RecordRace(e.ctx, second)
	if err != nil {
		t.Fatalf("RecordRace: %v", err)
	}
	other := e.newRace("other", a, c)
	other.Code = "MPQR"
	other.Started, other.Ended = second.Ended, second.Ended.Add(time.Minute)
	if _, err := e.s.RecordRace(e.ctx, other); err != nil {
		t.Fatalf("RecordRace: %v", err)
	}
	race, err := e.s.RaceInRoom(e.ctx, a.ID, "KDXW", first.Started)
	if err != nil || race.ID != secondID || len(race.Placings) != 2 || race.Placings[0].PlayerID != b.ID ||
		race.Verdict != engine.Winnable || race.Placings[1].Outcome != store.OutcomeStuck {
		t.Errorf("RaceInRoom(alice, KDXW) = %+v, %v; want race %d, bob first, alice stuck", race, err, secondID)
	}
	older, err := e.s.RaceInRoom(e.ctx, a.ID, "KDXW", first.Started.Add(-time.Hour))
	if err != nil || older.ID != secondID {
		t.Errorf("RaceInRoom with an earlier since = race %d, %v; want the newest, %d", older.ID, err, secondID)
	}
	_, err = e.s.RaceInRoom(e.ctx, a.ID, "KDXW", second.Ended.Add(time.Second))
	wantErr(t, "RaceInRoom after the room's last race", err, store.ErrNotFound)
	_, err = e.s.RaceInRoom(e.ctx, c.ID, "KDXW", first.Started)
	wantErr(t, "RaceInRoom of a player not placed there", err, store.ErrNotFound)
	_, err = e.s.RaceInRoom(e.ctx, b.ID, "ZZZZ", first.Started)
	wantErr(t, "RaceInRoom of an unknown code", err, store.ErrNotFound)
}
