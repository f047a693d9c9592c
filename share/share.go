// Package share writes the one spoiler-free line a player pastes into a
// club chat after a game or a race: the deal (the daily's date, or the
// rules and the deal number), the result (cleared, or the pyramid cards
// removed as N/28), the time and the moves; for a race, the place of how
// many raced. Never a card or a move. The screens (package tui) and the
// share command (package arcade) both write their lines here, so a line
// reads the same wherever it is shown.
package share

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"pyramid/keys"
)

// Sep is the separator of a line's parts in plain text; a terminal
// without UTF-8 gets its own (" - ").
const Sep = " · "

// titleW is the widest a rules title is written.
const titleW = 40

// Game is what a game's line says.
type Game struct {
	RulesTitle string
	// Daily is the daily deal's date (YYYY-MM-DD); empty for any other
	// deal, which is named by Deal, or Custom for a deal given as text.
	Daily  string
	Deal   uint64
	Custom bool
	// DealHidden: the deal is the server's and not over yet, so its
	// number is not told (a game in progress, a race still running).
	DealHidden bool
	// Cleared: the pyramid is cleared. Otherwise Removed of Cards were
	// removed, "so far" while InProgress.
	Cleared        bool
	Removed, Cards int
	InProgress     bool
	Time           time.Duration
	Moves          int
	// Assisted: hints or undos were used.
	Assisted bool
}

// Line writes the game's line with sep between its parts.
func (g Game) Line(sep string) string {
	title := keys.Clean(g.RulesTitle, titleW)
	parts := make([]string, 0, 7)
	parts = append(parts, "Pyramid")
	switch {
	case g.Daily != "":
		parts = append(parts, "daily "+keys.Clean(g.Daily, 10), title)
	case g.Custom:
		parts = append(parts, title+sep+"a custom deal")
	case g.DealHidden:
		parts = append(parts, title+sep+"a hidden deal")
	default:
		parts = append(parts, title+sep+"deal "+strconv.FormatUint(g.Deal, 10))
	}
	what := strconv.Itoa(g.Removed) + "/" + strconv.Itoa(g.Cards)
	switch {
	case g.Cleared:
		what = "cleared"
	case g.InProgress:
		what += " so far"
	}
	parts = append(parts, what, Clock(g.Time), Moves(g.Moves))
	if g.Assisted {
		parts = append(parts, "assisted")
	}
	return strings.Join(parts, sep)
}

// Race is what a racer's line of a finished race says.
type Race struct {
	RulesTitle string
	// Place is the racer's (1 for the winner), of Racers who raced.
	Place, Racers int
	// Cleared: the racer cleared the pyramid; otherwise they removed
	// Removed of Cards.
	Cleared        bool
	Removed, Cards int
	// Time is the finish time, or the time of the last removal; the
	// line leaves it out for a racer who removed no card.
	Time  time.Duration
	Moves int
	// Unrated: the race's deal was chosen by its host, so the place
	// counts for nothing (lobby.RoomConfig.Rated); the line says so.
	Unrated bool
}

// Line writes the racer's line with sep between its parts.
func (r Race) Line(sep string) string { return r.line(sep, titleW) }

// Fit is Line in at most w cells where it can be: the rules title gives
// way (cut shorter, down to 12 cells), never the place, the result, the
// time or the moves.
func (r Race) Fit(sep string, w int) string {
	line := r.Line(sep)
	if over := width(line) - w; over > 0 {
		line = r.line(sep, max(12, width(keys.Clean(r.RulesTitle, titleW))-over))
	}
	return line
}

func (r Race) line(sep string, title int) string {
	what := strconv.Itoa(r.Removed) + "/" + strconv.Itoa(r.Cards)
	if r.Cleared {
		what = "cleared"
	}
	parts := []string{"Pyramid race", keys.Clean(r.RulesTitle, title), Ordinal(r.Place) + " of " + strconv.Itoa(r.Racers), what}
	if r.Cleared || r.Removed > 0 {
		// No removal, no time to tell (a time of 0:00.0 would say a
		// finish that never was).
		parts = append(parts, RaceTime(r.Time))
	}
	parts = append(parts, Moves(r.Moves))
	if r.Unrated {
		parts = append(parts, "unrated")
	}
	return strings.Join(parts, sep)
}

// width is the cells a line takes on a terminal.
func width(s string) int { return ansi.StringWidth(s) }

// Ordinal writes a place: 1st, 2nd, 3rd, 4th, … 11th, 12th, 13th, 21st.
func Ordinal(n int) string {
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

// Moves writes a number of moves: "1 move", "40 moves".
func Moves(n int) string {
	if n == 1 {
		return "1 move"
	}
	return strconv.Itoa(n) + " moves"
}

// Clock writes a game's time as m:ss, or h:mm:ss from an hour on.
func Clock(d time.Duration) string {
	s := int64(max(d, 0).Round(time.Second) / time.Second)
	if s >= 3600 {
		return strconv.FormatInt(s/3600, 10) + ":" + two(s/60%60) + ":" + two(s%60)
	}
	return strconv.FormatInt(s/60, 10) + ":" + two(s%60)
}

// RaceTime writes a race's time to the tenth of a second: m:ss.t, or
// h:mm:ss.t from an hour on.
func RaceTime(d time.Duration) string {
	d = max(d, 0).Round(100 * time.Millisecond)
	s := int64(d / time.Second)
	tenths := strconv.FormatInt(int64(d%time.Second/(100*time.Millisecond)), 10)
	if s >= 3600 {
		return strconv.FormatInt(s/3600, 10) + ":" + two(s/60%60) + ":" + two(s%60) + "." + tenths
	}
	return strconv.FormatInt(s/60, 10) + ":" + two(s%60) + "." + tenths
}

// two writes n in two digits.
func two(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}
