package tui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"pyramid/engine"
)

// dealSpec is a request for a game: rules and which deal.
type dealSpec struct {
	rules engine.Rules
	// number is the deal number when hasNumber; otherwise a new number
	// is drawn from the clock (or the solver's next winnable deal).
	number    uint64
	hasNumber bool
	// daily asks for the day's deal of rules.
	daily bool
	// replace names the game in progress of these rules the player
	// agreed to abandon for this one (see SavedGame.Replace).
	replace replaceRef
}

// maxArgs bounds the deep link's words.
const maxArgs = 2

// parseLink reads a deep link: RULES [DEAL] or "daily". RULES is any rule
// spec (a preset name, optionally followed by ",knob=value"); a bare
// number is a Classic deal.
func parseLink(args []string) (dealSpec, error) {
	if len(args) == 0 {
		return dealSpec{}, errors.New("no rule set given")
	}
	if len(args) > maxArgs {
		return dealSpec{}, fmt.Errorf("too many words (%d): want a rule set and an optional deal number, e.g. classic 42", len(args))
	}
	first := strings.TrimSpace(args[0])
	if n, err := strconv.ParseUint(first, 10, 64); err == nil && len(args) == 1 {
		return dealSpec{rules: engine.Classic(), number: n, hasNumber: true}, nil
	}
	r, err := engine.ParseRules(first)
	if err != nil {
		return dealSpec{}, err
	}
	spec := dealSpec{rules: r, daily: r.Daily}
	if len(args) == 2 {
		if spec.daily {
			return dealSpec{}, errors.New("the daily deal takes no deal number: it is today's deal for everyone")
		}
		n, err := parseDealNumber(args[1])
		if err != nil {
			return dealSpec{}, err
		}
		spec.number, spec.hasNumber = n, true
	}
	return spec, nil
}

// parseDealNumber reads a deal number.
func parseDealNumber(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	n, err := strconv.ParseUint(strings.TrimPrefix(s, "#"), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("deal number %q: want a whole number such as 42", s)
	}
	return n, nil
}

// titleOf is the header's title of a game: rule set and deal.
func titleOf(r engine.Rules, d engine.Deal, day, sep string) string {
	if r.Daily && day != "" {
		return r.Title() + sep + day
	}
	if !d.Numbered {
		return r.Title() + sep + "deal from text"
	}
	return r.Title() + sep + "deal " + strconv.FormatUint(d.Number, 10)
}

// dealLabel names a deal by its number when shown (lobby.DealShown), as
// "hidden deal" otherwise.
func dealLabel(n uint64, shown bool) string {
	if !shown {
		return "hidden deal"
	}
	return "deal " + strconv.FormatUint(n, 10)
}

// hiddenTitleOf is titleOf without the deal's number, for a deal whose
// number may not be shown yet (lobby.DealShown).
func hiddenTitleOf(r engine.Rules, day, sep string) string {
	if r.Daily && day != "" {
		return r.Title() + sep + day
	}
	return r.Title() + sep + "hidden deal"
}
