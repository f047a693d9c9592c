package arcade

import (
	"errors"
	"fmt"
	"strconv"

	"pyramid/engine"
	"pyramid/games"
	"pyramid/share"
	"pyramid/store"
)

// shareLine is a game's one spoiler-free line for a club chat (package
// share): the deal (the daily's date, or the rules and the deal number),
// cleared or the cards removed as N/28, the time and the moves; never a
// card or a move. It holds nothing but printable text, so it is safe to
// paste.
func shareLine(sg store.Game, shown bool) (string, error) {
	rules, err := engine.ParseRules(sg.RulesID)
	if err != nil {
		return "", fmt.Errorf("share game %d: %w", sg.ID, err)
	}
	g := share.Game{RulesTitle: rules.Title(), Daily: sg.Daily, Deal: sg.DealNumber, Custom: sg.DealText != "",
		DealHidden: !shown, Cleared: sg.Status == store.StatusWon, Removed: sg.Removed, Cards: rules.PyramidSize(),
		InProgress: sg.Status == store.StatusPlaying, Time: sg.Elapsed, Moves: len(sg.Moves), Assisted: sg.Assisted() || games.Assisted(sg.Moves, sg.MoveTimes)}
	return g.Line(share.Sep), nil
}

// raceShareLine is the share line of a race's game: the rules, the
// player's place of how many raced, cleared or the cards removed as
// N/28, the time and the moves, as the race's results screen writes it
// (package share); "unrated" for a race on a chosen deal.
func raceShareLine(race store.Race, gameID int64) (string, error) {
	rules, err := engine.ParseRules(race.RulesID)
	if err != nil {
		return "", fmt.Errorf("share the race of game %d: %w", gameID, err)
	}
	for _, p := range race.Placings {
		if p.GameID != gameID {
			continue
		}
		r := share.Race{RulesTitle: rules.Title(), Place: p.Place, Racers: max(race.Racers, len(race.Placings)),
			Cleared: p.Cleared, Removed: p.Removed, Cards: rules.PyramidSize(), Time: p.Time, Moves: p.Moves,
			Unrated: !race.Rated}
		return r.Line(share.Sep), nil
	}
	return "", fmt.Errorf("share game %d: not among the placings of race %d", gameID, race.ID)
}

// share prints a game's share line (share ID): one of the player's own.
func (c *call) share() int {
	var asJSON bool
	args, code, ok := c.flags(1, jsonFlag(&asJSON))
	if !ok {
		return code
	}
	if len(args) != 1 {
		return c.usageErr("share needs a game ID (games lists your games)")
	}
	id, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil || id <= 0 {
		return c.usageErr(fmt.Sprintf("bad game ID \"%s\": want a number (games lists your games)", word(args[0])))
	}
	ctx, cancel := c.timeout()
	defer cancel()
	sg, err := c.a.cfg.Store.Game(ctx, id)
	if errors.Is(err, store.ErrNotFound) || err == nil && sg.PlayerID != c.player {
		return c.fail(fmt.Sprintf("game %d not found among yours (games lists them)", id))
	}
	if err != nil {
		return c.storeErr(fmt.Sprintf("game %d", id), err)
	}
	line, err := shareLine(sg, c.dealShown(ctx, sg))
	if sg.Kind == store.KindRace {
		// A race's game says how the race went: the place, of how many.
		race, rerr := c.a.cfg.Store.RaceOfGame(ctx, sg.ID)
		switch {
		case rerr == nil:
			line, err = raceShareLine(race, sg.ID)
		case !errors.Is(rerr, store.ErrNotFound):
			return c.storeErr(fmt.Sprintf("the race of game %d", id), rerr)
		}
	}
	if err != nil {
		return c.failErr("", err)
	}
	if asJSON {
		return c.writeJSON(shareReport{GameID: sg.ID, Line: line})
	}
	fmt.Fprintln(c.stdout, line)
	return 0
}

// shareReport is share's --json output.
type shareReport struct {
	GameID int64  `json:"game_id"`
	Line   string `json:"line"`
}
