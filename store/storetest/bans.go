package storetest

import (
	"strings"
	"testing"
	"time"

	"pyramid/store"
)

// testPlayerBanTerms: a ban keeps its terms (until when, why); a timed
// ban holds until its end and is lifted at the player's first sight
// after it; a ban for good stays; unbanning clears the terms.
func testPlayerBanTerms(t *testing.T, e *env) {
	p := e.player("mallory")
	until := start.Add(time.Hour)
	wantErr(t, "timed ban", e.s.Ban(e.ctx, p.ID, until, "cheating"), nil)
	got, _, err := e.s.GetOrCreatePlayer(e.ctx, p.ID, "mallory")
	if err != nil || !got.Banned || !got.BannedUntil.Equal(until) || got.BanReason != "cheating" {
		t.Fatalf("timed ban = %+v, %v; want banned until %v for cheating", got, err, until)
	}
	_, err = e.s.CreateGame(e.ctx, store.NewGame{PlayerID: p.ID, RulesID: "classic", Owner: "s"})
	wantErr(t, "banned player starts a game", err, store.ErrBanned)

	e.clock.Advance(59 * time.Minute)
	if got, _, _ := e.s.GetOrCreatePlayer(e.ctx, p.ID, "mallory"); !got.Banned {
		t.Errorf("a minute before its end: %+v, want still banned", got)
	}
	e.clock.Advance(time.Minute)
	got, _, err = e.s.GetOrCreatePlayer(e.ctx, p.ID, "mallory")
	if err != nil || got.Banned || !got.BannedUntil.IsZero() || got.BanReason != "" {
		t.Fatalf("at its end: %+v, %v; want the ban lifted", got, err)
	}
	if got, _ := e.s.Player(e.ctx, p.ID); got.Banned {
		t.Errorf("the lifted ban is not stored: %+v", got)
	}
	if _, err := e.s.CreateGame(e.ctx, store.NewGame{PlayerID: p.ID, RulesID: "classic", Owner: "s"}); err != nil {
		t.Errorf("a game after the ban ended: %v", err)
	}

	wantErr(t, "ban for good", e.s.Ban(e.ctx, p.ID, time.Time{}, "spam"), nil)
	e.clock.Advance(1000 * time.Hour)
	got, _, _ = e.s.GetOrCreatePlayer(e.ctx, p.ID, "mallory")
	if !got.Banned || !got.BannedUntil.IsZero() || got.BanReason != "spam" {
		t.Errorf("ban for good = %+v, want banned for spam with no end", got)
	}
	if byName, _ := e.s.PlayerByName(e.ctx, "Mallory"); byName.BanReason != "spam" {
		t.Errorf("PlayerByName = %+v, want the ban's reason", byName)
	}
	wantErr(t, "unban", e.s.SetBanned(e.ctx, p.ID, false), nil)
	if got, _ := e.s.Player(e.ctx, p.ID); got.Banned || got.BanReason != "" {
		t.Errorf("after unban: %+v, want no ban and no reason", got)
	}
	wantErr(t, "ban with a huge reason", e.s.Ban(e.ctx, p.ID, time.Time{}, strings.Repeat("x", 5000)), store.ErrInvalid)
	wantErr(t, "ban unknown", e.s.Ban(e.ctx, "SHA256:nobody", time.Time{}, ""), store.ErrNotFound)
}

// testEndedBanBackOnBoards: a player under a timed ban is off the boards
// (top, the daily board and its standing) while it holds, and back on
// them once it ends, without connecting (the ban is lifted lazily, at
// their next sight).
func testEndedBanBackOnBoards(t *testing.T, e *env) {
	p, other := e.player("mallory"), e.player("olga")
	day := start.UTC().Format(time.DateOnly)
	e.play(p, "classic", day, true, 28, 40, 3*time.Minute)
	e.play(other, "classic", day, true, 28, 40, 5*time.Minute)
	on := func(what string) (top, board bool, standing int) {
		t.Helper()
		list, err := e.s.Top(e.ctx, "classic", store.TopWins, 10)
		if err != nil {
			t.Fatalf("%s: top: %v", what, err)
		}
		for _, x := range list {
			top = top || x.PlayerID == p.ID
		}
		b, err := e.s.Leaderboard(e.ctx, "classic", day, 10)
		if err != nil {
			t.Fatalf("%s: board: %v", what, err)
		}
		for _, x := range b {
			board = board || x.PlayerID == p.ID
		}
		ds, err := e.s.DailyStanding(e.ctx, p.ID, "classic", day)
		if err != nil {
			t.Fatalf("%s: standing: %v", what, err)
		}
		return top, board, ds.Rank
	}
	if top, board, rank := on("before"); !top || !board || rank != 1 {
		t.Fatalf("before the ban: top %v, board %v, rank %d; want on both, first", top, board, rank)
	}
	wantErr(t, "timed ban", e.s.Ban(e.ctx, p.ID, e.clock.Now().Add(time.Hour), "cheating"), nil)
	if top, board, rank := on("banned"); top || board || rank != 0 {
		t.Errorf("banned: top %v, board %v, rank %d; want off both", top, board, rank)
	}
	e.clock.Advance(time.Hour)
	if top, board, rank := on("after"); !top || !board || rank != 1 {
		t.Errorf("the ban over, not connected since: top %v, board %v, rank %d; want back on both, first", top, board, rank)
	}
}
