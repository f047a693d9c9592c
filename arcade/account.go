package arcade

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"pyramid/engine"
	"pyramid/keys"
	"pyramid/store"
	"pyramid/tui"
)

// account is one session's player's account in the store: tui.Account.
type account struct {
	st     store.Store
	now    func() time.Time
	player string // the session's player, to mark their line on boards
}

var _ tui.Account = (*account)(nil)

// Stats returns the player's figures for every rule set, most played first.
func (a *account) Stats(ctx context.Context, player string) ([]tui.RulesStats, error) {
	all, err := a.st.AllStats(ctx, player)
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	out := make([]tui.RulesStats, 0, len(all))
	for _, s := range all {
		title := s.RulesID
		if r, err := engine.ParseRules(s.RulesID); err == nil {
			title = r.Title()
		}
		best := -1
		if s.DailyPlayed > 0 {
			best = s.BestDailyRemoved
		}
		out = append(out, tui.RulesStats{
			RulesID: s.RulesID, Title: title, Played: s.Played, Won: s.Won,
			CurrentStreak: s.CurrentStreak, BestStreak: s.BestStreak, BestTime: s.BestTime,
			FewestMoves: s.FewestMoves, AvgRemoved: s.AvgRemoved, DailyPlayed: s.DailyPlayed,
			BestDaily: best, BestDailyTime: s.BestDailyTime,
		})
	}
	slices.SortStableFunc(out, func(x, y tui.RulesStats) int { return cmp.Compare(y.Played, x.Played) })
	return out, nil
}

// Board returns a daily board, best first.
func (a *account) Board(ctx context.Context, rulesID, date string, limit int) ([]tui.BoardEntry, error) {
	board, err := a.st.Leaderboard(ctx, rulesID, date, limit)
	if err != nil {
		return nil, fmt.Errorf("daily board: %w", err)
	}
	out := make([]tui.BoardEntry, 0, len(board))
	for _, e := range board {
		out = append(out, tui.BoardEntry{Rank: e.Rank, Name: keys.Clean(e.PlayerName, keys.MaxNameWidth),
			Removed: e.Removed, Time: e.Elapsed, Won: e.Won, You: e.PlayerID == a.player})
	}
	return out, nil
}

// Rename changes the player's display name.
func (a *account) Rename(ctx context.Context, player, name string) (string, error) {
	norm, err := keys.NormalizeName(name)
	if err != nil {
		return "", err
	}
	switch err := a.st.RenamePlayer(ctx, player, norm); {
	case errors.Is(err, store.ErrNameTaken):
		return "", fmt.Errorf("the name %s is taken", norm)
	case err != nil:
		return "", fmt.Errorf("the server could not change the name now, try again: %w", err)
	}
	return norm, nil
}

// LinkCode makes a one-time code that links another key to the player.
func (a *account) LinkCode(ctx context.Context, player string) (string, time.Time, error) {
	code := keys.NewLinkCode(nil)
	expires := a.now().Add(linkValidity)
	if err := a.st.CreateLinkCode(ctx, player, code, expires); err != nil {
		return "", time.Time{}, fmt.Errorf("link code: %w", err)
	}
	return keys.FormatLinkCode(code), expires, nil
}
