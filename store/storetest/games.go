package storetest

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"pyramid/store"
)

func testGameCreate(t *testing.T, e *env) {
	p := e.player("alice")
	g, err := e.s.CreateGame(e.ctx, store.NewGame{
		PlayerID: p.ID, RulesID: "classic", DealNumber: math.MaxUint64, Daily: "2026-03-14", Owner: "session-A",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := store.Game{
		ID: g.ID, PlayerID: p.ID, RulesID: "classic", DealNumber: math.MaxUint64, Daily: "2026-03-14",
		State:   store.State{Status: store.StatusPlaying},
		Started: start, Updated: start, Version: 1, Owner: "session-A", Kind: store.KindSolo,
	}
	if !reflect.DeepEqual(g, want) {
		t.Errorf("CreateGame = %+v, want %+v", g, want)
	}
	got, err := e.s.Game(e.ctx, g.ID)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Game = %+v, %v, want %+v", got, err, want)
	}
	_, err = e.s.Game(e.ctx, g.ID+1000)
	wantErr(t, "Game(unknown)", err, store.ErrNotFound)

	custom, err := e.s.CreateGame(e.ctx, store.NewGame{PlayerID: p.ID, RulesID: "double", DealText: "AS 2S # …", Owner: "s"})
	if err != nil || custom.DealText != "AS 2S # …" {
		t.Errorf("custom deal game = %+v, %v", custom, err)
	}

	// A game made with its first play (a race's first move).
	play := store.State{Status: store.StatusPlaying, Moves: []string{"d", "1.1+1.2"}, Redo: []string{"d"}, Removed: 2,
		Elapsed: 3 * time.Second, MoveTimes: []time.Duration{time.Second, 2500 * time.Millisecond}}
	raced, err := e.s.CreateGame(e.ctx, store.NewGame{PlayerID: p.ID, RulesID: "classic", DealNumber: 5, Owner: "s",
		Kind: store.KindRace, State: play})
	if err != nil {
		t.Fatal(err)
	}
	got, err = e.s.Game(e.ctx, raced.ID)
	if err != nil || !reflect.DeepEqual(got.State, play) || !reflect.DeepEqual(raced.State, play) || got.Version != 1 {
		t.Errorf("a game made with its play: stored %+v, %v; returned %+v; want %+v at version 1", got, err, raced.State, play)
	}

	for _, bad := range []store.NewGame{
		{PlayerID: p.ID, RulesID: "x", Owner: "s", State: store.State{Status: store.StatusWon}},
		{PlayerID: p.ID, RulesID: "x", Owner: "s", State: store.State{Moves: []string{"no spaces please"}}},
		{PlayerID: p.ID, RulesID: "", Owner: "s"},
		{PlayerID: p.ID, RulesID: "x", Owner: ""},
		{PlayerID: p.ID, RulesID: "x", Owner: "s", Daily: "14/03/2026"},
		{PlayerID: p.ID, RulesID: "x", Owner: "s", DealText: strings.Repeat("A", store.MaxDealText+1)},
	} {
		_, err := e.s.CreateGame(e.ctx, bad)
		wantErr(t, fmt.Sprintf("CreateGame(%+v)", bad), err, store.ErrInvalid)
	}
	_, err = e.s.CreateGame(e.ctx, store.NewGame{PlayerID: "SHA256:nobody", RulesID: "x", Owner: "s"})
	wantErr(t, "CreateGame(unknown player)", err, store.ErrNotFound)
}

func testGameOneUnfinishedPerRules(t *testing.T, e *env) {
	p, q := e.player("alice"), e.player("bob")
	g := e.game(p, "classic", 42)
	_, err := e.s.CreateGame(e.ctx, store.NewGame{PlayerID: p.ID, RulesID: "classic", DealNumber: 7, Owner: "s"})
	wantErr(t, "second unfinished classic game", err, store.ErrInProgress)
	// Other rules, and other players, are fine.
	e.clock.Advance(time.Second)
	d := e.game(p, "double", 42)
	e.game(q, "classic", 42)

	got, err := e.s.UnfinishedGame(e.ctx, p.ID, "classic", 42, "")
	if err != nil || got.ID != g.ID {
		t.Errorf("UnfinishedGame(classic, 42) = %d, %v, want %d", got.ID, err, g.ID)
	}
	_, err = e.s.UnfinishedGame(e.ctx, p.ID, "classic", 43, "")
	wantErr(t, "UnfinishedGame(other deal)", err, store.ErrNotFound)
	latest, err := e.s.LatestUnfinishedGame(e.ctx, p.ID)
	if err != nil || latest.ID != d.ID {
		t.Errorf("LatestUnfinishedGame = %d, %v, want %d", latest.ID, err, d.ID)
	}
	// Playing the classic game makes it the latest.
	e.clock.Advance(time.Second)
	if err := e.s.SaveGame(e.ctx, g.ID, "session-A", e.ver(g.ID), store.State{Moves: []string{"d"}, Status: store.StatusPlaying}); err != nil {
		t.Fatal(err)
	}
	if latest, _ := e.s.LatestUnfinishedGame(e.ctx, p.ID); latest.ID != g.ID {
		t.Errorf("LatestUnfinishedGame = %d, want %d", latest.ID, g.ID)
	}
	// Once it is over a new one may start.
	if err := e.s.SaveGame(e.ctx, g.ID, "session-A", e.ver(g.ID), store.State{Status: store.StatusAbandoned}); err != nil {
		t.Fatal(err)
	}
	e.game(p, "classic", 7)
	_, err = e.s.LatestUnfinishedGame(e.ctx, "SHA256:nobody")
	wantErr(t, "LatestUnfinishedGame(nobody)", err, store.ErrNotFound)
}

func testGameSaveAndLoad(t *testing.T, e *env) {
	p := e.player("alice")
	g := e.game(p, "classic", 42)
	st := store.State{
		Moves:     []string{"d", "7.1+7.2", "w+6.1", "r", "1.1"},
		MoveTimes: []time.Duration{0, 1500 * time.Millisecond, 3 * time.Second, 3 * time.Second, 80*time.Second + 999*time.Millisecond},
		Redo:      []string{"d", "7.3+w"},
		Status:    store.StatusPlaying,
		Removed:   5,
		Elapsed:   83*time.Second + 250*time.Millisecond,
	}
	e.clock.Advance(time.Minute)
	if err := e.s.SaveGame(e.ctx, g.ID, "session-A", e.ver(g.ID), st); err != nil {
		t.Fatal(err)
	}
	got, err := e.s.Game(e.ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.State, st) {
		t.Errorf("state = %+v, want %+v", got.State, st)
	}
	if got.Version != 2 || !got.Updated.Equal(start.Add(time.Minute)) || !got.Finished.IsZero() {
		t.Errorf("version %d updated %v finished %v, want 2, +1m, zero", got.Version, got.Updated, got.Finished)
	}
	// Undo everything: empty lists come back empty.
	if err := e.s.SaveGame(e.ctx, g.ID, "session-A", e.ver(g.ID), store.State{Status: store.StatusPlaying}); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.s.Game(e.ctx, g.ID); len(got.Moves) != 0 || len(got.MoveTimes) != 0 || len(got.Redo) != 0 || got.Version != 3 {
		t.Errorf("after undoing all: %+v", got)
	}
	// Undo drops the times of the moves it takes back; a client that
	// sends fewer times than moves (none at all, for an old game) keeps
	// them that way.
	undone := st
	undone.Moves, undone.MoveTimes = st.Moves[:3], st.MoveTimes[:2]
	if err := e.s.SaveGame(e.ctx, g.ID, "session-A", e.ver(g.ID), undone); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.s.Game(e.ctx, g.ID); !reflect.DeepEqual(got.MoveTimes, undone.MoveTimes) || len(got.Moves) != 3 {
		t.Errorf("after undo: moves %v times %v, want 3 moves, times %v", got.Moves, got.MoveTimes, undone.MoveTimes)
	}
	err = e.s.SaveGame(e.ctx, g.ID+1000, "session-A", e.ver(g.ID+1000), st)
	wantErr(t, "SaveGame(unknown)", err, store.ErrNotFound)
}

func testGameSaveInvalid(t *testing.T, e *env) {
	p := e.player("alice")
	g := e.game(p, "classic", 42)
	long := make([]string, store.MaxMoves+1)
	for i := range long {
		long[i] = "d"
	}
	for name, st := range map[string]store.State{
		"space in move":         {Moves: []string{"d r"}, Status: store.StatusPlaying},
		"empty move":            {Moves: []string{""}, Status: store.StatusPlaying},
		"escape in move":        {Moves: []string{"\x1b[2J"}, Status: store.StatusPlaying},
		"long move":             {Moves: []string{strings.Repeat("1", store.MaxMoveLen+1)}, Status: store.StatusPlaying},
		"too many moves":        {Moves: long, Status: store.StatusPlaying},
		"bad redo":              {Redo: []string{"a\nb"}, Status: store.StatusPlaying},
		"bad status":            {Status: "paused"},
		"negative":              {Status: store.StatusPlaying, Removed: -1},
		"more times than moves": {Moves: []string{"d"}, MoveTimes: []time.Duration{1, 2}, Status: store.StatusPlaying},
		"negative time":         {Moves: []string{"d"}, MoveTimes: []time.Duration{-time.Millisecond}, Status: store.StatusPlaying},
	} {
		wantErr(t, name, e.s.SaveGame(e.ctx, g.ID, "session-A", e.ver(g.ID), st), store.ErrInvalid)
	}
}

func testGameClaim(t *testing.T, e *env) {
	p, q := e.player("alice"), e.player("bob")
	g := e.game(p, "classic", 42)
	one := store.State{Moves: []string{"d"}, Status: store.StatusPlaying}
	if err := e.s.SaveGame(e.ctx, g.ID, "session-A", e.ver(g.ID), one); err != nil {
		t.Fatal(err)
	}
	// Alice connects again from elsewhere: the new session takes over.
	claimed, err := e.s.ClaimGame(e.ctx, g.ID, p.ID, "session-B")
	if err != nil {
		t.Fatal(err)
	}
	if claimed.Owner != "session-B" || !reflect.DeepEqual(claimed.Moves, one.Moves) || claimed.Version != 3 {
		t.Errorf("claimed = %+v", claimed)
	}
	two := store.State{Moves: []string{"d", "d"}, Status: store.StatusPlaying}
	wantErr(t, "old owner saves", e.s.SaveGame(e.ctx, g.ID, "session-A", e.ver(g.ID), two), store.ErrConflict)
	wantErr(t, "old owner finishes", e.s.FinishGame(e.ctx, g.ID, "session-A", e.ver(g.ID), store.State{Status: store.StatusAbandoned}, nil), store.ErrConflict)
	wantErr(t, "new owner saves", e.s.SaveGame(e.ctx, g.ID, "session-B", e.ver(g.ID), two), nil)
	if got, _ := e.s.Game(e.ctx, g.ID); !reflect.DeepEqual(got.Moves, two.Moves) {
		t.Errorf("moves = %v, want %v", got.Moves, two.Moves)
	}
	_, err = e.s.ClaimGame(e.ctx, g.ID, q.ID, "session-C")
	wantErr(t, "bob claims alice's game", err, store.ErrNotFound)
	_, err = e.s.ClaimGame(e.ctx, g.ID+1000, p.ID, "session-C")
	wantErr(t, "claim unknown game", err, store.ErrNotFound)
	if err := e.s.SaveGame(e.ctx, g.ID, "session-B", e.ver(g.ID), store.State{Status: store.StatusLost}); err != nil {
		t.Fatal(err)
	}
	_, err = e.s.ClaimGame(e.ctx, g.ID, p.ID, "session-C")
	wantErr(t, "claim finished game", err, store.ErrFinished)
}

func testGameStaleSave(t *testing.T, e *env) {
	// The stored game is the truth: a save names the version of the game
	// it was made on, and one made on an older version than the stored
	// one is refused, whoever owns the game.
	p := e.player("alice")
	g := e.game(p, "classic", 42)
	one := store.State{Moves: []string{"d"}, MoveTimes: []time.Duration{time.Second}, Status: store.StatusPlaying}
	wantErr(t, "save on version 1", e.s.SaveGame(e.ctx, g.ID, "session-A", 1, one), nil)
	// A copy still at version 1 (a racer's board kept by a server they
	// left) makes another change: refused, and the stored game keeps its
	// move.
	stale := store.State{Moves: []string{"r"}, Status: store.StatusPlaying}
	wantErr(t, "stale save", e.s.SaveGame(e.ctx, g.ID, "session-A", 1, stale), store.ErrStale)
	wantErr(t, "save on a version not yet stored", e.s.SaveGame(e.ctx, g.ID, "session-A", 3, stale), store.ErrStale)
	wantErr(t, "stale finish", e.s.FinishGame(e.ctx, g.ID, "session-A", 1, store.State{Status: store.StatusAbandoned}, nil), store.ErrStale)
	got, err := e.s.Game(e.ctx, g.ID)
	if err != nil || !reflect.DeepEqual(got.State, one) || got.Version != 2 {
		t.Fatalf("after the stale writes: %+v, %v; want the first save's state at version 2", got, err)
	}
	// The same save again (a retry after its answer was lost) changes
	// nothing and is not an error.
	wantErr(t, "retried save", e.s.SaveGame(e.ctx, g.ID, "session-A", 1, one), nil)
	if v := e.ver(g.ID); v != 2 {
		t.Errorf("version after a retried save = %d, want 2", v)
	}
	// A claim counts as a write: a copy made before it is stale even for
	// the new owner, who builds on the version the claim returned.
	claimed, err := e.s.ClaimGame(e.ctx, g.ID, p.ID, "session-B")
	if err != nil || claimed.Version != 3 || !reflect.DeepEqual(claimed.State, one) {
		t.Fatalf("claim = %+v, %v; want the stored game at version 3", claimed, err)
	}
	two := store.State{Moves: []string{"d", "d"}, Status: store.StatusPlaying}
	wantErr(t, "new owner on the version before the claim", e.s.SaveGame(e.ctx, g.ID, "session-B", 2, two), store.ErrStale)
	wantErr(t, "new owner on the claimed version", e.s.SaveGame(e.ctx, g.ID, "session-B", 3, two), nil)
	wantErr(t, "old owner on the newest version", e.s.SaveGame(e.ctx, g.ID, "session-A", 4, two), store.ErrConflict)
	over := store.State{Moves: []string{"d", "d"}, Status: store.StatusAbandoned}
	wantErr(t, "finish on the newest version", e.s.FinishGame(e.ctx, g.ID, "session-B", 4, over, nil), nil)
	wantErr(t, "finish retried", e.s.FinishGame(e.ctx, g.ID, "session-B", 4, over, nil), nil)
	wantErr(t, "save after the finish", e.s.SaveGame(e.ctx, g.ID, "session-B", 5, two), store.ErrFinished)

	// Saves of many games at once, a stale one among them (SQLite's and
	// PostgreSQL's group commits answer each save alone).
	var games []store.Game
	for i := range 8 {
		q := e.racer(fmt.Sprintf("stale%d", i))
		games = append(games, e.game(q, "classic", 7))
	}
	errs := make([]error, len(games))
	var wg sync.WaitGroup
	for i, g := range games {
		version := int64(1)
		if i%3 == 0 {
			version = 7 // a copy that is not the stored game's
		}
		wg.Go(func() { errs[i] = e.s.SaveGame(e.ctx, g.ID, "session-A", version, one) })
	}
	wg.Wait()
	for i, err := range errs {
		want := error(nil)
		if i%3 == 0 {
			want = store.ErrStale
		}
		wantErr(t, fmt.Sprintf("grouped save %d", i), err, want)
	}
}

func testGameOnePerRace(t *testing.T, e *env) {
	// A racer has one game per race, found by the race's key from any
	// server: a second one is refused, whoever tries to make it.
	p, q := e.racer("ann"), e.racer("bob")
	race := e.prefix() + "cluster/ABCD/1/1700000000000"
	g, err := e.s.CreateGame(e.ctx, store.NewGame{PlayerID: p.ID, RulesID: "classic", DealNumber: 9, Owner: "server-1",
		Kind: store.KindRace, Race: race})
	if err != nil || g.Race != race {
		t.Fatalf("race game = %+v, %v", g, err)
	}
	_, err = e.s.CreateGame(e.ctx, store.NewGame{PlayerID: p.ID, RulesID: "classic", DealNumber: 9, Owner: "server-2",
		Kind: store.KindRace, Race: race})
	wantErr(t, "a second game of the race", err, store.ErrExists)
	if _, err := e.s.CreateGame(e.ctx, store.NewGame{PlayerID: q.ID, RulesID: "classic", DealNumber: 9, Owner: "server-2",
		Kind: store.KindRace, Race: race}); err != nil {
		t.Errorf("another racer's game of the race: %v", err)
	}
	if _, err := e.s.CreateGame(e.ctx, store.NewGame{PlayerID: p.ID, RulesID: "classic", DealNumber: 10, Owner: "server-1",
		Kind: store.KindRace, Race: race + "-rematch"}); err != nil {
		t.Errorf("the racer's game of the next race: %v", err)
	}
	got, err := e.s.RaceGame(e.ctx, p.ID, race)
	if err != nil || got.ID != g.ID || got.Race != race || got.Owner != "server-1" {
		t.Errorf("RaceGame = %+v, %v, want game %d", got, err, g.ID)
	}
	_, err = e.s.RaceGame(e.ctx, p.ID, race+"-other")
	wantErr(t, "RaceGame(no such race)", err, store.ErrNotFound)
	_, err = e.s.RaceGame(e.ctx, p.ID, "")
	wantErr(t, "RaceGame(no key)", err, store.ErrNotFound)
	// Finished, it is still the race's game.
	if err := e.s.FinishGame(e.ctx, g.ID, "server-1", g.Version, store.State{Status: store.StatusAbandoned}, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := e.s.RaceGame(e.ctx, p.ID, race); err != nil || got.ID != g.ID || got.Status != store.StatusAbandoned {
		t.Errorf("RaceGame of a finished game = %+v, %v", got, err)
	}
	_, err = e.s.CreateGame(e.ctx, store.NewGame{PlayerID: p.ID, RulesID: "classic", DealNumber: 9, Owner: "server-2",
		Kind: store.KindRace, Race: race})
	wantErr(t, "a second game of a race whose first is over", err, store.ErrExists)
	// Only a race's game names a race.
	_, err = e.s.CreateGame(e.ctx, store.NewGame{PlayerID: p.ID, RulesID: "double", Owner: "s", Race: race})
	wantErr(t, "a solo game with a race key", err, store.ErrInvalid)
}

func testGameClaimRace(t *testing.T, e *env) {
	// Two sessions claim the same game at once, then both save: exactly
	// one save lands, the other is told it lost the game.
	p := e.player("alice")
	g := e.game(p, "classic", 42)
	for round := range 10 {
		owners := []string{fmt.Sprintf("r%d-x", round), fmt.Sprintf("r%d-y", round)}
		var wg sync.WaitGroup
		claimErrs := make([]error, 2)
		for i, o := range owners {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, claimErrs[i] = e.s.ClaimGame(e.ctx, g.ID, p.ID, o)
			}()
		}
		wg.Wait()
		for _, err := range claimErrs {
			wantErr(t, "claim", err, nil)
		}
		saveErrs := make([]error, 2)
		for i, o := range owners {
			wg.Add(1)
			go func() {
				defer wg.Done()
				saveErrs[i] = e.s.SaveGame(e.ctx, g.ID, o, e.ver(g.ID), store.State{Moves: []string{"d"}, Status: store.StatusPlaying})
			}()
		}
		wg.Wait()
		ok, conflict := 0, 0
		for _, err := range saveErrs {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, store.ErrConflict):
				conflict++
			default:
				t.Fatalf("save: %v", err)
			}
		}
		if ok != 1 || conflict != 1 {
			t.Fatalf("round %d: %d saves landed and %d conflicted, want 1 and 1", round, ok, conflict)
		}
	}
}

func testGameFinish(t *testing.T, e *env) {
	p := e.player("alice")
	g := e.game(p, "classic", 42)
	e.clock.Advance(3 * time.Minute)
	final := store.State{Moves: []string{"7.1+7.2", "d"}, Status: store.StatusWon, Removed: 28, Elapsed: 3 * time.Minute}
	wantErr(t, "finish as playing", e.s.FinishGame(e.ctx, g.ID, "session-A", e.ver(g.ID), store.State{Status: store.StatusPlaying}, nil), store.ErrInvalid)
	wantErr(t, "finish with a lost result for a won game",
		e.s.FinishGame(e.ctx, g.ID, "session-A", e.ver(g.ID), final, &store.Result{GameID: g.ID, Won: false}), store.ErrInvalid)
	res := &store.Result{GameID: g.ID, Won: true, Removed: 28, Moves: 2, Elapsed: 3 * time.Minute}
	if err := e.s.FinishGame(e.ctx, g.ID, "session-A", e.ver(g.ID), final, res); err != nil {
		t.Fatal(err)
	}
	got, err := e.s.Game(e.ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != store.StatusWon || !got.Finished.Equal(start.Add(3*time.Minute)) || got.Removed != 28 {
		t.Errorf("finished game = %+v", got)
	}
	wantErr(t, "save after finish", e.s.SaveGame(e.ctx, g.ID, "session-A", e.ver(g.ID), final), store.ErrFinished)
	wantErr(t, "finish twice", e.s.FinishGame(e.ctx, g.ID, "session-A", e.ver(g.ID), final, res), store.ErrFinished)
	st, err := e.s.Stats(e.ctx, p.ID, "classic")
	if err != nil || st.Played != 1 || st.Won != 1 {
		t.Errorf("Stats = %+v, %v, want 1 played 1 won", st, err)
	}
	_, err = e.s.UnfinishedGame(e.ctx, p.ID, "classic", 42, "")
	wantErr(t, "UnfinishedGame after finish", err, store.ErrNotFound)
}

func testGameList(t *testing.T, e *env) {
	p, q := e.player("alice"), e.player("bob")
	var ids []int64
	for i := range 5 {
		g := e.game(p, "classic", uint64(i))
		if err := e.s.SaveGame(e.ctx, g.ID, "session-A", e.ver(g.ID), store.State{Status: store.StatusLost}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, g.ID)
		e.game(q, fmt.Sprintf("rules-%d", i), 0)
	}
	page1, err := e.s.ListGames(e.ctx, p.ID, store.Page{Limit: 3})
	if err != nil || len(page1) != 3 {
		t.Fatalf("page 1 = %d games, %v", len(page1), err)
	}
	page2, err := e.s.ListGames(e.ctx, p.ID, store.Page{Limit: 3, Before: page1[2].ID})
	if err != nil || len(page2) != 2 {
		t.Fatalf("page 2 = %d games, %v", len(page2), err)
	}
	var got []int64
	for _, g := range append(page1, page2...) {
		if g.PlayerID != p.ID {
			t.Errorf("game %d of %s listed for alice", g.ID, g.PlayerID)
		}
		got = append(got, g.ID)
	}
	want := []int64{ids[4], ids[3], ids[2], ids[1], ids[0]}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got games %v, want %v (newest first)", got, want)
	}
	none, err := e.s.ListGames(e.ctx, "SHA256:nobody", store.Page{})
	if err != nil || len(none) != 0 {
		t.Errorf("ListGames(nobody) = %v, %v", none, err)
	}
}

// testGameUnfinishedPastAPage: an unfinished game older than a whole page
// of finished games is still listed by UnfinishedGames (the menu's
// Continue used to miss it, and then every save of a new game with its
// rules failed).
func testGameUnfinishedPastAPage(t *testing.T, e *env) {
	p, q := e.player("alice"), e.player("bob")
	old := e.game(p, "classic", 42)
	e.clock.Advance(time.Second)
	other := e.game(p, "double", 7)
	e.game(q, "classic", 1) // another player's: never listed for alice
	for i := range store.MaxListLimit + 5 {
		e.clock.Advance(time.Second)
		g := e.game(p, "easy", uint64(i))
		if err := e.s.SaveGame(e.ctx, g.ID, "session-A", e.ver(g.ID), store.State{Status: store.StatusLost}); err != nil {
			t.Fatal(err)
		}
	}
	page, err := e.s.ListGames(e.ctx, p.ID, store.Page{})
	if err != nil || len(page) != store.MaxListLimit {
		t.Fatalf("ListGames = %d games, %v; want a full page", len(page), err)
	}
	for _, g := range page {
		if g.ID == old.ID || g.ID == other.ID {
			t.Fatalf("the test's premise is wrong: game %d is on the first page", g.ID)
		}
	}
	ids := func() []int64 {
		t.Helper()
		list, err := e.s.UnfinishedGames(e.ctx, p.ID)
		if err != nil {
			t.Fatalf("UnfinishedGames: %v", err)
		}
		var ids []int64
		for _, g := range list {
			if g.Status != store.StatusPlaying || g.PlayerID != p.ID {
				t.Errorf("UnfinishedGames lists game %d: %s of %s", g.ID, g.Status, g.PlayerID)
			}
			ids = append(ids, g.ID)
		}
		return ids
	}
	if got, want := ids(), []int64{other.ID, old.ID}; !reflect.DeepEqual(got, want) {
		t.Errorf("UnfinishedGames = %v, want %v (most recently played first)", got, want)
	}
	// Playing the old game makes it the most recent.
	e.clock.Advance(time.Second)
	if err := e.s.SaveGame(e.ctx, old.ID, "session-A", e.ver(old.ID), store.State{Moves: []string{"d"}, Status: store.StatusPlaying}); err != nil {
		t.Fatal(err)
	}
	if got, want := ids(), []int64{old.ID, other.ID}; !reflect.DeepEqual(got, want) {
		t.Errorf("after a move in game %d: UnfinishedGames = %v, want %v", old.ID, got, want)
	}
	// Once it is over, it is not listed, and a new game of its rules starts.
	if err := e.s.SaveGame(e.ctx, old.ID, "session-A", e.ver(old.ID), store.State{Status: store.StatusAbandoned}); err != nil {
		t.Fatal(err)
	}
	if got, want := ids(), []int64{other.ID}; !reflect.DeepEqual(got, want) {
		t.Errorf("after abandoning game %d: UnfinishedGames = %v, want %v", old.ID, got, want)
	}
	e.game(p, "classic", 43)
	none, err := e.s.UnfinishedGames(e.ctx, "SHA256:nobody")
	if err != nil || len(none) != 0 {
		t.Errorf("UnfinishedGames(nobody) = %v, %v; want none", none, err)
	}
}

func testGameConcurrentSaves(t *testing.T, e *env) {
	// Many sessions, each saving moves of its own game, all at once: every
	// save lands and nobody sees "database is locked".
	const players, moves = 32, 10
	games := make([]store.Game, players)
	for i := range games {
		games[i] = e.game(e.player(fmt.Sprintf("p%02d", i)), "classic", uint64(i))
	}
	var wg sync.WaitGroup
	errs := make(chan error, players*moves)
	for _, g := range games {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var st store.State
			st.Status = store.StatusPlaying
			for range moves {
				st.Moves = append(st.Moves, "d")
				if err := e.s.SaveGame(e.ctx, g.ID, "session-A", e.ver(g.ID), st); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("save: %v", err)
	}
	for _, g := range games {
		got, err := e.s.Game(e.ctx, g.ID)
		if err != nil || len(got.Moves) != moves || got.Version != moves+1 {
			t.Errorf("game %d: %d moves, version %d, %v", g.ID, len(got.Moves), got.Version, err)
		}
	}
}

func testGameConcurrentSaveAnswers(t *testing.T, e *env) {
	// Saves made at once (stored together where the store groups them)
	// each keep their own answer: a game claimed by another session, a
	// finished game and an unknown one refuse theirs; the others are
	// stored with their own state, assistance counts never going down,
	// a finishing save stamped; one game saved twice at once on the same
	// version with the same state (a retry) takes it once, both told so.
	const n = 48
	games := make([]store.Game, n)
	for i := range games {
		games[i] = e.game(e.player(fmt.Sprintf("a%02d", i)), "classic", uint64(i))
	}
	claimed, finished, twice := games[1], games[2], games[3]
	if _, err := e.s.ClaimGame(e.ctx, claimed.ID, claimed.PlayerID, "session-B"); err != nil {
		t.Fatal(err)
	}
	if err := e.s.FinishGame(e.ctx, finished.ID, "session-A", e.ver(finished.ID), store.State{Status: store.StatusAbandoned}, nil); err != nil {
		t.Fatal(err)
	}
	// games[4] has had hints: a save with fewer keeps them.
	if err := e.s.SaveGame(e.ctx, games[4].ID, "session-A", e.ver(games[4].ID), store.State{Status: store.StatusPlaying, Hints: 5}); err != nil {
		t.Fatal(err)
	}
	type save struct {
		id   int64
		st   store.State
		want error
	}
	state := func(i int) store.State {
		st := store.State{Status: store.StatusPlaying, Moves: []string{"d", fmt.Sprintf("%d.1", i%7+1)}, Removed: i % 28,
			Elapsed: time.Duration(i) * time.Second, Hints: i % 3, Undos: i % 2, Watched: i%5 == 0,
			MoveTimes: []time.Duration{time.Duration(i) * time.Millisecond}}
		if i%9 == 8 {
			st.Status = store.StatusLost
		}
		return st
	}
	saves := []save{{id: games[0].ID + 10_000, st: state(0), want: store.ErrNotFound}}
	for i, g := range games {
		var want error
		switch g.ID {
		case claimed.ID:
			want = store.ErrConflict
		case finished.ID:
			want = store.ErrFinished
		}
		saves = append(saves, save{id: g.ID, st: state(i), want: want})
	}
	saves = append(saves, save{id: twice.ID, st: state(3)})
	errs := make([]error, len(saves))
	var wg sync.WaitGroup
	versions := make([]int64, len(saves))
	for i, sv := range saves {
		versions[i] = e.ver(sv.id)
	}
	for i, sv := range saves {
		wg.Go(func() { errs[i] = e.s.SaveGame(e.ctx, sv.id, "session-A", versions[i], sv.st) })
	}
	wg.Wait()
	for i, sv := range saves {
		wantErr(t, fmt.Sprintf("save %d of game %d", i, sv.id), errs[i], sv.want)
	}
	for i, g := range games {
		got, err := e.s.Game(e.ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := state(i)
		switch g.ID {
		case claimed.ID, finished.ID:
			if len(got.Moves) != 0 {
				t.Errorf("game %d (refused) has moves %v", g.ID, got.Moves)
			}
			continue
		case games[4].ID:
			want.Hints = 5
		}
		if !reflect.DeepEqual(got.State, want) {
			t.Errorf("game %d: state %+v, want %+v", g.ID, got.State, want)
		}
		versions := int64(2)
		if g.ID == games[4].ID {
			versions = 3
		}
		if got.Version != versions {
			t.Errorf("game %d: version %d, want %d", g.ID, got.Version, versions)
		}
		if got.Status.Finished() != !got.Finished.IsZero() {
			t.Errorf("game %d: status %s, finished at %v", g.ID, got.Status, got.Finished)
		}
	}
}
