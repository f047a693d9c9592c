package arcade

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"pyramid/budget"
	"pyramid/cluster"
	"pyramid/share"
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

// What reports shows of each reported player: their newest races that
// rated somebody (the races void takes) and their newest games (the IDs
// replay takes).
const (
	reportRaces = 3
	reportGames = 5
)

// reportJSON is one report of reports --json, with the reported player's
// newest rated races and games, and when and by whom it was closed (a
// closed one is listed with --all only).
type reportJSON struct {
	ID         int64            `json:"id"`
	At         time.Time        `json:"at"`
	By         string           `json:"by"`
	ByID       string           `json:"by_id"`
	Player     string           `json:"player"`
	PlayerID   string           `json:"player_id"`
	Reason     string           `json:"reason"`
	Closed     *time.Time       `json:"closed,omitempty"`
	ClosedBy   string           `json:"closed_by,omitempty"`
	ClosedByID string           `json:"closed_by_id,omitempty"`
	Races      []reportRaceJSON `json:"races"`
	Games      []reportGameJSON `json:"games"`
}

// reportRaceJSON is one of the reported player's races: how it counted
// for them ("rated", "unrated" or "no race") and the command that voids
// it.
type reportRaceJSON struct {
	ID      int64     `json:"id"`
	Rules   string    `json:"rules"`
	Ended   time.Time `json:"ended"`
	Racers  int       `json:"racers"`
	Place   int       `json:"place"`
	Counted string    `json:"counted"`
	GameID  int64     `json:"game_id,omitempty"`
	Void    string    `json:"void"`
}

// reportGameJSON is one of the reported player's games (replay ID shows
// it to an admin).
type reportGameJSON struct {
	ID      int64     `json:"id"`
	Rules   string    `json:"rules"`
	Kind    string    `json:"kind"`
	Status  string    `json:"status"`
	Removed int       `json:"removed"`
	Updated time.Time `json:"updated"`
}

// voidCommand is the command that voids a race, as reports names it.
func voidCommand(id int64) string { return fmt.Sprintf("void %d REASON", id) }

// reportedPlay reads a reported player's newest rated races and games.
func (c *call) reportedPlay(ctx context.Context, player string) ([]reportRaceJSON, []reportGameJSON, error) {
	races, err := c.a.cfg.Store.RatedRaces(ctx, player, reportRaces)
	if err != nil {
		return nil, nil, err
	}
	games, err := c.a.cfg.Store.ListGames(ctx, player, store.Page{Limit: reportGames})
	if err != nil {
		return nil, nil, err
	}
	rs := make([]reportRaceJSON, 0, len(races))
	for _, r := range races {
		rr := reportRaceJSON{ID: r.ID, Rules: r.RulesID, Ended: r.Ended.UTC(), Racers: max(r.Racers, len(r.Placings)), Void: voidCommand(r.ID)}
		for _, p := range r.Placings {
			if p.PlayerID == player {
				rr.Place, rr.Counted, rr.GameID = p.Place, countedWord(p.Standing), p.GameID
			}
		}
		rs = append(rs, rr)
	}
	gs := make([]reportGameJSON, 0, len(games))
	for _, g := range games {
		gs = append(gs, reportGameJSON{ID: g.ID, Rules: g.RulesID, Kind: string(g.Kind), Status: string(g.Status),
			Removed: g.Removed, Updated: g.Updated.UTC()})
	}
	return rs, gs, nil
}

// reports lists the players' open reports (--all: the closed ones too),
// newest first, for the admins, each with the reported player's newest
// rated races (and the command that voids each) and games.
func (c *call) reports() int {
	var asJSON, all bool
	limit := auditLimit
	if _, code, ok := c.flags(0, func(fs *flag.FlagSet) {
		jsonFlag(&asJSON)(fs)
		fs.IntVar(&limit, "limit", auditLimit, "how many reports, newest first (at most 1000)")
		fs.BoolVar(&all, "all", false, "the closed reports too")
	}); !ok {
		return code
	}
	if limit < 1 || limit > 1000 {
		return c.usageErr("--limit takes 1 to 1000")
	}
	ctx, cancel := c.timeout()
	defer cancel()
	list, err := c.a.cfg.Store.Reports(ctx, limit, all)
	if err != nil {
		return c.storeErr("reports", err)
	}
	out := make([]reportJSON, 0, len(list))
	type play struct {
		races []reportRaceJSON
		games []reportGameJSON
	}
	seen := map[string]play{} // a player reported several times is read once
	for _, r := range list {
		pl, ok := seen[r.Reported]
		if !ok {
			pl.races, pl.games, err = c.reportedPlay(ctx, r.Reported)
			if err != nil {
				return c.storeErr("the races and games of "+nameOr(r.ReportedName, r.Reported), err)
			}
			seen[r.Reported] = pl
		}
		rep := reportJSON{ID: r.ID, At: r.At.UTC(), By: playerName(r.ReporterName), ByID: r.Reporter,
			Player: playerName(r.ReportedName), PlayerID: r.Reported, Reason: auditText(r.Reason), Races: pl.races, Games: pl.games}
		if !r.Closed.IsZero() {
			closed := r.Closed.UTC()
			rep.Closed, rep.ClosedBy, rep.ClosedByID = &closed, playerName(r.ClosedByName), r.ClosedBy
		}
		out = append(out, rep)
	}
	if asJSON {
		return c.writeJSON(out)
	}
	if len(out) == 0 {
		if all {
			fmt.Fprintln(c.stdout, "no reports")
		} else {
			fmt.Fprintln(c.stdout, "no open reports (reports --all lists the closed ones too)")
		}
		return 0
	}
	for _, r := range out {
		closed := ""
		if r.Closed != nil {
			closed = fmt.Sprintf(" (closed %s by %s)", r.Closed.Format("2006-01-02 15:04"), nameOr(r.ClosedBy, r.ClosedByID))
		}
		fmt.Fprintf(c.stdout, "#%d %s  %s reported %s: %s%s\n", r.ID, r.At.Format("2006-01-02 15:04"), nameOr(r.By, r.ByID),
			nameOr(r.Player, r.PlayerID), r.Reason, closed)
		for _, rr := range r.Races {
			game := ""
			if rr.GameID != 0 {
				game = fmt.Sprintf(" · game %d", rr.GameID)
			}
			fmt.Fprintf(c.stdout, "  race %d · %s · %s · %s of %d, %s%s · %s\n", rr.ID, rr.Rules, rr.Ended.Format("2006-01-02 15:04"),
				share.Ordinal(rr.Place), rr.Racers, rr.Counted, game, rr.Void)
		}
		if len(r.Games) > 0 {
			gs := make([]string, 0, len(r.Games))
			for _, g := range r.Games {
				gs = append(gs, fmt.Sprintf("%d (%s %s, %s)", g.ID, g.Rules, g.Kind, g.Status))
			}
			fmt.Fprintf(c.stdout, "  games: %s\n", strings.Join(gs, " · "))
		}
	}
	fmt.Fprintln(c.stdout, "(times UTC; replay GAME_ID: a game; void RACE_ID REASON: a race counts for nobody;")
	fmt.Fprintln(c.stdout, " audit NAME: what was done about a player; kick NAME, ban NAME [DURATION] [REASON];")
	fmt.Fprintln(c.stdout, " close-report ID [REASON]: the report is dealt with)")
	return 0
}

// closeReport closes a report (close-report ID [REASON]): it leaves the
// queue reports lists, and the audit log has who closed it and why.
func (c *call) closeReport() int {
	args, code, ok := c.flags(64, func(*flag.FlagSet) {})
	if !ok {
		return code
	}
	if len(args) == 0 {
		return c.usageErr("close-report needs the report's number (reports lists them: #ID)")
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(args[0], "#"), 10, 64)
	if err != nil || id <= 0 {
		return c.usageErr(fmt.Sprintf("bad report number \"%s\": want a number (reports lists them: #ID)", word(args[0])))
	}
	why := reason(args[1:])
	ctx, cancel := c.timeout()
	defer cancel()
	switch err := c.a.cfg.Store.CloseReport(ctx, id, c.player, why); {
	case errors.Is(err, store.ErrNotFound):
		return c.fail(fmt.Sprintf("no report #%d (reports lists the open ones)", id))
	case errors.Is(err, store.ErrClosed):
		return c.fail(fmt.Sprintf("report #%d is closed already", id))
	case err != nil:
		return c.storeErr(fmt.Sprintf("close report #%d", id), err)
	}
	c.a.cfg.Logger.Info("admin close report", "by", c.player, "report", id, "reason", why)
	fmt.Fprintf(c.stdout, "report #%d closed\n", id)
	return 0
}

// void voids a race (void RACE_ID REASON): it counts for nobody, and the
// ratings it changed are computed again from the race before it on, in
// one store transaction with the audit log's entries. The racers' ratings
// as they now are, which stats and top show from now on, are printed.
func (c *call) void() int {
	args, code, ok := c.flags(64, func(*flag.FlagSet) {})
	if !ok {
		return code
	}
	if len(args) < 2 {
		return c.usageErr("void needs the race's ID and why (reports lists the reported players' races)")
	}
	id, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil || id <= 0 {
		return c.usageErr(fmt.Sprintf("bad race ID \"%s\": want a number (reports lists the reported players' races)", word(args[0])))
	}
	why := reason(args[1:])
	ctx, cancel := c.timeout()
	defer cancel()
	changed, err := c.a.cfg.Store.VoidRace(ctx, store.RaceVoid{RaceID: id, Actor: c.player, Reason: why})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return c.fail(fmt.Sprintf("no race %d (reports lists the reported players' races)", id))
	case errors.Is(err, store.ErrVoided):
		return c.fail(fmt.Sprintf("race %d is void already", id))
	case err != nil:
		return c.storeErr(fmt.Sprintf("void race %d", id), err)
	}
	c.a.cfg.Logger.Info("admin void race", "by", c.player, "race", id, "reason", why, "ratings", len(changed))
	fmt.Fprintf(c.stdout, "race %d voided: it counts for nobody now (%s); %s computed again\n", id, why, plural(len(changed), "rating"))
	race, err := c.a.cfg.Store.Race(ctx, id)
	if err != nil {
		return c.storeErr(fmt.Sprintf("race %d", id), err)
	}
	for _, p := range race.Placings {
		// The racers' open sessions are told, wherever they are; a
		// failure is logged by tellAccounts, and the audit log has it.
		_ = c.a.tellAccounts(ctx, cluster.AccountEvent{Kind: cluster.AccountNotice, Player: p.PlayerID,
			Text: fmt.Sprintf("an admin voided your race %d (%s): it counts for nobody; ratings computed again", id, why)})
	}
	for _, p := range race.Placings {
		rec, err := c.a.cfg.Store.RaceRecord(ctx, p.PlayerID, race.RulesID)
		if err != nil {
			return c.storeErr("the rating of "+playerName(p.PlayerName), err)
		}
		rt := "no rating"
		if rec.Races > 0 {
			rt = displayText(round2(rec.Rating.Display), rec.Rating.Provisional)
		}
		fmt.Fprintf(c.stdout, "  %s: %s in %s (%s)\n", playerName(p.PlayerName), rt, race.RulesID, plural(rec.Races, "rated race"))
	}
	return 0
}
