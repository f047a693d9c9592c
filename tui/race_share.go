package tui

import (
	"pyramid/lobby"
	"pyramid/share"
)

// raceShareOf is a racer's share line of a race's results (package
// share), or false for a viewer not among the results (a spectator).
func raceShareOf(s lobby.Snapshot, you string) (share.Race, bool) {
	for _, p := range s.Results {
		if p.ID == you {
			return share.Race{RulesTitle: s.RulesTitle, Place: p.Place, Racers: len(s.Results), Cleared: p.Cleared,
				Removed: p.Removed, Cards: s.Cards, Time: p.Time, Moves: p.Moves, Unrated: !s.Rated}, true
		}
	}
	return share.Race{}, false
}

// raceShareLine is a racer's one spoiler-free line of a race's results,
// to paste in a club chat, as `ssh HOST share ID` writes it: the rules,
// the place of how many, cleared or the cards removed as N/28, the time
// and the moves; never a card or a move. Empty for a racer not among the
// results (a spectator).
func raceShareLine(s lobby.Snapshot, you string, sep string) string {
	r, ok := raceShareOf(s, you)
	if !ok {
		return ""
	}
	return r.Line(sep)
}

// raceShareFit is raceShareLine in at most w cells where it can be: the
// rules title gives way, never the place, the result, the time or the
// moves (share.Race.Fit).
func raceShareFit(s lobby.Snapshot, you string, sep string, w int) string {
	r, ok := raceShareOf(s, you)
	if !ok {
		return ""
	}
	return r.Fit(sep, w)
}
