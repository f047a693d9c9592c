package tui

import (
	"strconv"

	"pyramid/engine"
	"pyramid/share"
)

// What the server recorded of a game, as the end screens say it: a
// practice game, an assisted one (no records), a new record, the place
// on the daily board.

// recorded keeps what the server recorded at the last save of the
// table's game.
func (t *tableScreen) recorded(r SaveResult) {
	t.result = &r
	if t.d.status == engine.Lost && t.sel == engine.NoPlace && !t.promptOpen {
		t.endMessage()
	}
}

// assists is the game's hints and undos: the server's figures when it
// said, the table's own otherwise.
func (t *tableScreen) assists() (hints, undos int) {
	if r := t.result; r != nil && (r.Hints > 0 || r.Undos > 0) {
		return max(r.Hints, t.hints), max(r.Undos, t.undos)
	}
	return t.hints, t.undos
}

// resultLines says what the game's end recorded, one short line each,
// broken to at most w cells.
func (t *tableScreen) resultLines(dst []string, w int) []string {
	var buf [4]string
	for _, s := range t.results(buf[:0]) {
		dst = appendWrapped(dst, s, w)
	}
	return dst
}

// results are the lines of resultLines before they are broken.
func (t *tableScreen) results(dst []string) []string {
	r := t.result
	hints, undos := t.assists()
	if t.challenge != "" {
		// A challenge's game is stored as practice for the records: its
		// result is the challenge's.
		if r != nil && r.Challenge != "" {
			return append(dst, r.Challenge)
		}
		return append(dst, "challenge "+t.challenge+": your game counts;", "the result comes once both have played")
	}
	if r != nil && r.Practice {
		return append(dst, "practice: no result is recorded")
	}
	// Every reason a win sets no record is said: the chosen deal, then
	// the assistance.
	chosen := r != nil && r.Chosen && t.d.status == engine.Won
	if chosen {
		dst = append(dst, "practice: chosen deal"+t.env.gl.dash()+"no record")
	}
	fast := r != nil && r.Fast
	if hints > 0 || undos > 0 {
		dst = append(dst, "assisted: "+strconv.Itoa(hints)+plural(hints, " hint, ", " hints, ")+
			strconv.Itoa(undos)+plural(undos, " undo", " undos")+" (no records)")
	}
	if fast {
		dst = append(dst, "assisted: moves faster than play"+t.env.gl.dash()+"no record")
	}
	switch {
	case r != nil && t.d.status == engine.Won && !chosen && !fast && hints == 0 && undos == 0:
		switch {
		case r.FirstWin:
			dst = append(dst, "first win of these rules: a new record")
		case r.NewBestTime && r.NewFewestMoves:
			dst = append(dst, "new record: best time and fewest moves")
		case r.NewBestTime:
			dst = append(dst, "new record: best time")
		case r.NewFewestMoves:
			dst = append(dst, "new record: fewest moves")
		}
	}
	if r != nil && r.DailyRank > 0 {
		dst = append(dst, "#"+strconv.Itoa(r.DailyRank)+" of "+strconv.Itoa(r.DailyPlayers)+" on today's daily board")
	}
	return dst
}

// foot is the line under the board of a finished daily: its share line,
// labelled when the label leaves room for the whole line (a player copies
// it from the terminal: it is never cut for the label's sake).
func (t *tableScreen) foot() string {
	line := t.shareLine()
	if line == "" {
		return ""
	}
	for _, label := range [...]string{"share (c copies): ", "share: "} {
		if labelled := label + line; cells(labelled) <= t.w-2 {
			return labelled
		}
	}
	return line
}

// shareLine is the finished daily's one spoiler-free line to paste in a
// club chat, as `ssh HOST share ID` writes it (package share): the
// date, the rules, cleared or the cards removed as N/28, the time and
// the moves; never a card or a move. Empty for another game, before the
// end's time is read, and for a replay of the day's deal (practice: the
// day's result is the first attempt's).
func (t *tableScreen) shareLine() string {
	if t.day == "" || t.d.status == engine.Playing || !t.wonKnown {
		return ""
	}
	if r := t.result; t.env.persist() && (r == nil || r.Practice) {
		return ""
	}
	g := t.game
	hints, undos := t.assists()
	return share.Game{RulesTitle: g.Rules().Title(), Daily: t.day, Cleared: t.d.status == engine.Won, Removed: g.Removed(),
		Cards: g.Rules().PyramidSize(), Time: t.wonIn, Moves: len(g.Moves()), Assisted: hints > 0 || undos > 0 || t.result != nil && t.result.Fast}.Line(t.env.gl.sep)
}

// dash is a dash between the parts of a sentence: an em dash, or two
// hyphens in ASCII.
func (gl *glyphs) dash() string {
	if gl.unicode {
		return " \u2014 "
	}
	return " -- "
}
