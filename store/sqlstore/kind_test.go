package sqlstore

import (
	"context"
	"strings"
	"testing"
	"time"

	"pyramid/store"
)

// TestGameKindBackfill: migration 0007 gives the games stored before it
// their kind: a game placed in a race is the race's, a practice game of
// a daily deal a replay, any other practice game a ghost race's; the
// rest are solo. Both dialects.
func TestGameKindBackfill(t *testing.T) {
	for _, tc := range []struct {
		name string
		open func(t *testing.T) *Store
	}{
		{"sqlite", func(t *testing.T) *Store { return openSQLite(t, time.Now) }},
		{"postgres", func(t *testing.T) *Store {
			if testing.Short() {
				t.Skip("short")
			}
			return openPostgres(t, time.Now)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.open(t)
			ctx := context.Background()
			p, _, err := s.GetOrCreatePlayer(ctx, "SHA256:ann", "ann")
			if err != nil {
				t.Fatal(err)
			}
			mk := func(ng store.NewGame) int64 {
				ng.PlayerID, ng.Owner = p.ID, "s"
				g, err := s.CreateGame(ctx, ng)
				if err != nil {
					t.Fatal(err)
				}
				if err := s.FinishGame(ctx, g.ID, "s", g.Version, store.State{Status: store.StatusLost}, nil); err != nil {
					t.Fatal(err)
				}
				return g.ID
			}
			solo := mk(store.NewGame{RulesID: "classic", DealNumber: 1})
			replay := mk(store.NewGame{RulesID: "daily", Daily: "2026-03-01", Practice: true, Kind: store.KindReplay})
			race := mk(store.NewGame{RulesID: "classic", DealNumber: 2, Practice: true, Kind: store.KindRace})
			ghost := mk(store.NewGame{RulesID: "classic", DealNumber: 3, Practice: true, Kind: store.KindGhost})
			if _, err := s.RecordRace(ctx, store.NewRace{Key: "k", Code: "ABCD", RulesID: "classic", DealNumber: 2,
				Started: time.Now(), Ended: time.Now(), Racers: 1,
				Placings: []store.RacePlacing{{PlayerID: p.ID, Place: 1, GameID: race}}}); err != nil {
				t.Fatal(err)
			}
			// As they were before the migration: every game solo.
			if _, err := s.w.ExecContext(ctx, `UPDATE games SET kind = 'solo'`); err != nil {
				t.Fatal(err)
			}
			body, err := migrationFiles.ReadFile("migrations/0007_game_kind_" + s.dialect.String() + ".up.sql")
			if err != nil {
				t.Fatal(err)
			}
			_, backfill, ok := strings.Cut(string(body), "'ghost'));")
			backfill, _, ok2 := strings.Cut(backfill, "CREATE INDEX")
			if !ok || !ok2 {
				t.Fatal("migration 0007: no ALTER TABLE to cut after, or no index to cut before")
			}
			if _, err := s.w.ExecContext(ctx, backfill); err != nil {
				t.Fatalf("the backfill: %v", err)
			}
			for id, want := range map[int64]store.Kind{solo: store.KindSolo, replay: store.KindReplay, race: store.KindRace, ghost: store.KindGhost} {
				g, err := s.Game(ctx, id)
				if err != nil || g.Kind != want {
					t.Errorf("game %d: kind %q (%v), want %q", id, g.Kind, err, want)
				}
			}
		})
	}
}
