package storetest

import (
	"testing"

	"pyramid/store"
)

// testGameRaceGamesApart: a race's game and a ghost race's game are
// stored beside the player's unfinished solo game of the same rules (and
// beside each other); the one-per-rules place is the solo game's alone:
// GameInProgress and UnfinishedGame name it, a second solo game is still
// refused, and UnfinishedGames lists them all.
func testGameRaceGamesApart(t *testing.T, e *env) {
	p := e.player("alice")
	solo := e.game(p, "classic", 42)
	race, err := e.s.CreateGame(e.ctx, store.NewGame{PlayerID: p.ID, RulesID: "classic", DealNumber: 42, Owner: "race",
		Practice: true, Kind: store.KindRace})
	if err != nil {
		t.Fatalf("a race game beside a solo game of its rules: %v", err)
	}
	ghost, err := e.s.CreateGame(e.ctx, store.NewGame{PlayerID: p.ID, RulesID: "classic", DealNumber: 42, Owner: "ghost",
		Practice: true, Kind: store.KindGhost})
	if err != nil {
		t.Fatalf("a ghost game beside them: %v", err)
	}
	if race.Kind != store.KindRace || ghost.Kind != store.KindGhost || !race.Practice || !ghost.Practice {
		t.Errorf("kinds %v/%v, practice %v/%v", race.Kind, ghost.Kind, race.Practice, ghost.Practice)
	}
	_, err = e.s.CreateGame(e.ctx, store.NewGame{PlayerID: p.ID, RulesID: "classic", DealNumber: 7, Owner: "s"})
	wantErr(t, "a second solo game", err, store.ErrInProgress)
	if got, err := e.s.GameInProgress(e.ctx, p.ID, "classic"); err != nil || got.ID != solo.ID {
		t.Errorf("GameInProgress = %d, %v; want the solo game %d", got.ID, err, solo.ID)
	}
	if got, err := e.s.UnfinishedGame(e.ctx, p.ID, "classic", 42, ""); err != nil || got.ID != solo.ID {
		t.Errorf("UnfinishedGame(classic, 42) = %d, %v; want the solo game %d", got.ID, err, solo.ID)
	}
	list, err := e.s.UnfinishedGames(e.ctx, p.ID)
	if err != nil || len(list) != 3 {
		t.Errorf("UnfinishedGames: %d games, %v; want 3", len(list), err)
	}
	// With the solo game over, the race game is in no one's place: a new
	// solo game starts, and no other is in progress.
	if err := e.s.SaveGame(e.ctx, solo.ID, "session-A", e.ver(solo.ID), store.State{Status: store.StatusAbandoned}); err != nil {
		t.Fatal(err)
	}
	_, err = e.s.GameInProgress(e.ctx, p.ID, "classic")
	wantErr(t, "GameInProgress beside a race game only", err, store.ErrNotFound)
	e.game(p, "classic", 7)
	// Two race games of the rules at once are fine too (two rooms' rounds
	// never overlap for one player, but the store need not know).
	if _, err := e.s.CreateGame(e.ctx, store.NewGame{PlayerID: p.ID, RulesID: "classic", DealNumber: 43, Owner: "race2",
		Practice: true, Kind: store.KindRace}); err != nil {
		t.Errorf("a second race game: %v", err)
	}
}
