package arcade

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"pyramid/engine"
	"pyramid/keys"
	"pyramid/store"
)

// shareLine is a game's one spoiler-free line for a club chat: the deal
// (the daily's date, or the rules and the deal number), cleared or the
// cards removed as N/28, the time and the moves; never a card or a move.
// It holds nothing but printable text, so it is safe to paste.
func shareLine(sg store.Game) (string, error) {
	rules, err := engine.ParseRules(sg.RulesID)
	if err != nil {
		return "", fmt.Errorf("share game %d: %w", sg.ID, err)
	}
	parts := []string{"Pyramid"}
	switch {
	case sg.Daily != "":
		parts = append(parts, "daily "+sg.Daily, keys.Clean(rules.Title(), 40))
	case sg.DealText != "":
		parts = append(parts, keys.Clean(rules.Title(), 40)+" · a custom deal")
	default:
		parts = append(parts, keys.Clean(rules.Title(), 40)+" · deal "+strconv.FormatUint(sg.DealNumber, 10))
	}
	switch sg.Status {
	case store.StatusWon:
		parts = append(parts, "cleared")
	case store.StatusPlaying:
		parts = append(parts, fmt.Sprintf("%d/%d so far", sg.Removed, rules.PyramidSize()))
	default:
		parts = append(parts, fmt.Sprintf("%d/%d", sg.Removed, rules.PyramidSize()))
	}
	parts = append(parts, duration(sg.Elapsed), plural(len(sg.Moves), "move"))
	if sg.Assisted() {
		parts = append(parts, "assisted")
	}
	return strings.Join(parts, " · "), nil
}

// raceShareLine is the share line of a race's game: the rules, the
// player's place of how many raced, cleared or the cards removed as
// N/28, the time and the moves, as the race's results screen writes it
// (tui/race_share.go).
func raceShareLine(race store.Race, gameID int64) (string, error) {
	rules, err := engine.ParseRules(race.RulesID)
	if err != nil {
		return "", fmt.Errorf("share the race of game %d: %w", gameID, err)
	}
	for _, p := range race.Placings {
		if p.GameID != gameID {
			continue
		}
		what := fmt.Sprintf("%d/%d", p.Removed, rules.PyramidSize())
		if p.Cleared {
			what = "cleared"
		}
		return strings.Join([]string{"Pyramid race", keys.Clean(rules.Title(), 40),
			ordinal(p.Place) + " of " + strconv.Itoa(max(race.Racers, len(race.Placings))), what,
			raceTime(p.Time), plural(p.Moves, "move")}, " · "), nil
	}
	return "", fmt.Errorf("share game %d: not among the placings of race %d", gameID, race.ID)
}

// raceTime is a race's time to the tenth of a second: m:ss.t.
func raceTime(d time.Duration) string {
	d = max(d, 0).Round(100 * time.Millisecond)
	s := int64(d / time.Second)
	tenths := int64(d % time.Second / (100 * time.Millisecond))
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d.%d", s/3600, s/60%60, s%60, tenths)
	}
	return fmt.Sprintf("%d:%02d.%d", s/60, s%60, tenths)
}

// ordinal writes a place: 1st, 2nd, 3rd, 4th, … 11th, 12th, 13th, 21st.
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

// share prints a game's share line (share ID): one of the player's own.
func (c *call) share() int {
	args, code, ok := c.flags(1, func(*flag.FlagSet) {})
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
	line, err := shareLine(sg)
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
		return c.fail(err.Error())
	}
	fmt.Fprintln(c.stdout, line)
	return 0
}
