package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"pyramid/rating"
	"pyramid/store"
)

// The rating rules of the races' policy (rating.Decide) as the store
// applies them, run as entries of the race tests.
var ratingTests = []struct {
	name string
	fn   func(t *testing.T, e *env)
}{
	{"AbortedNeverMoved", testRatingAbortedNeverMoved},
	{"FewerThanTwoMovers", testRatingFewerThanTwoMovers},
	{"LeftEmpty", testRatingLeftEmpty},
	{"LastAfterLeavingNoPodium", testRatingLastAfterLeaving},
	{"Assisted", testRatingAssisted},
	{"PairLimit", testRatingPairLimit},
	{"PairLimitAtOnce", testRatingPairLimitAtOnce},
	{"ProvisionalAndHistory", testRatingProvisionalAndHistory},
	{"Void", testRatingVoid},
	{"VoidRace", testRatingVoidRace},
}

// testRatingVoid: a race in which a racer was lost with their server is
// unrated for all who raced, and says so; the race itself was a rated
// room's.
func testRatingVoid(t *testing.T, e *env) {
	a, b := e.racer("alice"), e.racer("bob")
	nr := e.stuckRace("void", 0, a, b)
	nr.Void = true
	race := e.record(nr)
	wantStandings(t, race, "unrated void", "unrated void")
	if !race.Rated {
		t.Errorf("a rated room's void race reads as a chosen deal's: %+v", race)
	}
	if rec := e.recordOf(a); rec.Races != 0 || rec.Unrated != 1 || rec.Rating.Races != 0 {
		t.Errorf("alice's record after a void race: %+v", rec)
	}
}

// stuckRace is e.newRace with every racer but the first stuck (none left
// or out of time), ended at the given offset from the test's start.
func (e *env) stuckRace(key string, at time.Duration, players ...store.Player) store.NewRace {
	nr := e.newRace(key, players...)
	nr.Started, nr.Ended = start.Add(at), start.Add(at+5*time.Minute)
	for i := 1; i < len(nr.Placings); i++ {
		nr.Placings[i].Outcome = store.OutcomeStuck
	}
	return nr
}

// record stores a race, failing the test on an error, and returns it read
// back.
func (e *env) record(nr store.NewRace) store.Race {
	e.t.Helper()
	id, err := e.s.RecordRace(e.ctx, nr)
	if err != nil {
		e.t.Fatalf("RecordRace %s: %v", nr.Key, err)
	}
	race, err := e.s.Race(e.ctx, id)
	if err != nil {
		e.t.Fatalf("Race %d: %v", id, err)
	}
	return race
}

// recordOf is a player's race record in classic.
func (e *env) recordOf(p store.Player) store.RaceRecord {
	e.t.Helper()
	rec, err := e.s.RaceRecord(e.ctx, p.ID, "classic")
	if err != nil {
		e.t.Fatalf("RaceRecord %s: %v", p.Name, err)
	}
	return rec
}

// standing says a placing's standing as "rated", "unrated REASON" or
// "aborted REASON".
func standing(p store.RacePlacing) string {
	if p.Standing == rating.Rated {
		return "rated"
	}
	return p.Standing.String() + " " + string(p.Reason)
}

// wantStandings checks the placings' standings in place order.
func wantStandings(t *testing.T, race store.Race, want ...string) {
	t.Helper()
	for i, p := range race.Placings {
		if got := standing(p); got != want[i] {
			t.Errorf("placing %d (%s): %q, want %q", i+1, p.PlayerName, got, want[i])
		}
		if (p.Standing == rating.Rated) != (p.Rating != store.Rating{}) {
			t.Errorf("placing %d (%s) %s with rating %+v", i+1, p.PlayerName, standing(p), p.Rating)
		}
	}
}

// testRatingAbortedNeverMoved: a racer who never moved is no race for
// them and no opponent for the others, who are rated as a race of two.
func testRatingAbortedNeverMoved(t *testing.T, e *env) {
	a, b, c := e.racer("alice"), e.racer("bob"), e.racer("carol")
	nr := e.stuckRace("idle", 0, a, b, c)
	nr.Placings[2].Moves, nr.Placings[2].Removed = 0, 0
	race := e.record(nr)
	wantStandings(t, race, "rated", "rated", "aborted never-moved")
	d := model().New()
	want, _ := model().Rate([]rating.Rating{d, d}, []int{1, 2})
	if !nearly(race.Placings[0].Rating.Mu, want[0].Mu) || !nearly(race.Placings[1].Rating.Mu, want[1].Mu) {
		t.Errorf("ratings %+v, %+v; want those of a race of two %v", race.Placings[0].Rating, race.Placings[1].Rating, want)
	}
	if rc := e.recordOf(c); rc.Races != 0 || rc.Unrated != 0 || rc.Rating.Races != 0 {
		t.Errorf("carol's record after a race she never moved in: %+v", rc)
	}
	if ra := e.recordOf(a); ra.Races != 1 || ra.Wins != 1 || ra.Podiums != 1 || ra.Rating.Opponents != 1 {
		t.Errorf("alice's record %+v", ra)
	}
}

// testRatingFewerThanTwoMovers: the second-key farm as the store sees it
// (one racer removes a pair, the other never moves) and the guest farm
// (one keyed racer, the others guests) count nowhere.
func testRatingFewerThanTwoMovers(t *testing.T, e *env) {
	ann, dan := e.racer("ann"), e.racer("dan")
	farm := e.stuckRace("farm", 0, ann, dan)
	farm.Placings[0].Cleared, farm.Placings[0].Outcome, farm.Placings[0].Removed, farm.Placings[0].Moves = false, store.OutcomeLeft, 2, 1
	farm.Placings[1].Outcome, farm.Placings[1].Moves, farm.Placings[1].Removed = store.OutcomeLeft, 0, 0
	wantStandings(t, e.record(farm), "aborted few-movers", "aborted never-moved")
	guest := e.stuckRace("guest", time.Hour, ann)
	guest.Racers = 2
	wantStandings(t, e.record(guest), "aborted few-movers")
	for _, p := range []store.Player{ann, dan} {
		if rec := e.recordOf(p); rec.Races != 0 || rec.Wins != 0 || rec.Unrated != 0 || rec.Rating.Races != 0 {
			t.Errorf("%s's record after farming: %+v", p.Name, rec)
		}
		if recs, err := e.s.RaceRecords(e.ctx, p.ID); err != nil || len(recs) != 0 {
			t.Errorf("%s's records after farming: %+v, %v", p.Name, recs, err)
		}
	}
}

// testRatingLeftEmpty: a racer who moved but left before removing a card
// is aborted (no loss, no opponent); who left having removed cards is
// rated, last.
func testRatingLeftEmpty(t *testing.T, e *env) {
	ann, dan, bob := e.racer("ann"), e.racer("dan"), e.racer("bob")
	nr := e.stuckRace("draws", 0, ann, dan)
	nr.Placings[1].Outcome, nr.Placings[1].Moves, nr.Placings[1].Removed = store.OutcomeLeft, 3, 0
	wantStandings(t, e.record(nr), "unrated no-opponent", "aborted left-empty")
	if rec := e.recordOf(ann); rec.Races != 0 || rec.Wins != 0 || rec.Unrated != 1 || rec.Rating.Races != 0 {
		t.Errorf("ann's record after a race against a leaver: %+v", rec)
	}
	three := e.stuckRace("three", time.Hour, ann, bob, dan)
	three.Placings[2].Outcome, three.Placings[2].Removed = store.OutcomeLeft, 4
	race := e.record(three)
	wantStandings(t, race, "rated", "rated", "rated")
	if race.Placings[2].Rating.Mu >= rating.DefaultMu {
		t.Errorf("dan left with cards removed and gained: %+v", race.Placings[2].Rating)
	}
}

// testRatingLastAfterLeaving: coming last of three after leaving is
// neither a win nor a podium; second of three is a podium.
func testRatingLastAfterLeaving(t *testing.T, e *env) {
	a, b, c := e.racer("alice"), e.racer("bob"), e.racer("carol")
	nr := e.stuckRace("last", 0, a, b, c)
	nr.Placings[2].Outcome = store.OutcomeLeft
	race := e.record(nr)
	wantStandings(t, race, "rated", "rated", "rated")
	for i, want := range [][2]bool{{true, true}, {false, true}, {false, false}} {
		if p := race.Placings[i]; p.Win != want[0] || p.Podium != want[1] {
			t.Errorf("%s: win %v podium %v, want %v", p.PlayerName, p.Win, p.Podium, want)
		}
	}
	if rc := e.recordOf(c); rc.Races != 1 || rc.Podiums != 0 || rc.Wins != 0 {
		t.Errorf("carol's record: %+v", rc)
	}
	if rb := e.recordOf(b); rb.Podiums != 1 || rb.Wins != 0 {
		t.Errorf("bob's record: %+v", rb)
	}
}

// testRatingAssisted: an assisted racer keeps their placing, unrated for
// them and no opponent for the others.
func testRatingAssisted(t *testing.T, e *env) {
	a, b, c := e.racer("alice"), e.racer("bob"), e.racer("carol")
	nr := e.stuckRace("fast", 0, a, b, c)
	nr.Placings[0].Assisted = true
	race := e.record(nr)
	wantStandings(t, race, "unrated assisted", "rated", "rated")
	if !race.Placings[0].Assisted || race.Placings[1].Assisted || !race.Placings[1].Win {
		t.Errorf("placings %+v", race.Placings)
	}
	if ra := e.recordOf(a); ra.Races != 0 || ra.Wins != 0 || ra.Unrated != 1 || ra.Rating.Races != 0 {
		t.Errorf("alice's record after an assisted race: %+v", ra)
	}
	if rb := e.recordOf(b); rb.Races != 1 || rb.Wins != 1 || rb.Rating.Opponents != 1 {
		t.Errorf("bob's record: %+v", rb)
	}
	// Against one other racer: nobody is rated.
	two := e.stuckRace("fast-two", time.Hour, a, b)
	two.Placings[0].Assisted = true
	wantStandings(t, e.record(two), "unrated assisted", "unrated no-opponent")
}

// testRatingPairLimit: the same two players are rated against each other
// three times in 24 hours, whatever the rules; the fourth race is unrated
// for both (the lower placed for the pair, the other for want of an
// opponent); a day later they are rated again.
func testRatingPairLimit(t *testing.T, e *env) {
	ann, dan, bob := e.racer("ann"), e.racer("dan"), e.racer("bob")
	for i := range rating.PairLimit {
		nr := e.stuckRace(fmt.Sprint("pair", i), time.Duration(i)*time.Hour, ann, dan)
		if i == 1 {
			nr.RulesID = "double"
		}
		wantStandings(t, e.record(nr), "rated", "rated")
	}
	wantStandings(t, e.record(e.stuckRace("fourth", 4*time.Hour, ann, dan)), "unrated no-opponent", "unrated pair-limit")
	wantStandings(t, e.record(e.stuckRace("reversed", 5*time.Hour, dan, ann)), "unrated no-opponent", "unrated pair-limit")
	// With a third racer, the pair's lower placed is left out; the others
	// are rated.
	wantStandings(t, e.record(e.stuckRace("with-bob", 6*time.Hour, ann, bob, dan)), "rated", "rated", "unrated pair-limit")
	if rec := e.recordOf(ann); rec.Races != 3 || rec.Unrated != 2 || rec.Rating.Races != 3 {
		t.Errorf("ann's classic record: %+v", rec)
	}
	// The window is 24 hours from the first race.
	wantStandings(t, e.record(e.stuckRace("next-day", 24*time.Hour+time.Minute, ann, dan)), "rated", "rated")
}

// testRatingPairLimitAtOnce: two servers record the pair's third and
// fourth races at the same moment: only one of them is rated.
func testRatingPairLimitAtOnce(t *testing.T, e *env) {
	ann, dan := e.racer("ann"), e.racer("dan")
	for i := range rating.PairLimit - 1 {
		e.record(e.stuckRace(fmt.Sprint("pair", i), time.Duration(i)*time.Minute, ann, dan))
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = e.s.RecordRace(e.ctx, e.stuckRace(fmt.Sprint("at-once", i), time.Hour, ann, dan))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if rec := e.recordOf(ann); rec.Races != rating.PairLimit || rec.Rating.Races != rating.PairLimit || rec.Unrated != 3 {
		t.Errorf("ann's record after four races at once: %+v", rec)
	}
}

// testRatingProvisionalAndHistory: a rating is provisional until ten rated
// races against five different opponents, kept off the rating list till
// then; the list's counts are the records'; each race keeps the rating
// before it; the history lists the ratings after each rated race.
func testRatingProvisionalAndHistory(t *testing.T, e *env) {
	var field []store.Player
	for i := range 6 {
		field = append(field, e.racer(fmt.Sprint("p", i)))
	}
	inList := func() map[string]store.RatingEntry {
		top, err := e.s.TopRatings(e.ctx, "classic", 100)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]store.RatingEntry{}
		for _, en := range top {
			m[en.PlayerID] = en
		}
		return m
	}
	// p0 wins every race; 3 races a day keep every pair within its limit.
	var last store.Race
	for i := range rating.ProvisionalRaces {
		at := time.Duration(i/3)*25*time.Hour + time.Duration(i%3)*time.Hour
		order := append([]store.Player{field[0]}, field[1:]...)
		if i%2 == 1 {
			order[1], order[5] = order[5], order[1]
		}
		if i == rating.ProvisionalRaces-1 {
			for _, p := range field {
				if _, ok := inList()[p.ID]; ok {
					t.Errorf("%s on the rating list after %d races", p.Name, i)
				}
				if rec := e.recordOf(p); !rec.Rating.Provisional || rec.Rating.Races != i || rec.Rating.Opponents != 5 {
					t.Errorf("%s's rating after %d races: %+v", p.Name, i, rec.Rating)
				}
			}
		}
		prev := e.recordOf(field[0]).Rating
		last = e.record(e.stuckRace(fmt.Sprint("r", i), at, order...))
		if i > 0 && (!nearly(last.Placings[0].Before.Mu, prev.Mu) || last.Placings[0].Before.Races != i) {
			t.Errorf("race %d: p0's rating before %+v, want %+v", i+1, last.Placings[0].Before, prev)
		}
	}
	list := inList()
	for _, p := range field {
		rec := e.recordOf(p)
		if rec.Rating.Provisional || rec.Rating.Races != rating.ProvisionalRaces {
			t.Errorf("%s's rating after %d races: %+v", p.Name, rating.ProvisionalRaces, rec.Rating)
		}
		en, ok := list[p.ID]
		if !ok {
			t.Errorf("%s not on the rating list", p.Name)
			continue
		}
		if en.Races != rec.Races || en.Wins != rec.Wins || !nearly(en.Display, rec.Rating.Display) {
			t.Errorf("%s: rating list %+v, record %+v", p.Name, en, rec)
		}
	}
	if top := list[field[0].ID]; top.Wins != rating.ProvisionalRaces || top.Display <= rating.DisplayBase {
		t.Errorf("p0 on the list: %+v", top)
	}
	hist, err := e.s.RatingHistory(e.ctx, field[0].ID, "classic", 0)
	if err != nil || len(hist) != rating.ProvisionalRaces {
		t.Fatalf("RatingHistory = %d points, %v", len(hist), err)
	}
	for i := 1; i < len(hist); i++ {
		if !(hist[i].Rating.Mu > hist[i-1].Rating.Mu) || !hist[i].At.After(hist[i-1].At) || hist[i].Rating.Races != i+1 {
			t.Errorf("history point %d %+v after %+v", i, hist[i], hist[i-1])
		}
	}
	if end := hist[len(hist)-1]; !nearly(end.Rating.Mu, last.Placings[0].Rating.Mu) {
		t.Errorf("history ends at %+v, the last race at %+v", end.Rating, last.Placings[0].Rating)
	}
	if two, err := e.s.RatingHistory(e.ctx, field[0].ID, "classic", 2); err != nil || len(two) != 2 ||
		!nearly(two[1].Rating.Mu, hist[len(hist)-1].Rating.Mu) {
		t.Errorf("the last two points: %+v, %v", two, err)
	}
}
