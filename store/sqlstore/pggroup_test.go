package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"pyramid/store"
)

// holdPGBatches takes every place of a batch in flight, so that saves
// queue up, until the function it returns lets them go.
func holdPGBatches(s *Store) (release func()) {
	for range pgInFlight {
		s.pgGate <- struct{}{}
	}
	return func() {
		for range pgInFlight {
			<-s.pgGate
		}
	}
}

// TestPGGroupCommit: on PostgreSQL, saves that queue behind the batch in
// flight are stored by one statement, each with its own answer: a game
// claimed by another owner refuses its save, a game saved twice takes
// both in order, the others are stored.
func TestPGGroupCommit(t *testing.T) {
	s := openPostgres(t, time.Now)
	ctx := context.Background()
	games := groupGames(t, s, 40)
	release := holdPGBatches(s) // batches in flight: the saves queue
	type save struct {
		id      int64
		owner   string
		version int64
		moves   []string
		want    error
	}
	saves := []save{{id: games[0].ID, owner: "someone else", version: 1, moves: []string{"d"}, want: store.ErrConflict}}
	for i, g := range games[1:] {
		saves = append(saves, save{id: g.ID, owner: "o", version: 1, moves: []string{"d", fmt.Sprint(i + 1)}})
	}
	// The second save of games[1] is queued after its first, and builds
	// on it.
	saves = append(saves, save{id: games[1].ID, owner: "o", version: 2, moves: []string{"d", "1", "r"}})
	errs := make([]error, len(saves))
	var wg sync.WaitGroup
	for i, sv := range saves[:len(saves)-1] {
		wg.Go(func() {
			errs[i] = s.SaveGame(ctx, sv.id, sv.owner, sv.version, store.State{Status: store.StatusPlaying, Moves: sv.moves})
		})
	}
	waitQueued(t, s, len(saves)-1)
	last := len(saves) - 1
	wg.Go(func() {
		errs[last] = s.SaveGame(ctx, saves[last].id, "o", saves[last].version, store.State{Status: store.StatusPlaying, Moves: saves[last].moves})
	})
	waitQueued(t, s, len(saves))
	release()
	wg.Wait()
	for i, sv := range saves {
		if !errors.Is(errs[i], sv.want) && (sv.want != nil || errs[i] != nil) {
			t.Errorf("save %d of game %d: got %v, want %v", i, sv.id, errs[i], sv.want)
		}
	}
	if txs, n := s.saves.counts(); txs != 1 || n != len(saves) {
		t.Errorf("%d batches held %d saves, want 1 holding %d", txs, n, len(saves))
	}
	for i, g := range games {
		got, err := s.Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		want, version := fmt.Sprint([]string{"d", fmt.Sprint(i)}), int64(2)
		switch i {
		case 0:
			want, version = "[]", 1
		case 1:
			want, version = "[d 1 r]", 3
		}
		if fmt.Sprint(got.Moves) != want || got.Version != version {
			t.Errorf("game %d: moves %v version %d, want %s version %d", i, got.Moves, got.Version, want, version)
		}
	}
}

// TestPGGroupCommitFailure: a batch whose statement fails is tried one
// save at a time, so each save gets its own answer.
func TestPGGroupCommitFailure(t *testing.T) {
	s := openPostgres(t, time.Now)
	ctx := context.Background()
	games := groupGames(t, s, 3)
	release := holdPGBatches(s)
	errs := make([]error, len(games))
	var wg sync.WaitGroup
	for i, g := range games {
		wg.Go(func() {
			st := store.State{Status: store.StatusPlaying, Moves: []string{"d"}}
			args := saveArgs(g.ID, "o", g.Version, st, time.Now())
			if i == 1 {
				args[0] = 7 // not a string: the batch cannot be built
			}
			errs[i] = s.pgGroupSave(ctx, g.ID, "o", args)
		})
	}
	waitQueued(t, s, len(games))
	release()
	wg.Wait()
	if errs[0] != nil || errs[2] != nil {
		t.Errorf("good saves: %v, %v", errs[0], errs[2])
	}
	if errs[1] == nil {
		t.Error("the bad save was stored")
	}
	for _, i := range []int{0, 2} {
		if got, err := s.Game(ctx, games[i].ID); err != nil || len(got.Moves) != 1 {
			t.Errorf("game %d: %v, %v", i, got.Moves, err)
		}
	}
}
