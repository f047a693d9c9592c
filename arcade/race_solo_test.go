package arcade

import (
	"context"
	"testing"
	"time"

	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/store"
	"pyramid/store/storetest"
	"pyramid/tui"
)

// TestRaceWinIsNotASoloWin: a racer who clears the pyramid wins the race,
// which stats' race lines count, but their race game counts as no solo
// game (played, won, best time, streak), on both databases.
func TestRaceWinIsNotASoloWin(t *testing.T) {
	for _, db := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"sqlite", func(*testing.T) string { return "" }},
		{"postgres", func(t *testing.T) string { return storetest.PostgresSchemaURL(t) }},
	} {
		t.Run(db.name, func(t *testing.T) {
			f := newFixtureDB(t, db.url(t))
			ctx := context.Background()
			rec := winningRecord(t)
			ann, _ := f.racer(t, "ann", false)
			bob, _ := f.racer(t, "bob", false)
			code, room := startRace(t, f, tui.RoomOptions{Rules: engine.Classic(), Deal: rec.Deal, HasDeal: true}, ann, bob)
			playLine(t, ann, code, 1, rec)
			// bob plays too: a race nobody else moved in counts for nobody.
			playLine(t, bob, code, 1, removeOne(t, engine.Classic(), rec.Deal))
			if err := bob.Leave(code); err != nil {
				t.Fatal(err)
			}
			waitPhase(t, room, lobby.PhaseResults)

			var recs []store.RaceRecord
			deadline := time.Now().Add(10 * time.Second)
			for len(recs) == 0 && time.Now().Before(deadline) {
				recs, _ = f.st.RaceRecords(ctx, ann.me.ID)
				time.Sleep(10 * time.Millisecond)
			}
			if len(recs) != 1 || recs[0].Unrated != 1 {
				t.Fatalf("ann's race records: %+v, want one race (unrated: its deal was chosen)", recs)
			}
			games, err := f.st.ListGames(ctx, ann.me.ID, store.Page{})
			if err != nil || len(games) != 1 || games[0].Status != store.StatusWon || !games[0].Practice {
				t.Fatalf("ann's games: %+v (%v), want her race game, won, stored as practice", games, err)
			}
			for _, rs := range []*races{ann, bob} {
				st, err := f.st.Stats(ctx, rs.me.ID, engine.Classic().ID())
				if err != nil {
					t.Fatal(err)
				}
				if st.Played != 0 || st.Won != 0 || st.BestTime != 0 || st.CurrentStreak != 0 || st.BestStreak != 0 {
					t.Errorf("%s's solo stats count the race: %+v", rs.me.Name, st)
				}
			}
		})
	}
}
