package arcade

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

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
	if err != nil {
		return c.fail(err.Error())
	}
	fmt.Fprintln(c.stdout, line)
	return 0
}
