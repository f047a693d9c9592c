package sqlstore

import (
	"context"
	"math"
	"testing"
	"time"

	"pyramid/rating"
	"pyramid/store"
)

// TestRatingModelIsConfigured: the store rates a race by the model it is
// given (Config.Rating), in the transaction that records the race, and a
// new player's rating is that model's; by default, rating.Races().
func TestRatingModelIsConfigured(t *testing.T) {
	ctx := context.Background()
	race := func(s *Store) (winner store.Rating, newcomer store.Rating) {
		t.Helper()
		var ids []string
		for _, n := range []string{"ann", "bob"} {
			p, _, err := s.GetOrCreatePlayer(ctx, "SHA256:"+n, n)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, p.ID)
		}
		now := time.Now()
		if _, err := s.RecordRace(ctx, store.NewRace{Key: "k", Code: "ABCD", RulesID: "classic", Started: now, Ended: now,
			Racers: 2, Rated: true, Placings: []store.RacePlacing{
				{PlayerID: ids[0], Place: 1, Removed: 28, Cleared: true, Outcome: store.OutcomeCleared},
				{PlayerID: ids[1], Place: 2, Removed: 3, Outcome: store.OutcomeStuck},
			}}); err != nil {
			t.Fatal(err)
		}
		rec, err := s.RaceRecord(ctx, ids[0], "classic")
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := s.RaceRecord(ctx, "SHA256:nobody", "classic")
		if err != nil {
			t.Fatal(err)
		}
		return rec.Rating, fresh.Rating
	}
	def, defNew := race(openSQLite(t, time.Now))
	m := rating.Races()
	want := m.New()
	if math.Abs(defNew.Mu-want.Mu) > 1e-9 || math.Abs(defNew.Sigma-want.Sigma) > 1e-9 {
		t.Errorf("a new player's rating by default: %+v, want rating.Races()'s %+v", defNew, want)
	}
	m.Mu, m.Sigma = 1000, 100
	custom, err := OpenConfig(ctx, Config{DataDir: t.TempDir(), Rating: &m})
	if err != nil {
		t.Fatal(err)
	}
	defer custom.Close()
	got, gotNew := race(custom)
	if gotNew.Mu != 1000 || gotNew.Sigma != 100 {
		t.Errorf("a new player's rating by the model given: %+v, want μ 1000, σ 100", gotNew)
	}
	if got.Mu < 1000 || def.Mu > 100 {
		t.Errorf("the winner's μ: %v by the model given, %v by default; want above 1000 and about 25", got.Mu, def.Mu)
	}
}
