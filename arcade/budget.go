package arcade

import (
	"context"
	"errors"

	"pyramid/budget"
	"pyramid/lobby"
	"pyramid/server"
	"pyramid/store"
)

// The budgets (package budget) are this server's: every action that
// costs the server or other players spends from the budget of the
// session's address and of its account (a guest's address only) before
// it is done, and before anything is written.

// newBudgets returns the budgets of cfg, or the defaults when cfg has
// none (a test's arcade).
func newBudgets(cfg Config) *budget.Budgets {
	if cfg.Budgets != nil {
		return cfg.Budgets
	}
	b, err := budget.New(budget.Config{Now: cfg.Now, Logger: cfg.Logger})
	if err != nil {
		panic("arcade: the default budgets: " + err.Error()) // the defaults are checked by the budget package's tests
	}
	return b
}

// BudgetStats returns the budgets' counts of actions allowed and
// refused, by kind, for the server's metrics.
func (a *App) BudgetStats() []budget.Stat { return a.budgets.Stats() }

// who is whose budgets a session of player spends: its address and, for
// a player with an account, the account.
func who(addr string, player lobby.Entrant) budget.Who {
	w := budget.Who{Addr: addr}
	if !player.Guest {
		w.Account = player.ID
	}
	return w
}

// findRoom looks a room up by the code a player typed, within the
// budget of wrong codes: a player whose budget is spent is refused
// whatever the code, a right one too, so that guessing learns nothing
// while refused; a wrong code is spent before the answer is given.
func (a *App) findRoom(w budget.Who, code string) (*lobby.Room, error) {
	if err := a.budgets.Check(budget.WrongCode, w); err != nil {
		return nil, err
	}
	r, err := a.rooms.Find(code)
	if errors.Is(err, lobby.ErrNoRoom) || errors.Is(err, lobby.ErrBadCode) {
		if terr := a.budgets.Take(budget.WrongCode, w); terr != nil {
			return nil, terr // spent by another session meanwhile: no answer
		}
	}
	return r, err
}

// accountBudget refuses a session whose key has no account yet when its
// address has made its budget of accounts (budget.AccountMade): a key
// seen before plays on whatever the budget says. The account is spent
// once it is made (App.player).
func (a *App) accountBudget(ctx context.Context, s *server.Session) error {
	w := budget.Who{Addr: s.AddrKey()}
	if a.budgets.Check(budget.AccountMade, w) == nil {
		return nil
	}
	if _, err := a.cfg.Store.PlayerByKey(ctx, s.Identity); !errors.Is(err, store.ErrNotFound) {
		return nil // a key seen before; or the store's failure, GetOrCreatePlayer's to tell
	}
	return a.budgets.Take(budget.AccountMade, w) // refused: counted and logged
}
