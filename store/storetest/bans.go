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
