package arcade

import (
	"context"
	"errors"
	"fmt"

	"pyramid/store"
	"pyramid/tui"
)

// withRecords adds to a rule set's figures what the win screen, the
// stats screen and the menu say beside them: assisted wins, the daily
// days in a row (0 once a day was missed) and today's daily result with
// its rank.
func (a *account) withRecords(ctx context.Context, player string, s store.Stats, rs tui.RulesStats) tui.RulesStats {
	rs.AssistedWins, rs.DailyWon, rs.BestDailyStreak = s.AssistedWins, s.DailyWon, s.BestDailyStreak
	now := a.now().UTC()
	today, yesterday := now.Format(store.DateFormat), now.AddDate(0, 0, -1).Format(store.DateFormat)
	if s.LastDaily == today || s.LastDaily == yesterday {
		rs.DailyStreak = s.DailyStreak
	}
	if s.LastDaily == today {
		rs.DailyToday = true
		if ds, err := a.st.DailyStanding(ctx, player, s.RulesID, today); err == nil {
			rs.TodayRank, rs.TodayPlayers = ds.Rank, ds.Players
		}
	}
	return rs
}

// DailyToday reports whether the player has finished today's (UTC) daily
// deal of a rule set, for the menu's "done today", and that result's
// place on today's board (0 when it is not on it: assisted) of how many.
func (a *account) DailyToday(ctx context.Context, player, rulesID string) (done bool, rank, players int, err error) {
	ds, err := a.st.DailyStanding(ctx, player, rulesID, a.now().UTC().Format(store.DateFormat))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return false, 0, 0, nil
	case err != nil:
		return false, 0, 0, fmt.Errorf("today's daily: %w", err)
	}
	return true, ds.Rank, ds.Players, nil
}
