package storetest

import (
	"reflect"
	"testing"
	"time"

	"pyramid/store"
)

// play starts and finishes a game of p with a result, dated by the clock,
// and moves the clock on a minute.
func (e *env) play(p store.Player, rules, daily string, won bool, removed, moves int, elapsed time.Duration) store.Game {
	e.t.Helper()
	g, err := e.s.CreateGame(e.ctx, store.NewGame{PlayerID: p.ID, RulesID: rules, Daily: daily, Owner: "s"})
	if err != nil {
		e.t.Fatalf("CreateGame: %v", err)
	}
	status := store.StatusLost
	if won {
		status = store.StatusWon
	}
	st := store.State{Status: status, Removed: removed, Elapsed: elapsed}
	res := &store.Result{GameID: g.ID, Won: won, Removed: removed, Moves: moves, Elapsed: elapsed}
	if err := e.s.FinishGame(e.ctx, g.ID, "s", e.ver(g.ID), st, res); err != nil {
		e.t.Fatalf("FinishGame: %v", err)
	}
	e.clock.Advance(time.Minute)
	return g
}

func testResultRecord(t *testing.T, e *env) {
	p := e.player("alice")
	g := e.game(p, "classic", 1)
	res := store.Result{GameID: g.ID, Won: false, Removed: 10, Moves: 30, Elapsed: time.Minute}
	wantErr(t, "record for an unfinished game", e.s.RecordResult(e.ctx, res), store.ErrInvalid)
	if err := e.s.FinishGame(e.ctx, g.ID, "session-A", e.ver(g.ID), store.State{Status: store.StatusAbandoned, Removed: 10}, nil); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "record a win for an abandoned game", e.s.RecordResult(e.ctx, store.Result{GameID: g.ID, Won: true}), store.ErrInvalid)
	wantErr(t, "record", e.s.RecordResult(e.ctx, res), nil)
	// A retry is harmless: the game still counts once.
	wantErr(t, "record again", e.s.RecordResult(e.ctx, res), nil)
	wantErr(t, "record for an unknown game", e.s.RecordResult(e.ctx, store.Result{GameID: g.ID + 1000}), store.ErrNotFound)
	st, err := e.s.Stats(e.ctx, p.ID, "classic")
	if err != nil || st.Played != 1 || st.Won != 0 || st.AvgRemoved != 10 {
		t.Errorf("Stats = %+v, %v", st, err)
	}
}

func testStats(t *testing.T, e *env) {
	p, q := e.player("alice"), e.player("bob")
	empty, err := e.s.Stats(e.ctx, p.ID, "classic")
	if err != nil || !reflect.DeepEqual(empty, store.Stats{RulesID: "classic"}) {
		t.Errorf("Stats with no games = %+v, %v", empty, err)
	}
	// W W L W W W L W W: best streak 3, current 2.
	plays := []struct {
		won     bool
		removed int
		moves   int
		elapsed time.Duration
	}{
		{true, 28, 40, 5 * time.Minute},
		{true, 28, 35, 4 * time.Minute},
		{false, 10, 50, 9 * time.Minute},
		{true, 28, 33, 6 * time.Minute},
		{true, 28, 38, 3 * time.Minute},
		{true, 28, 41, 7 * time.Minute},
		{false, 4, 12, 2 * time.Minute},
		{true, 28, 39, 8 * time.Minute},
		{true, 28, 36, 5 * time.Minute},
	}
	for _, pl := range plays {
		e.play(p, "classic", "", pl.won, pl.removed, pl.moves, pl.elapsed)
	}
	// Results of other rules and other players do not count.
	e.play(p, "double", "", false, 3, 10, time.Minute)
	e.play(q, "classic", "", true, 28, 20, time.Minute)

	got, err := e.s.Stats(e.ctx, p.ID, "classic")
	if err != nil {
		t.Fatal(err)
	}
	want := store.Stats{
		RulesID: "classic", Played: 9, Won: 7, CurrentStreak: 2, BestStreak: 3,
		BestTime: 3 * time.Minute, FewestMoves: 33, AvgRemoved: float64(7*28+10+4) / 9,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Stats = %+v\nwant %+v", got, want)
	}
	if r := got.WinRate(); r != 7.0/9 {
		t.Errorf("WinRate = %v, want %v", r, 7.0/9)
	}
	all, err := e.s.AllStats(e.ctx, p.ID)
	if err != nil || len(all) != 2 || all[0].RulesID != "classic" || all[1].RulesID != "double" || all[1].Played != 1 {
		t.Errorf("AllStats = %+v, %v", all, err)
	}
	// A loss last makes the current streak 0.
	e.play(p, "classic", "", false, 0, 1, time.Second)
	if got, _ := e.s.Stats(e.ctx, p.ID, "classic"); got.CurrentStreak != 0 || got.BestStreak != 3 {
		t.Errorf("after a loss: current %d best %d, want 0 3", got.CurrentStreak, got.BestStreak)
	}
}

func testDailyLeaderboard(t *testing.T, e *env) {
	const day, nextDay = "2026-03-14", "2026-03-15"
	alice, bob, carol, dave, eve := e.player("alice"), e.player("bob"), e.player("carol"), e.player("dave"), e.player("eve")
	// Alice's first attempt is a poor one; her better second does not count.
	e.play(alice, "classic", day, false, 12, 30, 4*time.Minute)
	e.play(alice, "classic", day, true, 28, 40, 2*time.Minute)
	e.play(bob, "classic", day, true, 28, 45, 5*time.Minute)
	e.play(carol, "classic", day, true, 28, 41, 3*time.Minute)
	e.play(dave, "classic", day, false, 12, 22, 4*time.Minute) // ties with alice
	e.play(eve, "classic", day, true, 28, 30, time.Minute)     // banned below
	e.play(bob, "classic", nextDay, true, 28, 45, 9*time.Minute)
	e.play(carol, "double", day, true, 52, 80, 9*time.Minute)
	if err := e.s.SetBanned(e.ctx, eve.ID, true); err != nil {
		t.Fatal(err)
	}

	board, err := e.s.Leaderboard(e.ctx, "classic", day, 10)
	if err != nil {
		t.Fatal(err)
	}
	type line struct {
		rank    int
		name    string
		removed int
		elapsed time.Duration
	}
	var got []line
	for _, b := range board {
		got = append(got, line{b.Rank, b.PlayerName, b.Removed, b.Elapsed})
	}
	want := []line{
		{1, "carol", 28, 3 * time.Minute},
		{2, "bob", 28, 5 * time.Minute},
		{3, "alice", 12, 4 * time.Minute}, // finished before dave
		{3, "dave", 12, 4 * time.Minute},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("leaderboard = %+v\nwant %+v", got, want)
	}
	if b := board[0]; !b.Won || b.Moves != 41 || b.PlayerID != carol.ID {
		t.Errorf("first line = %+v", b)
	}
	if top2, _ := e.s.Leaderboard(e.ctx, "classic", day, 2); len(top2) != 2 {
		t.Errorf("limit 2 gave %d lines", len(top2))
	}
	if none, err := e.s.Leaderboard(e.ctx, "classic", "2020-01-01", 10); err != nil || len(none) != 0 {
		t.Errorf("empty day = %v, %v", none, err)
	}
	// Games that were not a daily deal have no board.
	e.play(bob, "classic", "", true, 28, 10, time.Second)
	_, err = e.s.Leaderboard(e.ctx, "classic", "", 10)
	wantErr(t, "leaderboard without a date", err, store.ErrInvalid)

	st, err := e.s.Stats(e.ctx, bob.ID, "classic")
	if err != nil || st.DailyPlayed != 2 || st.BestDailyRemoved != 28 || st.BestDailyTime != 5*time.Minute {
		t.Errorf("bob's daily stats = %+v, %v; want 2 days, best 28 in 5m", st, err)
	}
	st, _ = e.s.Stats(e.ctx, alice.ID, "classic")
	if st.DailyPlayed != 1 || st.BestDailyRemoved != 12 {
		t.Errorf("alice's daily stats = %+v; want 1 day, best 12 (her first attempt)", st)
	}
}

// testDailyClockRunsAway: a daily win's time on the board runs from the
// deal, whether the game was on the screen or not (the play time is
// kept with the game): a player who saw the deal and closed the terminal
// to solve it elsewhere finds the time away counted. Other wins keep
// their play time.
func testDailyClockRunsAway(t *testing.T, e *env) {
	const day = "2026-03-14"
	alice, bob := e.player("alice"), e.player("bob")
	finish := func(p store.Player, daily string, away time.Duration) store.Game {
		g, err := e.s.CreateGame(e.ctx, store.NewGame{PlayerID: p.ID, RulesID: "classic", Daily: daily, Owner: "s"})
		if err != nil {
			t.Fatalf("CreateGame: %v", err)
		}
		e.clock.Advance(away)
		st := store.State{Status: store.StatusWon, Removed: 28, Elapsed: 2 * time.Minute}
		if err := e.s.FinishGame(e.ctx, g.ID, "s", e.ver(g.ID), st, &store.Result{GameID: g.ID, Won: true, Removed: 28, Moves: 30, Elapsed: 2 * time.Minute}); err != nil {
			t.Fatalf("FinishGame: %v", err)
		}
		g, err = e.s.Game(e.ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	g := finish(alice, day, time.Hour)
	finish(bob, day, time.Minute) // a store's clock behind the play time: the play time stands
	if g.Elapsed != 2*time.Minute {
		t.Errorf("the game's play time %v, want 2m", g.Elapsed)
	}
	board, err := e.s.Leaderboard(e.ctx, "classic", day, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(board) != 2 || board[0].PlayerName != "bob" || board[0].Elapsed != 2*time.Minute ||
		board[1].PlayerName != "alice" || board[1].Elapsed != time.Hour {
		t.Errorf("board %+v, want bob in 2m, then alice in 1h", board)
	}
	finish(alice, "", time.Hour)
	if st, err := e.s.Stats(e.ctx, alice.ID, "classic"); err != nil || st.BestTime != 2*time.Minute {
		t.Errorf("alice's best time outside the daily %v, %v; want the play time, 2m", st.BestTime, err)
	}
}

func testTop(t *testing.T, e *env) {
	alice, bob, carol, dave := e.player("alice"), e.player("bob"), e.player("carol"), e.player("dave")
	for range 3 {
		e.play(alice, "classic", "", true, 28, 40, 6*time.Minute)
	}
	e.play(alice, "classic", "", false, 10, 40, time.Minute)
	e.play(bob, "classic", "", true, 28, 40, 2*time.Minute)
	e.play(bob, "classic", "", true, 28, 40, 4*time.Minute)
	e.play(carol, "classic", "", true, 28, 40, 2*time.Minute)
	e.play(carol, "classic", "", true, 28, 40, 3*time.Minute)
	e.play(dave, "classic", "", false, 3, 10, time.Minute) // no win: not listed
	e.play(dave, "double", "", true, 52, 90, time.Minute)

	names := func(top []store.TopEntry) (out []string) {
		for _, e := range top {
			out = append(out, e.PlayerName)
		}
		return out
	}
	ranks := func(top []store.TopEntry) (out []int) {
		for _, e := range top {
			out = append(out, e.Rank)
		}
		return out
	}
	wins, err := e.s.Top(e.ctx, "classic", store.TopWins, 10)
	if err != nil {
		t.Fatal(err)
	}
	// Bob and carol tie (2 of 2, best 2m): a shared rank, listed by ID.
	if got, want := names(wins), []string{"alice", "bob", "carol"}; !reflect.DeepEqual(got, want) {
		t.Errorf("top by wins = %v, want %v", got, want)
	}
	if got, want := ranks(wins), []int{1, 2, 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("ranks by wins = %v, want %v", got, want)
	}
	if w := wins[0]; w.Won != 3 || w.Played != 4 || w.BestTime != 6*time.Minute || w.PlayerID != alice.ID {
		t.Errorf("alice's line = %+v", w)
	}
	times, err := e.s.Top(e.ctx, "classic", store.TopTime, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(times), []string{"bob", "carol", "alice"}; !reflect.DeepEqual(got, want) {
		t.Errorf("top by time = %v, want %v", got, want)
	}
	if got, want := ranks(times), []int{1, 1, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("ranks by time = %v, want %v", got, want)
	}
	if err := e.s.SetBanned(e.ctx, alice.ID, true); err != nil {
		t.Fatal(err)
	}
	if wins, _ := e.s.Top(e.ctx, "classic", store.TopWins, 1); len(wins) != 1 || wins[0].PlayerName != "bob" {
		t.Errorf("top 1 without banned alice = %v", names(wins))
	}
	_, err = e.s.Top(e.ctx, "classic", store.TopOrder(9), 10)
	wantErr(t, "unknown order", err, store.ErrInvalid)
}
