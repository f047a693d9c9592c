package tui

import (
	"strconv"
	"strings"

	"pyramid/lobby"
)

// raceShareLine is a racer's one spoiler-free line of a race's results,
// to paste in a club chat: the rules, the place of how many, cleared or
// the cards removed as N/28, the time and the moves; never a card or a
// move. Empty for a racer not among the results (a spectator).
func raceShareLine(s lobby.Snapshot, you string) string {
	return raceShareLineIn(s, you, 40)
}

// raceShareFit is raceShareLine in at most w cells where it can be: the
// rules title gives way (cut shorter, down to 12 cells), never the place,
// the result, the time or the moves.
func raceShareFit(s lobby.Snapshot, you string, w int) string {
	line := raceShareLine(s, you)
	if over := cells(line) - w; over > 0 {
		line = raceShareLineIn(s, you, max(12, cells(clean(s.RulesTitle, 40))-over))
	}
	return line
}

// raceShareLineIn is raceShareLine with the rules title in at most title
// cells.
func raceShareLineIn(s lobby.Snapshot, you string, title int) string {
	for _, p := range s.Results {
		if p.ID != you {
			continue
		}
		what := strconv.Itoa(p.Removed) + "/" + strconv.Itoa(s.Cards)
		if p.Cleared {
			what = "cleared"
		}
		moves := strconv.Itoa(p.Moves) + plural(p.Moves, " move", " moves")
		return strings.Join([]string{"Pyramid race", clean(s.RulesTitle, title), ordinal(p.Place) + " of " + strconv.Itoa(len(s.Results)),
			what, raceTime(p.Time), moves}, " · ")
	}
	return ""
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
