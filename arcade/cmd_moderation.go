package arcade

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"pyramid/cluster"
	"pyramid/keys"
	"pyramid/store"
)

// maxBan is the longest timed ban: longer is a ban for good.
const maxBan = 10 * 365 * 24 * time.Hour

// parseBanDuration reads a ban's duration: a Go duration (90m, 1h30m)
// or a number of days or weeks (7d, 2w). ok is false for a word that is
// no duration (the reason's first word, then).
func parseBanDuration(s string) (d time.Duration, ok bool, err error) {
	if n, unit := strings.TrimRight(s, "dw"), strings.TrimLeft(s, "0123456789"); n != "" && (unit == "d" || unit == "w") {
		days, convErr := strconv.Atoi(n)
		if convErr != nil || days > int(maxBan/(24*time.Hour)) {
			return 0, true, fmt.Errorf("ban: %q is too long a ban: ban for good by leaving the duration out", s)
		}
		if unit == "w" {
			days *= 7
		}
		d = time.Duration(days) * 24 * time.Hour
	} else if d, err = time.ParseDuration(s); err != nil {
		return 0, false, nil
	}
	switch {
	case d <= 0:
		return 0, true, fmt.Errorf("ban: a duration must be more than 0 (like 1h or 7d), not %q", s)
	case d > maxBan:
		return 0, true, fmt.Errorf("ban: %q is too long a ban: ban for good by leaving the duration out", s)
	}
	return d, true, nil
}

// reason is an admin's reason, cleaned like a chat line.
func reason(ws []string) string { return keys.Clean(strings.Join(ws, " "), maxCloseReason) }

// ban bans a player (ban NAME [DURATION] [REASON]), and ends their open
// sessions on every server, each told why.
func (c *call) ban() int {
	args, code, ok := c.flags(64, func(*flag.FlagSet) {})
	if !ok {
		return code
	}
	if len(args) == 0 {
		return c.usageErr("ban needs a player's name")
	}
	var until time.Time
	rest := args[1:]
	if len(rest) > 0 {
		d, isDuration, err := parseBanDuration(rest[0])
		if err != nil {
			return c.failErr("", err)
		}
		if isDuration {
			until, rest = c.a.cfg.Now().Add(d).Truncate(time.Minute).Add(time.Minute), rest[1:]
		}
	}
	p, ok := c.target(args[0])
	if !ok {
		return 1
	}
	if p.ID == c.player {
		return c.fail("you cannot ban yourself")
	}
	why := reason(rest)
	ctx, cancel := c.timeout()
	defer cancel()
	if err := c.a.cfg.Store.Ban(ctx, p.ID, until, why); err != nil {
		return c.storeErr("ban", err)
	}
	p.Banned, p.BannedUntil, p.BanReason = true, until, why
	c.a.cfg.Logger.Info("admin ban", "by", c.s.Identity, "player", p.ID, "until", until, "reason", why)
	fmt.Fprintf(c.stdout, "%s is banned%s\n", playerName(p.Name), strings.TrimPrefix(banWords(p), "you are banned from this server"))
	term := "for good"
	if !until.IsZero() {
		term = "until " + until.UTC().Format("2006-01-02 15:04") + " UTC"
	}
	c.audited(store.AuditEntry{Action: store.AuditBan, Target: p.ID, Subject: term, Reason: why})
	c.endAll(p, banWords(p))
	return 0
}

// unban lifts a player's ban.
func (c *call) unban() int {
	args, code, ok := c.flags(1, func(*flag.FlagSet) {})
	if !ok {
		return code
	}
	if len(args) != 1 {
		return c.usageErr("unban needs a player's name")
	}
	p, ok := c.target(args[0])
	if !ok {
		return 1
	}
	if !p.BannedAt(c.a.cfg.Now()) {
		return c.fail(playerName(p.Name) + " is not banned")
	}
	ctx, cancel := c.timeout()
	defer cancel()
	if err := c.a.cfg.Store.SetBanned(ctx, p.ID, false); err != nil {
		return c.storeErr("unban", err)
	}
	c.a.cfg.Logger.Info("admin unban", "by", c.s.Identity, "player", p.ID)
	fmt.Fprintf(c.stdout, "%s is no longer banned\n", playerName(p.Name))
	c.audited(store.AuditEntry{Action: store.AuditUnban, Target: p.ID})
	return 0
}

// kick ends a player's open sessions on every server, each told why,
// without a ban: they may connect again at once.
func (c *call) kick() int {
	args, code, ok := c.flags(64, func(*flag.FlagSet) {})
	if !ok {
		return code
	}
	if len(args) == 0 {
		return c.usageErr("kick needs a player's name")
	}
	p, ok := c.target(args[0])
	if !ok {
		return 1
	}
	if p.ID == c.player {
		return c.fail("you cannot kick yourself")
	}
	why := reason(args[1:])
	text := "an admin closed your session"
	if why != "" {
		text += ": " + why
	}
	c.a.cfg.Logger.Info("admin kick", "by", c.s.Identity, "player", p.ID, "reason", why)
	if c.online(p.ID) {
		fmt.Fprintf(c.stdout, "%s's open sessions end now, on every server\n", playerName(p.Name))
	} else {
		fmt.Fprintf(c.stdout, "%s is not online as who lists it now; a session of theirs that just opened ends now all the same\n", playerName(p.Name))
	}
	c.audited(store.AuditEntry{Action: store.AuditKick, Target: p.ID, Reason: why})
	c.endAll(p, text)
	return 0
}

// endAll ends every open session of p, on every server, telling them
// text; the admin is told if the sessions could not be reached.
func (c *call) endAll(p store.Player, text string) {
	ctx, cancel := c.timeout()
	defer cancel()
	if err := c.a.tellAccounts(ctx, cluster.AccountEvent{Kind: cluster.AccountEnd, Player: p.ID, Text: text}); err != nil {
		fmt.Fprintln(c.stdout, sessionsNote)
	}
}

// online reports whether who lists the player, on any server.
func (c *call) online(player string) bool {
	for _, e := range c.a.lobby.Who() {
		if !e.Guest && e.ID == player {
			return true
		}
	}
	return false
}
