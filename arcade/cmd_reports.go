package arcade

import (
	"errors"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"pyramid/budget"
	"pyramid/store"
)

// reportsPerDay is how many reports a player may make in 24 hours.
const reportsPerDay = 5

// report reports a player to the admins (report NAME REASON).
func (c *call) report() int {
	args, code, ok := c.flags(64, func(*flag.FlagSet) {})
	if !ok {
		return code
	}
	if len(args) < 2 {
		return c.usageErr("report needs the player's name and why (report NAME REASON)")
	}
	p, ok := c.target(args[0])
	if !ok {
		return 1
	}
	if p.ID == c.player {
		return c.fail("you cannot report yourself")
	}
	why := reason(args[1:])
	// The address's budget too: the store's limit is the account's.
	if err := c.a.budgets.Take(budget.Report, budget.Who{Addr: c.s.AddrKey(), Account: c.player}); err != nil {
		return c.fail(err.Error())
	}
	ctx, cancel := c.timeout()
	defer cancel()
	_, err := c.a.cfg.Store.AddReport(ctx, store.Report{Reporter: c.player, Reported: p.ID, Reason: why}, reportsPerDay)
	switch {
	case errors.Is(err, store.ErrLimit):
		return c.fail(fmt.Sprintf("you have made %d reports in the last 24 hours: the admins have them; you may report again tomorrow", reportsPerDay))
	case err != nil:
		return c.storeErr("report", err)
	}
	c.a.cfg.Logger.Info("report", "by", c.player, "player", p.ID, "reason", why)
	fmt.Fprintf(c.stdout, "reported %s to the admins: %s\n", playerName(p.Name), why)
	return 0
}

// reportJSON is one report of reports --json.
type reportJSON struct {
	ID       int64     `json:"id"`
	At       time.Time `json:"at"`
	By       string    `json:"by"`
	ByID     string    `json:"by_id"`
	Player   string    `json:"player"`
	PlayerID string    `json:"player_id"`
	Reason   string    `json:"reason"`
}

// reports lists the players' reports, newest first, for the admins.
func (c *call) reports() int {
	var asJSON bool
	limit := auditLimit
	if _, code, ok := c.flags(0, func(fs *flag.FlagSet) {
		jsonFlag(&asJSON)(fs)
		fs.IntVar(&limit, "limit", auditLimit, "how many reports, newest first (at most 1000)")
	}); !ok {
		return code
	}
	if limit < 1 || limit > 1000 {
		return c.usageErr("--limit takes 1 to 1000")
	}
	ctx, cancel := c.timeout()
	defer cancel()
	list, err := c.a.cfg.Store.Reports(ctx, limit)
	if err != nil {
		return c.storeErr("reports", err)
	}
	if asJSON {
		out := make([]reportJSON, 0, len(list))
		for _, r := range list {
			out = append(out, reportJSON{ID: r.ID, At: r.At.UTC(), By: playerName(r.ReporterName), ByID: r.Reporter,
				Player: playerName(r.ReportedName), PlayerID: r.Reported, Reason: auditText(r.Reason)})
		}
		return c.writeJSON(out)
	}
	if len(list) == 0 {
		fmt.Fprintln(c.stdout, "no reports")
		return 0
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "when (UTC)\tby\tplayer\twhy")
	for _, r := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.At.UTC().Format("2006-01-02 15:04"), nameOr(r.ReporterName, r.Reporter),
			nameOr(r.ReportedName, r.Reported), auditText(r.Reason))
	}
	if err := tw.Flush(); err != nil {
		return c.fail("write: " + err.Error())
	}
	fmt.Fprintln(c.stdout, "(audit NAME: what was done about a player; kick NAME, ban NAME [DURATION] [REASON])")
	return 0
}
