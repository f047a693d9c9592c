package arcade

import (
	"context"
	"strconv"
	"time"

	"pyramid/engine"
	"pyramid/tui"
)

// parTimeout bounds the wait for a daily deal's par in `top daily`: the
// par is worked out once and kept, so a later call answers at once.
const parTimeout = 5 * time.Second

// dailyPar returns ", par P" for the daily deal of r on date
// (time.DateOnly), or "" when the solver does not know it in time.
func (c *call) dailyPar(r engine.Rules, date string) string {
	a, ok := c.a.cfg.Solver.(tui.Analyst)
	if !ok {
		return ""
	}
	day, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(c.ctx, parTimeout)
	defer cancel()
	n, err := c.a.cfg.Solver.DailyDeal(ctx, r, day)
	if err != nil {
		return ""
	}
	p, err := a.Par(ctx, r, engine.NewDeal(n, r.Decks))
	if err != nil {
		return ""
	}
	return ", par " + strconv.Itoa(p) + " (the shortest winning line)"
}
