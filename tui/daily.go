package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"
)

// The menu's Daily item says when today's daily deal is done: the
// account's stats say so at the start of the session, and a daily game
// finished in the session says so at once.

// dailyTodayMsg brings whether the player finished today's daily deal,
// and its place on today's board (0: not on it).
type dailyTodayMsg struct {
	done          bool
	rank, players int
}

// dailyTodayer is implemented by an Account that says whether today's
// daily deal is done in one question (arcade's does): every session
// asks at its start, and the player's whole stats are more.
type dailyTodayer interface {
	DailyToday(ctx context.Context, player, rulesID string) (done bool, rank, players int, err error)
}

// loadDailyToday asks the account, in a command, whether today's daily
// deal is done, for the menu; nil without an account.
func (e *env) loadDailyToday() tea.Cmd {
	if !e.accounts() {
		return nil
	}
	acc, player, ctx := e.account, e.player.ID, e.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, loadTimeout)
		defer cancel()
		if dt, ok := acc.(dailyTodayer); ok {
			done, rank, players, err := dt.DailyToday(ctx, player, leadersRules)
			if err != nil || !done {
				return nil
			}
			return dailyTodayMsg{done: true, rank: rank, players: players}
		}
		st, err := acc.Stats(ctx, player)
		if err != nil {
			return nil // the item just does not say
		}
		for _, r := range st {
			if r.RulesID == "daily" && r.DailyToday {
				return dailyTodayMsg{done: true, rank: r.TodayRank, players: r.TodayPlayers}
			}
		}
		return nil
	}
}

// dailyRules is what the table says of today's daily before its first
// move: what keeps the game off today's board, or that the board has the
// player's result already.
func (m *Model) dailyRules(t *tableScreen) string {
	if m.menu().daily.done {
		return "today's daily is done: this game is practice, for no board"
	}
	return "A hint takes you off today's board" + t.env.gl.sep + "undo takes back removals only"
}

// dailyRecorded marks the Daily item done once a save finished the
// day's first attempt at today's daily deal.
func (m *Model) dailyRecorded(t *tableScreen, r SaveResult) {
	finished := r.Status == StatusWon || r.Status == StatusLost || r.Status == StatusAbandoned
	if t.day == "" || t.day != m.today() || !finished || r.Practice || !t.game.Rules().Daily {
		return
	}
	m.menu().setDailyDone(dailyTodayMsg{done: true, rank: r.DailyRank, players: r.DailyPlayers})
}
