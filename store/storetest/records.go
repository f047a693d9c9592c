package storetest

import (
	"bytes"
	"errors"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"pyramid/store"
)

// playAssisted is play with hints and undos.
func (e *env) playAssisted(p store.Player, rules, daily string, won bool, removed, moves int, elapsed time.Duration, hints, undos int) store.Game {
	e.t.Helper()
	g, err := e.s.CreateGame(e.ctx, store.NewGame{PlayerID: p.ID, RulesID: rules, Daily: daily, Owner: "s"})
	if err != nil {
		e.t.Fatalf("CreateGame: %v", err)
	}
	status := store.StatusLost
	if won {
		status = store.StatusWon
	}
	st := store.State{Status: status, Removed: removed, Elapsed: elapsed, Hints: hints, Undos: undos}
	res := &store.Result{GameID: g.ID, Won: won, Removed: removed, Moves: moves, Elapsed: elapsed}
	if err := e.s.FinishGame(e.ctx, g.ID, "s", e.ver(g.ID), st, res); err != nil {
		e.t.Fatalf("FinishGame: %v", err)
	}
	e.clock.Advance(time.Minute)
	g, err = e.s.Game(e.ctx, g.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return g
}

// testGameAssistance: hints, undos and the watched mark are kept with the
// game and never go down, whatever a save says.
func testGameAssistance(t *testing.T, e *env) {
	p := e.player("alice")
	g := e.game(p, "classic", 1)
	if g.Hints != 0 || g.Undos != 0 || g.Watched || g.Practice {
		t.Fatalf("a new game: %+v, want no assistance, not practice", g)
	}
	save := func(hints, undos int, watched bool) store.Game {
		t.Helper()
		st := store.State{Moves: []string{"d"}, Status: store.StatusPlaying, Hints: hints, Undos: undos, Watched: watched}
		if err := e.s.SaveGame(e.ctx, g.ID, "session-A", e.ver(g.ID), st); err != nil {
			t.Fatal(err)
		}
		got, err := e.s.Game(e.ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := save(2, 3, false); got.Hints != 2 || got.Undos != 3 || got.Watched || !got.Assisted() {
		t.Errorf("after saving 2 hints 3 undos: %+v", got.State)
	}
	if got := save(1, 0, true); got.Hints != 2 || got.Undos != 3 || !got.Watched {
		t.Errorf("after saving lower counts, watched: %+v; want 2 and 3 kept, watched", got.State)
	}
	if got := save(0, 5, false); got.Hints != 2 || got.Undos != 5 || !got.Watched {
		t.Errorf("after saving 5 undos, not watched: %+v; want 2, 5, still watched", got.State)
	}
	wantErr(t, "negative hints", e.s.SaveGame(e.ctx, g.ID, "session-A", e.ver(g.ID), store.State{Status: store.StatusPlaying, Hints: -1}), store.ErrInvalid)
	wantErr(t, "too many undos", e.s.SaveGame(e.ctx, g.ID, "session-A", e.ver(g.ID), store.State{Status: store.StatusPlaying, Undos: store.MaxAssists + 1}), store.ErrInvalid)
}

// testGameInProgress: the one unfinished game of a rules ID, whatever its
// deal.
func testGameInProgress(t *testing.T, e *env) {
	p, q := e.player("alice"), e.player("bob")
	_, err := e.s.GameInProgress(e.ctx, p.ID, "classic")
	wantErr(t, "no game", err, store.ErrNotFound)
	g := e.game(p, "classic", 77)
	e.game(p, "double", 77)
	e.game(q, "classic", 78)
	got, err := e.s.GameInProgress(e.ctx, p.ID, "classic")
	if err != nil || got.ID != g.ID || got.DealNumber != 77 {
		t.Fatalf("GameInProgress = %+v, %v; want game %d", got, err, g.ID)
	}
	if err := e.s.FinishGame(e.ctx, g.ID, "session-A", e.ver(g.ID), store.State{Status: store.StatusAbandoned}, nil); err != nil {
		t.Fatal(err)
	}
	_, err = e.s.GameInProgress(e.ctx, p.ID, "classic")
	wantErr(t, "after it finished", err, store.ErrNotFound)
}

// testAssistedResults: an assisted win counts as a win but sets no record
// and is left off the top lists and the daily board.
func testAssistedResults(t *testing.T, e *env) {
	const day = "2026-03-14"
	alice, bob := e.player("alice"), e.player("bob")
	e.play(alice, "classic", "", true, 28, 50, 5*time.Minute)
	e.playAssisted(alice, "classic", "", true, 28, 30, time.Minute, 2, 0)   // faster, fewer moves, but hinted
	e.playAssisted(alice, "classic", "", true, 28, 31, 2*time.Minute, 0, 1) // one undo
	st, err := e.s.Stats(e.ctx, alice.ID, "classic")
	if err != nil {
		t.Fatal(err)
	}
	if st.Played != 3 || st.Won != 3 || st.AssistedWins != 2 || st.CurrentStreak != 3 {
		t.Errorf("stats = %+v; want 3 played, 3 won, 2 assisted, streak 3", st)
	}
	if st.BestTime != 5*time.Minute || st.FewestMoves != 50 {
		t.Errorf("records = %v, %d moves; want 5m and 50 moves, the unassisted win's", st.BestTime, st.FewestMoves)
	}
	// Bob's only wins are assisted: not on the top lists.
	e.playAssisted(bob, "classic", "", true, 28, 20, time.Second, 1, 1)
	for _, order := range []store.TopOrder{store.TopWins, store.TopTime} {
		top, err := e.s.Top(e.ctx, "classic", order, 10)
		if err != nil || len(top) != 1 || top[0].PlayerName != "alice" || top[0].Won != 1 || top[0].Played != 3 || top[0].BestTime != 5*time.Minute {
			t.Errorf("top %d = %+v, %v; want alice alone, 1 unassisted win of 3, best 5m", order, top, err)
		}
	}
	// The daily board: bob's hinted attempt is his result but not on it.
	e.play(alice, "daily", day, false, 10, 30, 3*time.Minute)
	e.playAssisted(bob, "daily", day, true, 28, 40, 2*time.Minute, 3, 0)
	board, err := e.s.Leaderboard(e.ctx, "daily", day, 10)
	if err != nil || len(board) != 1 || board[0].PlayerName != "alice" {
		t.Fatalf("board = %+v, %v; want alice alone", board, err)
	}
	ds, err := e.s.DailyStanding(e.ctx, bob.ID, "daily", day)
	if err != nil || ds.Rank != 0 || !ds.Assisted || !ds.Won || ds.Players != 1 || ds.Removed != 28 {
		t.Errorf("bob's standing = %+v, %v; want off the board (rank 0), assisted, won, 1 player on the board", ds, err)
	}
	ds, err = e.s.DailyStanding(e.ctx, alice.ID, "daily", day)
	if err != nil || ds.Rank != 1 || ds.Assisted || ds.Players != 1 || ds.PlayerName != "alice" || ds.Elapsed != 3*time.Minute {
		t.Errorf("alice's standing = %+v, %v; want rank 1 of 1", ds, err)
	}
}

// testDailyFirstAttempt: the first finished attempt at a day's deal is
// the result; later games of that deal are practice and record nothing.
// Days in a row make a daily streak.
func testDailyFirstAttempt(t *testing.T, e *env) {
	alice, bob := e.player("alice"), e.player("bob")
	day := func() string { return e.clock.Now().UTC().Format(store.DateFormat) }
	today := day()
	first := e.play(alice, "daily", today, false, 12, 30, 4*time.Minute)
	if first.Practice {
		t.Fatal("the first attempt is practice")
	}
	again := e.playAssisted(alice, "daily", today, true, 28, 40, 2*time.Minute, 0, 0)
	if !again.Practice || again.Status != store.StatusWon {
		t.Errorf("the second attempt: %+v; want a practice game, won", again)
	}
	// A game that was not made practice still records nothing when the
	// day already has a result (a store from before practice games).
	e.play(bob, "daily", today, true, 28, 40, 2*time.Minute)
	st, err := e.s.Stats(e.ctx, alice.ID, "daily")
	if err != nil {
		t.Fatal(err)
	}
	if st.Played != 1 || st.Won != 0 || st.DailyPlayed != 1 || st.DailyWon != 0 || st.BestDailyRemoved != 12 {
		t.Errorf("stats after a replay = %+v; want 1 played, 0 won, 1 day", st)
	}
	ds, err := e.s.DailyStanding(e.ctx, alice.ID, "daily", today)
	if err != nil || ds.GameID != first.ID || ds.Rank != 2 || ds.Players != 2 {
		t.Errorf("standing = %+v, %v; want game %d, rank 2 of 2", ds, err, first.ID)
	}
	_, err = e.s.DailyStanding(e.ctx, alice.ID, "daily", "2026-01-01")
	wantErr(t, "a day not played", err, store.ErrNotFound)
	_, err = e.s.DailyStanding(e.ctx, alice.ID, "daily", "")
	wantErr(t, "no date", err, store.ErrInvalid)
	// Asked for, a game is practice even on the first attempt.
	g, err := e.s.CreateGame(e.ctx, store.NewGame{PlayerID: bob.ID, RulesID: "classic", Owner: "s", Practice: true})
	if err != nil || !g.Practice {
		t.Fatalf("CreateGame(Practice) = %+v, %v", g, err)
	}
	if err := e.s.FinishGame(e.ctx, g.ID, "s", e.ver(g.ID), store.State{Status: store.StatusWon}, &store.Result{GameID: g.ID, Won: true}); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.s.Stats(e.ctx, bob.ID, "classic"); st.Played != 0 {
		t.Errorf("a practice game counted: %+v", st)
	}

	// Days: today, the next two (a run of 3), a gap, then one more.
	for _, skip := range []int{1, 1, 2} {
		e.clock.Advance(time.Duration(skip) * 24 * time.Hour)
		e.play(alice, "daily", day(), true, 28, 40, time.Minute)
	}
	st, _ = e.s.Stats(e.ctx, alice.ID, "daily")
	if st.DailyPlayed != 4 || st.DailyWon != 3 || st.DailyStreak != 1 || st.BestDailyStreak != 3 || st.LastDaily != day() {
		t.Errorf("daily stats = %+v; want 4 days, 3 won, streak 1 (since the gap), best 3, last %s", st, day())
	}
	e.clock.Advance(24 * time.Hour)
	e.play(alice, "daily", day(), false, 3, 40, time.Minute)
	if st, _ = e.s.Stats(e.ctx, alice.ID, "daily"); st.DailyStreak != 2 || st.BestDailyStreak != 3 {
		t.Errorf("after one more day: streak %d best %d, want 2 and 3 (a lost daily still keeps the run of days)", st.DailyStreak, st.BestDailyStreak)
	}
}

// testSettings: a player's settings by name, set, replaced and deleted.
func testSettings(t *testing.T, e *env) {
	p, q := e.player("alice"), e.player("bob")
	got, err := e.s.Settings(e.ctx, p.ID)
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("Settings with none = %v, %v; want an empty map", got, err)
	}
	for _, kv := range [][2]string{{store.SettingKeys, "wasd"}, {store.SettingCards, "letters"}, {store.SettingKeys, "arrows"}, {store.SettingWinnableOnly, "on"}} {
		if err := e.s.SetSetting(e.ctx, p.ID, kv[0], kv[1]); err != nil {
			t.Fatalf("SetSetting(%s, %s): %v", kv[0], kv[1], err)
		}
	}
	if err := e.s.SetSetting(e.ctx, q.ID, store.SettingKeys, "wasd"); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{store.SettingKeys: "arrows", store.SettingCards: "letters", store.SettingWinnableOnly: "on"}
	if got, err := e.s.Settings(e.ctx, p.ID); err != nil || !maps.Equal(got, want) {
		t.Errorf("Settings = %v, %v; want %v", got, err, want)
	}
	if err := e.s.SetSetting(e.ctx, p.ID, store.SettingCards, ""); err != nil {
		t.Fatal(err)
	}
	delete(want, store.SettingCards)
	if got, _ := e.s.Settings(e.ctx, p.ID); !maps.Equal(got, want) {
		t.Errorf("after deleting cards: %v, want %v", got, want)
	}
	for _, tt := range []struct{ name, value string }{
		{"", "x"}, {"Keys", "x"}, {"a b", "x"}, {strings.Repeat("k", store.MaxSettingName+1), "x"},
		{"keys", strings.Repeat("v", store.MaxSettingValue+1)}, {"keys", "a\x1b[2Jb"}, {"keys", "\xff"},
	} {
		wantErr(t, "SetSetting("+tt.name+")", e.s.SetSetting(e.ctx, p.ID, tt.name, tt.value), store.ErrInvalid)
	}
	wantErr(t, "unknown player", e.s.SetSetting(e.ctx, "SHA256:nobody", store.SettingKeys, "wasd"), store.ErrNotFound)
	for i := range store.MaxSettings {
		err := e.s.SetSetting(e.ctx, q.ID, "s-"+strings.Repeat("x", i%3)+string(rune('a'+i%26))+string(rune('a'+i/26)), "1")
		if i < store.MaxSettings-1 && err != nil {
			t.Fatalf("setting %d: %v", i, err)
		}
		if i == store.MaxSettings-1 && !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("setting %d of %d: got %v, want ErrInvalid", i+1, store.MaxSettings, err)
		}
	}
}

// testGameKinds: a game says what it is, so that a race's game, a ghost
// race's and a replay of a daily deal are told apart; every kind but
// solo is practice and records no result.
func testGameKinds(t *testing.T, e *env) {
	ann := e.player("ann")
	today := e.clock.Now().UTC().Format(store.DateFormat)
	first := e.play(ann, "daily", today, false, 12, 30, 4*time.Minute)
	if first.Kind != store.KindSolo || first.Practice {
		t.Errorf("the day's first attempt: kind %q, practice %v; want solo", first.Kind, first.Practice)
	}
	replay := e.play(ann, "daily", today, true, 28, 40, 2*time.Minute)
	if replay.Kind != store.KindReplay || !replay.Practice {
		t.Errorf("a replay of the daily: kind %q, practice %v; want a practice replay", replay.Kind, replay.Practice)
	}
	tests := []struct {
		name string
		ng   store.NewGame
		want store.Kind
	}{
		{"solo", store.NewGame{RulesID: "classic"}, store.KindSolo},
		{"race", store.NewGame{RulesID: "one-pass", Kind: store.KindRace, Practice: true}, store.KindRace},
		{"race without the practice flag", store.NewGame{RulesID: "double", Kind: store.KindRace}, store.KindRace},
		{"ghost", store.NewGame{RulesID: "easy", Kind: store.KindGhost}, store.KindGhost},
		{"practice of before kinds", store.NewGame{RulesID: "draw-three", Practice: true}, store.KindGhost},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ng := tt.ng
			ng.PlayerID, ng.Owner, ng.DealNumber = ann.ID, "s", 7
			g, err := e.s.CreateGame(e.ctx, ng)
			if err != nil {
				t.Fatal(err)
			}
			if g.Kind != tt.want || g.Practice != tt.want.Practice() {
				t.Errorf("created: kind %q, practice %v; want %q", g.Kind, g.Practice, tt.want)
			}
			if err := e.s.FinishGame(e.ctx, g.ID, "s", e.ver(g.ID), store.State{Status: store.StatusWon, Removed: 28},
				&store.Result{GameID: g.ID, Won: true, Removed: 28}); err != nil {
				t.Fatal(err)
			}
			got, err := e.s.Game(e.ctx, g.ID)
			if err != nil || got.Kind != tt.want || got.Practice != tt.want.Practice() {
				t.Fatalf("read back: kind %q, practice %v (%v); want %q", got.Kind, got.Practice, err, tt.want)
			}
			st, err := e.s.Stats(e.ctx, ann.ID, ng.RulesID)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: 0, false: 1}[tt.want.Practice()]; st.Played != want {
				t.Errorf("%s game: %d played, want %d", tt.want, st.Played, want)
			}
		})
	}
	for _, ng := range []store.NewGame{
		{PlayerID: ann.ID, RulesID: "classic", Owner: "s", Kind: "arcade"},
		{PlayerID: ann.ID, RulesID: "classic", Owner: "s", Kind: store.KindSolo, Practice: true},
	} {
		_, err := e.s.CreateGame(e.ctx, ng)
		wantErr(t, "kind "+string(ng.Kind), err, store.ErrInvalid)
	}
}

// playGame finishes a new game ng with the result res (its GameID filled
// in), as a Writer would, and moves the clock on.
func (e *env) playGame(ng store.NewGame, res store.Result) store.Game {
	e.t.Helper()
	ng.Owner = "s"
	g, err := e.s.CreateGame(e.ctx, ng)
	if err != nil {
		e.t.Fatalf("CreateGame: %v", err)
	}
	status := store.StatusLost
	if res.Won {
		status = store.StatusWon
	}
	res.GameID = g.ID
	st := store.State{Status: status, Removed: res.Removed, Elapsed: res.Elapsed}
	if err := e.s.FinishGame(e.ctx, g.ID, "s", e.ver(g.ID), st, &res); err != nil {
		e.t.Fatalf("FinishGame: %v", err)
	}
	e.clock.Advance(time.Minute)
	if g, err = e.s.Game(e.ctx, g.ID); err != nil {
		e.t.Fatal(err)
	}
	return g
}

// testChosenAndFastResults: a game of a deal the player chose is kept as
// chosen and counts as played and won, but sets no record, is on no top
// list and makes no streak; a game whose moves came faster than play sets
// no record either and is left off the daily board.
func testChosenAndFastResults(t *testing.T, e *env) {
	const day = "2026-03-14"
	alice, bob, carol := e.player("alice"), e.player("bob"), e.player("carol")
	e.playGame(store.NewGame{PlayerID: alice.ID, RulesID: "classic", DealNumber: 5}, store.Result{Won: true, Removed: 28, Moves: 50, Elapsed: 5 * time.Minute})
	e.playGame(store.NewGame{PlayerID: alice.ID, RulesID: "classic", DealNumber: 6}, store.Result{Won: false, Removed: 3, Moves: 9, Elapsed: time.Minute})
	chosen := e.playGame(store.NewGame{PlayerID: alice.ID, RulesID: "classic", DealNumber: 602, Chosen: true},
		store.Result{Won: true, Removed: 28, Moves: 30, Elapsed: 3 * time.Second})
	if !chosen.Chosen {
		t.Errorf("a chosen deal's game read back: Chosen false")
	}
	e.playGame(store.NewGame{PlayerID: alice.ID, RulesID: "classic", DealNumber: 7}, store.Result{Won: true, Removed: 28, Moves: 31, Elapsed: 9 * time.Second, Fast: true})
	st, err := e.s.Stats(e.ctx, alice.ID, "classic")
	if err != nil {
		t.Fatal(err)
	}
	if st.Played != 4 || st.Won != 3 || st.AssistedWins != 1 {
		t.Errorf("stats = %+v; want 4 played, 3 won, 1 assisted (the fast one)", st)
	}
	if st.BestTime != 5*time.Minute || st.FewestMoves != 50 {
		t.Errorf("records = %v, %d moves; want 5m and 50 moves: neither the chosen deal's nor the fast game's", st.BestTime, st.FewestMoves)
	}
	// The streak after the loss: the fast win counts (it is a win), the
	// chosen deal's does not.
	if st.CurrentStreak != 1 || st.BestStreak != 1 {
		t.Errorf("streaks = current %d, best %d; want 1 and 1 (the chosen deal's win is no part of one)", st.CurrentStreak, st.BestStreak)
	}
	// Bob's only win is of a chosen deal, carol's came too fast: neither
	// is on the top lists.
	e.playGame(store.NewGame{PlayerID: bob.ID, RulesID: "classic", DealNumber: 602, Chosen: true}, store.Result{Won: true, Removed: 28, Moves: 59, Elapsed: 3 * time.Second})
	e.playGame(store.NewGame{PlayerID: carol.ID, RulesID: "classic", DealNumber: 9}, store.Result{Won: true, Removed: 28, Moves: 59, Elapsed: 4 * time.Second, Fast: true})
	for _, order := range []store.TopOrder{store.TopWins, store.TopTime} {
		top, err := e.s.Top(e.ctx, "classic", order, 10)
		if err != nil || len(top) != 1 || top[0].PlayerName != "alice" || top[0].Won != 1 || top[0].BestTime != 5*time.Minute {
			t.Errorf("top %d = %+v, %v; want alice alone, 1 win that counts, best 5m", order, top, err)
		}
	}
	// The daily board: carol's fast attempt is her result but not on it.
	e.playGame(store.NewGame{PlayerID: alice.ID, RulesID: "daily", Daily: day}, store.Result{Removed: 10, Moves: 30, Elapsed: 3 * time.Minute})
	e.playGame(store.NewGame{PlayerID: carol.ID, RulesID: "daily", Daily: day}, store.Result{Won: true, Removed: 28, Moves: 72, Elapsed: 9 * time.Second, Fast: true})
	board, err := e.s.Leaderboard(e.ctx, "daily", day, 10)
	if err != nil || len(board) != 1 || board[0].PlayerName != "alice" {
		t.Fatalf("board = %+v, %v; want alice alone", board, err)
	}
	ds, err := e.s.DailyStanding(e.ctx, carol.ID, "daily", day)
	if err != nil || ds.Rank != 0 || !ds.Assisted || !ds.Won || ds.Players != 1 {
		t.Errorf("carol's standing = %+v, %v; want off the board (rank 0), assisted, won, 1 player on the board", ds, err)
	}
}

// testDailySecret: the daily deals' secret is made on first use and is the
// same for every caller after, however many ask at once.
func testDailySecret(t *testing.T, e *env) {
	const callers = 8
	got := make([][]byte, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() { got[i], errs[i] = e.s.DailySecret(e.ctx) })
	}
	wg.Wait()
	for i := range callers {
		if errs[i] != nil {
			t.Fatalf("DailySecret, caller %d: %v", i, errs[i])
		}
		if len(got[i]) != store.DailySecretLen || !bytes.Equal(got[i], got[0]) {
			t.Fatalf("DailySecret, caller %d: %x; want %d bytes, the same as caller 0's %x", i, got[i], store.DailySecretLen, got[0])
		}
	}
	if bytes.Equal(got[0], make([]byte, store.DailySecretLen)) {
		t.Errorf("DailySecret is all zeros: not random")
	}
	again, err := e.s.DailySecret(e.ctx)
	if err != nil || !bytes.Equal(again, got[0]) {
		t.Errorf("DailySecret again = %x, %v; want %x, the one made first", again, err, got[0])
	}
}
