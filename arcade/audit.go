package arcade

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/charmbracelet/log"

	"pyramid/keys"
	"pyramid/store"
)

// audit stores an entry of the audit log; a failure is logged (with the
// entry, so that the log keeps it) and reported as false.
func audit(ctx context.Context, st store.Store, logger *log.Logger, e store.AuditEntry) bool {
	if st == nil {
		return false
	}
	if _, err := st.AddAudit(ctx, e); err != nil {
		if logger != nil {
			logger.Error("audit log: entry not stored", "action", e.Action, "by", e.Actor, "player", e.Target,
				"subject", e.Subject, "reason", e.Reason, "err", err)
		}
		return false
	}
	return true
}

// audited stores the entry of an admin's command, telling the admin if
// it could not be.
func (c *call) audited(e store.AuditEntry) {
	ctx, cancel := c.timeout()
	defer cancel()
	e.Actor = c.player
	if !audit(ctx, c.a.cfg.Store, c.a.cfg.Logger, e) {
		fmt.Fprintln(c.stdout, "note: this is not in the audit log (the server could not store it; its log has it)")
	}
}

// auditLimit is how many entries audit shows unless told.
const auditLimit = 50

// auditJSON is one entry of audit --json.
type auditJSON struct {
	ID       int64     `json:"id"`
	At       time.Time `json:"at"`
	By       string    `json:"by"`
	ByID     string    `json:"by_id"`
	Action   string    `json:"action"`
	Player   string    `json:"player,omitempty"`
	PlayerID string    `json:"player_id,omitempty"`
	Subject  string    `json:"subject,omitempty"`
	Reason   string    `json:"reason,omitempty"`
}

// audit lists the audit log (audit [--json] [--limit N] [NAME]): an
// admin's of everybody, or of one player; a player's, of what they did
// and what concerns them.
func (c *call) audit() int {
	var asJSON bool
	limit := auditLimit
	args, code, ok := c.flags(1, func(fs *flag.FlagSet) {
		jsonFlag(&asJSON)(fs)
		fs.IntVar(&limit, "limit", auditLimit, "how many entries, newest first (at most 1000)")
	})
	if !ok {
		return code
	}
	if limit < 1 || limit > 1000 {
		return c.usageErr("--limit takes 1 to 1000")
	}
	who := c.player
	if len(args) == 1 {
		p, ok := c.target(args[0])
		switch {
		case !ok:
			return 1
		case p.ID != c.player && !c.admin:
			return c.fail("you may read only the entries about you (audit, without a name)")
		}
		who = p.ID
	} else if c.admin {
		who = ""
	}
	ctx, cancel := c.timeout()
	defer cancel()
	entries, err := c.a.cfg.Store.AuditLog(ctx, who, limit)
	if err != nil {
		return c.storeErr("audit log", err)
	}
	if asJSON {
		out := make([]auditJSON, 0, len(entries))
		for _, e := range entries {
			out = append(out, auditJSON{ID: e.ID, At: e.At.UTC(), By: playerName(e.ActorName), ByID: e.Actor, Action: e.Action,
				Player: playerName(e.TargetName), PlayerID: e.Target, Subject: auditText(e.Subject), Reason: auditText(e.Reason)})
		}
		return c.writeJSON(out)
	}
	if len(entries) == 0 {
		fmt.Fprintln(c.stdout, "the audit log has nothing yet")
		return 0
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "when (UTC)\tby\taction\tplayer\twhat")
	for _, e := range entries {
		what := auditText(e.Subject)
		if r := auditText(e.Reason); r != "" {
			what = strings.TrimPrefix(what+" · "+r, " · ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.At.UTC().Format("2006-01-02 15:04"), nameOr(e.ActorName, e.Actor),
			e.Action, nameOr(e.TargetName, e.Target), what)
	}
	if err := tw.Flush(); err != nil {
		return c.fail("write: " + err.Error())
	}
	return 0
}

// nameOr is a player's name for the audit's table: their name, "-" for
// nobody, or "(gone)" for a player no longer kept.
func nameOr(name, id string) string {
	switch {
	case name != "":
		return playerName(name)
	case id == "":
		return "-"
	}
	return "(gone)"
}

// auditText cleans a stored subject or reason for printing.
func auditText(s string) string { return keys.Clean(s, 2*maxCloseReason) }
