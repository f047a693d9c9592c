package tui

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"

	"pyramid/engine"
	"pyramid/keys"
	"pyramid/lobby"
	"pyramid/rating"
	"pyramid/share"
)

// racerCols is how many racers the panel puts on one line at width w.
func racerCols(w, n int) int {
	if w >= 2*racerLineW+2 && n > 4 {
		return 2
	}
	return 1
}

// racerLineW is the width of one racer in the panel when two share a
// line of 80 columns.
const racerLineW = 39

// racerFixedW is a racer's line but the name: the mark, cards removed,
// moves, pass and state ("> " … " 12/28  40 mv p1 playing"); and
// racerShortFixedW the short line's, the cards removed and a short state
// ("> " … " 12/28 stuck"), which a narrow window puts two to a line.
const (
	racerFixedW      = 25
	racerShortFixedW = 13
)

// racerNameW is the width of the names in a panel of c racers to a line
// at width w, each line fixed cells but the name: the longest name of the
// racers (at least 10 cells, so that the columns stay put for short
// names), as much of it as the line holds.
func racerNameW(racers []lobby.Racer, w, c, fixed int) int {
	longest := 10
	for _, r := range racers {
		longest = max(longest, min(cells(r.Name), keys.MaxNameWidth))
	}
	room := (w-2*(c-1))/c - fixed
	return max(min(longest, room), 4)
}

// shortPanel reports whether the panel puts two racers to a line in
// their short form: a window too narrow for two long lines (a phone's)
// and too short for a line each under the board.
func (rs *raceScreen) shortPanel() bool {
	n := len(rs.racers)
	if rs.table == nil || n < 2 || racerCols(rs.w, n) == 2 {
		return false
	}
	_, needH := rs.table.needs()
	return rs.h < needH+1+n
}

// panelLines is how many lines the racer panel takes: the room's line and
// the racers (a line each, or a mini pyramid each in a wide window).
func (rs *raceScreen) panelLines() int {
	if rs.minis() {
		return 1 + rs.pyramidRows() + 3
	}
	n := len(rs.racers)
	c := rs.panelCols()
	return 1 + (n+c-1)/c
}

// panelCols is how many racers the panel puts on one line: two in a wide
// window with more than four racers, unless one a line leaves the board
// its cards as they are and room for three chat lines (an opponent's move
// then redraws one racer's line, not two racers').
func (rs *raceScreen) panelCols() int {
	n := len(rs.racers)
	if rs.shortPanel() {
		return 2
	}
	if racerCols(rs.w, n) == 1 {
		return 1
	}
	t := rs.table
	if t == nil {
		return 2
	}
	_, needH := t.needs()
	two := 1 + (n+1)/2
	one := rs.h - (1 + n) - 3
	if one < needH {
		return 2
	}
	rows, piles, uni := t.game.Rows(), t.game.Piles(), rs.env.gl.unicode
	twoH := rs.h - two - rs.chatLines(rs.h-two-needH)
	// Asked several times a frame: the layouts are worked out once per
	// size.
	vc := rs.frameOf()
	k := colsKey{w: rs.w, one: one, two: twoH, rows: rows, piles: piles, unicode: uni}
	if k != vc.colsKey || vc.colsOf == 0 {
		vc.colsKey, vc.colsOf = k, 2
		if newLayout(rs.w, one, rows, piles, uni).geo == newLayout(rs.w, twoH, rows, piles, uni).geo {
			vc.colsOf = 1
		}
	}
	return vc.colsOf
}

// colsKey is what panelCols's layouts depend on.
type colsKey struct {
	w, one, two, rows, piles int
	unicode                  bool
}

// pyramidRows is the number of rows of the race's pyramid.
func (rs *raceScreen) pyramidRows() int {
	if rs.table != nil {
		return rs.table.game.Rows()
	}
	return 7
}

// miniW is the width of one racer's mini pyramid block: a margin of two
// cells, which parts its bottom row from the block before by two blanks
// (one is the gap between cards), and the pyramid.
func (rs *raceScreen) miniW() int { return max(2*rs.pyramidRows()-1, 10) + 2 }

// minis reports whether the panel draws a mini pyramid per racer: in a
// window of 120 columns or more, wide enough for all of them, and tall
// enough beside the board.
func (rs *raceScreen) minis() bool {
	if rs.table == nil || rs.w < 120 || len(rs.racers)*rs.miniW() > rs.w {
		return false
	}
	_, needH := rs.table.needs()
	return rs.h-needH >= 1+rs.pyramidRows()+3
}

// chatLines is how many rows of the chat show under the board: the last
// ones, up to chatPaneMax, in the lines the board leaves.
func (rs *raceScreen) chatLines(spare int) int {
	return max(0, min(rs.chatRowsWanted(), chatPaneMax, spare))
}

// layOut sizes the player's board to leave room for the panel and the
// chat.
func (rs *raceScreen) layOut() {
	t := rs.table
	if t == nil {
		return
	}
	_, needH := t.needs()
	spare := rs.h - rs.panelLines() - needH
	boardH := rs.h - rs.panelLines() - rs.chatLines(spare)
	if t.w != rs.w || t.h != boardH {
		t.setSize(rs.w, max(1, boardH))
	}
	rs.held.setSize(rs.w, max(1, boardH))
}

// needs is the smallest window the screen is readable in.
func (rs *raceScreen) needs() (w, h int) {
	if rs.table != nil && rs.snap.Phase == lobby.PhaseRacing {
		w, h = rs.table.needs()
		return w, h + rs.panelLines()
	}
	return minTableWidth, 12
}

// say sets the message line, the table's too during the race.
func (rs *raceScreen) say(st styleID, text string) {
	rs.msg, rs.msgSt = text, st
	if rs.table != nil {
		rs.table.say(st, text)
	}
	rs.held.say(st, text)
}

// view draws the screen.
func (rs *raceScreen) view() string {
	mode := rs.mode()
	switch {
	case mode == modeJoining:
		return centered(rs.w, rs.h, "Finding your room"+rs.env.gl.ell, "q: back to the menu")
	case mode == modeCode:
		var b strings.Builder
		out := lines{b: &b}
		ask := wrapIndented([]string{"  Join a race: type the room's code (" + strconv.Itoa(lobby.CodeLen) + " letters) and press enter"}, rs.w)
		out.fill(max(0, rs.h/2-1-len(ask)))
		for _, l := range ask {
			out.add(l)
		}
		out.add("")
		out.add("  " + rs.input.view(rs.env.pal, rs.w-4))
		out.fill(rs.h - 2)
		out.add(" " + rs.env.pal.style(rs.msgSt, cut(rs.msg, rs.w-2, rs.env.gl.ell)))
		out.add(cut(" enter: join"+rs.env.gl.sep+"esc: back", rs.w, ""))
		return b.String()
	case rs.inRace():
		return rs.viewRace()
	case rs.snap.Phase == lobby.PhaseResults && rs.ghost != nil:
		return rs.viewGhostResults() // ghost.go
	case rs.snap.Phase == lobby.PhaseResults:
		return rs.viewResults()
	}
	return rs.viewWaiting()
}

// roomLine is the room's line: code, rules, deal and what it waits for.
func (rs *raceScreen) roomLine() string {
	if rs.ghost != nil {
		return rs.ghostLine() // ghost.go
	}
	s := &rs.snap
	gl := rs.env.gl
	line := "room " + s.Code + gl.sep + s.RulesTitle
	switch s.Phase {
	case lobby.PhaseWaiting:
		kind := "private"
		if s.Public {
			kind = "public"
		}
		line += gl.sep + kind + gl.sep + clock(s.TimeLimit) + " race" + gl.sep +
			strconv.Itoa(len(rs.racers)) + "/" + strconv.Itoa(s.MaxPlayers) + " players"
	case lobby.PhaseCountdown:
		line += gl.sep + "starting"
	case lobby.PhaseRacing:
		line += gl.sep + clock(rs.timeLeft()) + " left"
		if !s.Rated {
			line += gl.sep + unratedNote
		}
	case lobby.PhaseResults:
		line += gl.sep + dealLabel(s.Deal, s.DealShown()) + gl.sep + "results"
	}
	if s.Spectators > 0 {
		line += gl.sep + strconv.Itoa(s.Spectators) + " watching"
	}
	return line
}

// ratingColumn is what the results say of how the race counted for a
// racer: "1512 → 1527 +15" for a rated racer (with "?" for a provisional
// rating), "unrated" or "no race" (ratingNotes says why), "guest".
func ratingColumn(p lobby.Placing, gl *glyphs) string {
	c := p.Rating
	switch {
	case p.Guest:
		return "guest"
	case c == nil:
		return ""
	case c.Standing == rating.Unrated:
		return "unrated"
	case c.Standing != rating.Rated:
		return "no race"
	}
	before, after := int(math.Round(c.Before)), int(math.Round(c.After))
	arrow := " -> "
	if gl.unicode {
		arrow = " → "
	}
	mark := ""
	if c.Provisional {
		mark = "?"
	}
	delta := after - before
	sign := "+"
	if delta < 0 {
		sign = "−"
		if !gl.unicode {
			sign = "-"
		}
		delta = -delta
	}
	return strconv.Itoa(before) + arrow + strconv.Itoa(after) + mark + " " + sign + strconv.Itoa(delta)
}

// ratingNotes say why the race did not count for the racers it did not
// count for, a line per reason: "unrated: moves faster than play: ann".
// A chosen deal is said elsewhere, for the whole race.
func ratingNotes(results []lobby.Placing) []string {
	var reasons []string
	who := map[string][]string{}
	for _, p := range results {
		c := p.Rating
		if c == nil || c.Standing == rating.Rated || c.Reason == rating.ReasonChosenDeal {
			continue
		}
		word := "unrated: "
		if c.Standing == rating.Aborted {
			word = "no race: "
		}
		key := word + c.Reason.Words()
		if who[key] == nil {
			reasons = append(reasons, key)
		}
		who[key] = append(who[key], clean(p.Name, 16))
	}
	var out []string
	for _, r := range reasons {
		out = append(out, "  "+r+": "+strings.Join(who[r], ", "))
	}
	if slices.ContainsFunc(results, func(p lobby.Placing) bool { return p.Rating != nil && p.Rating.Provisional }) {
		out = append(out, fmt.Sprintf("  ? a provisional rating: fewer than %d rated races or %d opponents.",
			rating.ProvisionalRaces, rating.ProvisionalOpponents))
	}
	return out
}

// unratedNote is what the race screens say of a room whose deal the host
// chose: its races change no rating (lobby.RoomConfig.Rated).
const unratedNote = "unrated: chosen deal"

// appendRacerLine appends one racer's line of the panel to dst: the mark,
// the name (nameW cells: racerNameW), cards removed, moves, pass and
// state, nameW+racerFixedW cells; or the short line (shortPanel), the
// mark, the name, cards removed and a short state, nameW+racerShortFixedW
// cells. The panel draws a line for every opponent's move, into a kept
// buffer: a name of printable ASCII costs no allocation.
func (rs *raceScreen) appendRacerLine(dst []byte, r lobby.Racer, nameW int, short bool) []byte {
	w := nameW + racerFixedW
	if short {
		w = nameW + racerShortFixedW
	}
	dst = append(dst, rs.racerMark(r)...)
	name := cut(clean(r.Name, keys.MaxNameWidth), nameW, rs.env.gl.ell)
	if r.Berserk {
		// An arena racer who gave up undo: the mark ends the name (no
		// name has it), which is cut to leave it room.
		name = cut(clean(r.Name, keys.MaxNameWidth), nameW-1, rs.env.gl.ell) + berserkMark
	}
	nameC := cells(name)
	dst = append(dst, name...)
	if nameC < nameW {
		dst = appendBlanks(dst, nameW-nameC) // as padRight pads it
		nameC = nameW
	}
	nameEnd := len(dst)
	cards := r.Cards
	if cards == 0 {
		cards = rs.snap.Cards
	}
	state := r.State.String()
	if !r.Present && r.State == lobby.RacerPlaying {
		state = "left"
	}
	dst = append(dst, ' ')
	dst = appendPadLeft(dst, r.Removed, 2)
	dst = append(dst, '/')
	dst = strconv.AppendInt(dst, int64(cards), 10)
	dst = append(dst, ' ')
	if short {
		dst = append(dst, shortState(state)...)
	} else {
		dst = appendPadLeft(dst, r.Moves, 3)
		dst = append(dst, " mv p"...)
		dst = strconv.AppendInt(dst, int64(max(r.Pass, 1)), 10)
		dst = append(dst, ' ')
		dst = append(dst, state...)
	}
	// The mark is one cell and what follows the name is ASCII: the line
	// is cut and padded to w cells as padRight(cut(line, w, "")) does.
	fixed := nameEnd // the rest's first byte
	switch n := 1 + nameC + len(dst) - fixed; {
	case n > w:
		dst = dst[:max(fixed, fixed+w-1-nameC)]
	case n < w:
		dst = appendBlanks(dst, w-n)
	}
	return dst
}

// shortState is a racer's state (its word on the long line) as the short
// line says it, in five cells at most; a racer still playing needs no
// word.
func shortState(state string) string {
	switch state {
	case "playing":
		return ""
	case "waiting":
		return "wait"
	case "cleared":
		return "clear"
	}
	return cut(state, 5, "")
}

// appendPadLeft appends n in decimal, padded with spaces on the left to
// w cells, as padLeft(strconv.Itoa(n), w) writes it.
func appendPadLeft(dst []byte, n, w int) []byte {
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], int64(n), 10)
	dst = appendBlanks(dst, w-len(d))
	return append(dst, d...)
}

// The race's help bar, and the order it gives items up in: undo before
// draw, as the table's (tableBarDrop).
var raceBarDrop = [...]uint8{5, 0, 1, 4, 3, 2, 8, 6, 7}

func (rs *raceScreen) raceBar() []key.Binding {
	if rs.watching {
		return []key.Binding{key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next racer")), rs.keys.Chat, rs.keys.Leave, rs.keys.Help}
	}
	k := &rs.table.Keys
	sel, undo := k.Select, k.Undo
	sel.SetEnabled(rs.table.d.status == engine.Playing)
	if ms := rs.table.game.Moves(); len(ms) > 0 && (ms[len(ms)-1].Kind == engine.Draw || ms[len(ms)-1].Kind == engine.Redeal) ||
		rs.table.d.status != engine.Playing || rs.berserk() {
		undo.SetEnabled(false) // undo never takes back a draw or a redeal in a race
	}
	chat := rs.keys.Chat
	chat.SetEnabled(rs.ghost == nil) // a ghost does not chat
	// Into a kept slice: the bar is drawn from it at once, and a board is
	// drawn for every key of the race.
	rs.barKeys = append(rs.barKeys[:0], k.Move, sel, k.Draw, undo, k.Redo, k.Prompt, chat, rs.keys.Leave, rs.keys.Help)
	return rs.barKeys
}

// racerMark is the mark before a racer's name in the panel: > for the
// player (or the racer a spectator watches), * for the host in the
// waiting room.
func (rs *raceScreen) racerMark(r lobby.Racer) string {
	switch {
	case r.ID == rs.you, rs.watching && r.ID == rs.watched:
		return ">"
	case r.Host && rs.snap.Phase == lobby.PhaseWaiting:
		return "*"
	}
	return " "
}

// panel is the table's panel once the player cleared the pyramid (with
// the deal's par once known, as the solo win says it), or is stuck.
func (rs *raceScreen) panel(dst []string, moves, passes string, w int) []string {
	if t := rs.table; t != nil && t.d.status == engine.Lost {
		// Broken between its parts when too wide: a narrow summary
		// goes beside the pyramid.
		removed := strconv.Itoa(t.d.removed) + "/" + strconv.Itoa(t.game.Rules().PyramidSize()) + " removed"
		dst = append(dst, "No moves left", "")
		if s := removed + rs.env.gl.sep + moves; cells(s) <= w {
			dst = append(dst, s)
		} else {
			dst = append(dst, removed, moves)
		}
		return append(append(dst, ""), rs.resultsCome(w)...)
	}
	me := rs.mine()
	if rs.par > 0 && rs.parRound == rs.snap.Round+1 {
		moves += ", par " + strconv.Itoa(rs.par)
	}
	tm := ""
	if me.Finish > 0 {
		tm = "time " + share.RaceTime(me.Finish) + rs.env.gl.sep
	}
	figures := []string{tm + moves + rs.env.gl.sep + passes}
	if cells(figures[0]) > w {
		figures = []string{tm + moves, passes} // too wide: broken between its parts
	}
	dst = append(dst, "You cleared the pyramid!", "")
	dst = append(dst, figures...)
	return append(append(dst, ""), rs.resultsCome(w)...)
}

// resultsCome is what a racer's panel says once the racer is done, in
// lines of at most w cells: in an arena, the next game comes before the
// slower racers are done.
func (rs *raceScreen) resultsCome(w int) []string {
	lines := []string{"the results come", "when everybody is done"}
	if rs.inArenaRoom() {
		lines = []string{"your next game comes in a moment;", "the points of this one when it ends"}
	}
	if s := lines[0] + " " + lines[1]; cells(s) <= w && !rs.inArenaRoom() {
		return []string{s}
	}
	return lines
}

// viewWaiting draws the waiting room and the countdown.
func (rs *raceScreen) viewWaiting() string {
	if rs.inArenaRoom() {
		return rs.viewArenaWaiting() // race_arena.go
	}
	gl := rs.env.gl
	s := &rs.snap
	var body []string
	body = append(body, "")
	// A narrow window (a phone's) gets the names' column as wide as the
	// longest name, after a shorter indent.
	indent, nameW := "   ", 16
	if 3+17+len("host  not ready  (you)") > rs.w {
		indent, nameW = " ", 1
		for _, r := range rs.racers {
			nameW = max(nameW, min(cells(clean(r.Name, 16)), 16))
		}
	}
	for _, r := range rs.racers {
		line := indent + padRight(cut(clean(r.Name, 16), nameW, gl.ell), nameW+1)
		if r.Host {
			line += "host  "
		} else {
			line += "      "
		}
		switch {
		case !r.Present:
			line += "away"
		case s.Phase == lobby.PhaseCountdown:
			// The marks are over: the race starts for everybody.
		case r.Ready:
			line += "ready"
		default:
			line += "not ready"
		}
		if r.ID == rs.you {
			line += "  (you)"
		}
		body = append(body, line)
	}
	body = append(body, "")
	switch {
	case s.Phase == lobby.PhaseCountdown:
		body = append(body, "   "+rs.env.pal.style(sWarn, "The race starts in "+strconv.Itoa(rs.countdownShown())+gl.ell))
	case rs.watching:
		body = append(body, "   You watch this room: the race shows here when the host starts it.")
	case s.Host == rs.you && len(rs.racers) < lobby.MinRacers:
		body = append(body, "   Waiting for a second racer: give them the code "+s.Code+".")
	case s.Host == rs.you:
		if n := len(rs.notReady()); n > 0 {
			// The racers' lines above say who.
			body = append(body, "   You host: s starts the race once everybody is ready ("+strconv.Itoa(n)+" not yet).")
		} else {
			body = append(body, "   You host, and everybody is ready: s starts the race.")
		}
	case rs.mine().Ready:
		body = append(body, "   You are ready: the race starts once everybody is.")
	default:
		body = append(body, "   r marks you ready: the race starts once everybody is ready.")
	}
	body = append(wrapIndented(body, rs.w), "")
	body = append(body, rs.chatBody(rs.h-4-len(body))...)
	keys := rs.waitingKeys()
	// A rated room's deal is hidden until the race is over
	// (lobby.DealShown): nobody can solve it before.
	sub := dealLabel(s.Deal, s.DealShown()) + gl.sep + "the same deal for everybody" + gl.sep + "no hints" + gl.sep + "undo: removals only"
	if !s.Rated {
		// "deal N" says it is the same for everybody: 80 columns hold
		// the note instead.
		sub = dealLabel(s.Deal, s.DealShown()) + gl.sep + unratedNote + gl.sep + "no hints" + gl.sep + "undo: removals only"
	}
	return drawPage(rs.env, rs.w, rs.h, rs.roomLine(), sub, body, rs.msg, rs.msgSt, rs.bar, keys)
}

// notReady is the racers present, but for the player, who are not
// ready: the host's start waits for them.
func (rs *raceScreen) notReady() []lobby.Racer {
	var out []lobby.Racer
	for _, r := range rs.racers {
		if r.Present && !r.Ready && r.ID != rs.you {
			out = append(out, r)
		}
	}
	return out
}

func (rs *raceScreen) waitingKeys() []key.Binding {
	km := rs.keys
	if rs.watching {
		return []key.Binding{km.Chat, km.Leave, km.Help}
	}
	km.Start.SetEnabled(rs.snap.Host == rs.you && rs.snap.Phase == lobby.PhaseWaiting)
	km.Ready.SetEnabled(rs.snap.Phase == lobby.PhaseWaiting)
	if rs.mine().Ready {
		km.Ready.SetHelp("r", "not ready")
	}
	return []key.Binding{km.Start, km.Ready, km.Chat, km.Leave, km.Help}
}

// hostName is the room's host's name as the screen shows it, or "" when
// the host is not among the members (the part passes to a racer present
// when the host goes).
func (rs *raceScreen) hostName() string {
	for _, m := range rs.snap.Members {
		if m.ID == rs.snap.Host {
			return clean(m.Name, 16)
		}
	}
	return ""
}

// viewResults draws the results.
func (rs *raceScreen) viewResults() string {
	gl := rs.env.gl
	s := &rs.snap
	body := []string{""}
	// An arena's solo deal (nobody else was free) scores in the arena
	// and is no race for the ratings, which its results leave out.
	solo := rs.inArenaRoom() && len(s.Results) == 1
	// The ratings come a moment after the results: once the lease holder
	// stored the race.
	rated := !solo && slices.ContainsFunc(s.Results, func(p lobby.Placing) bool { return p.Rating != nil })
	tight := rs.w < 2+4+17+28+len("40 moves") // the results' columns do not fit
	nameW := 1
	for _, p := range s.Results {
		nameW = max(nameW, min(cells(clean(p.Name, 16)), 16))
	}
	for _, p := range s.Results {
		what := strconv.Itoa(p.Removed) + "/" + strconv.Itoa(s.Cards)
		state := p.State.String()
		if p.State == lobby.RacerPlaying {
			state = "time up" // still playing when the race ended: its time limit
		}
		switch {
		case p.Cleared:
			what = "cleared in " + share.RaceTime(p.Time)
		case rs.over && p.State == lobby.RacerWaiting && p.Removed > 0:
			what += " at " + share.RaceTime(p.Time) // stored before the store kept how it ended
		case rs.over && p.State == lobby.RacerWaiting:
		case p.Removed > 0:
			what += " at " + share.RaceTime(p.Time) + " (" + state + ")"
		default:
			what += " (" + state + ")"
		}
		moves := strconv.Itoa(p.Moves) + plural(p.Moves, " move", " moves")
		line := "  " + padLeft(strconv.Itoa(p.Place), 2) + ". " + padRight(cut(clean(p.Name, 16), 16, gl.ell), 17) +
			padRight(what, 28) + moves
		lines := []string{line}
		switch {
		case tight:
			// A narrow window (a phone's): the names' column as wide as
			// the longest name, the moves after the rest when they fit,
			// else with the rating on a line of their own.
			first := " " + padLeft(strconv.Itoa(p.Place), 2) + ". " + padRight(cut(clean(p.Name, 16), nameW, gl.ell), nameW+1) + what
			switch more := "     " + moves; {
			case rated:
				lines = []string{first, more + gl.sep + ratingColumn(p, gl)}
			case cells(first+gl.sep+moves) <= rs.w:
				lines = []string{first + gl.sep + moves}
			default:
				lines = []string{first, more}
			}
		case rated:
			// At 80 columns: "1500 → 1394? −106" ends at column 78.
			lines[0] = padRight(line, 60) + " " + ratingColumn(p, gl)
		}
		for _, l := range lines {
			if p.ID == rs.you {
				l = rs.env.pal.style(sBold, cut(l, rs.w, gl.ell))
			}
			body = append(body, l)
		}
	}
	body = append(body, "")
	if rated {
		for _, l := range ratingNotes(s.Results) {
			if !tight {
				l = cut(l, max(rs.w-2, 10), gl.ell) // wrapIndented breaks it in a narrow window
			}
			body = append(body, l)
		}
	}
	if rs.over {
		body = append(body, "  Room "+s.Code+" has closed: these are your last race's results in it, as stored.")
		if rs.guests > 0 {
			body = append(body, "  "+strconv.Itoa(rs.guests)+plural(rs.guests, " guest", " guests")+
				" raced too: a guest's place is kept, nothing else of theirs is stored.")
		}
	}
	switch {
	case rs.over && s.Verdict == engine.Unknown:
		// Stored before the store kept what the solver said, or undecided.
	case s.Verdict == engine.Winnable:
		body = append(body, "  The deal was winnable: the solver proved it.")
	case s.Verdict == engine.Unwinnable:
		body = append(body, "  The deal could not be won: no line of play clears it.")
	default:
		body = append(body, "  Whether the deal could be won is not known: the solver did not decide in time.")
	}
	switch {
	case solo:
		body = append(body, "  A solo deal of the arena (nobody else was free): clearing it is a win; no rating changes.")
	case !s.Rated:
		body = append(body, "  Unrated (the host chose the deal): no rating, win or podium changes.")
	}
	if rs.par > 0 && rs.parRound == s.Round+1 {
		body = append(body, "  Par: "+parNote(rs.par, 0)+" (the shortest winning line).")
	}
	switch {
	case rs.inArenaRoom() && rs.watching:
		body = append(body, "  An arena race: q goes back to the arena.")
	case rs.inArenaRoom():
		body = append(body, "  Next game soon: back to the arena in a few seconds (enter: now).")
	case rs.over:
	case s.Host == rs.you && !s.Rated:
		body = append(body, "  r: a rematch in this room, on a new deal dealt at random: rated.")
	case s.Host == rs.you:
		body = append(body, "  r: a rematch in this room, on a new deal.")
	case rs.hostName() != "":
		body = append(body, "  "+rs.hostName()+", the host, may start a rematch in this room.")
	default:
		body = append(body, "  The host may start a rematch in this room.")
	}
	if line := raceShareFit(*s, rs.you, gl.sep, rs.w-4); line != "" {
		// A player copies it from the terminal: the label goes on a line
		// of its own before the line is ever cut.
		if labelled := "Share (c copies): " + line; cells(labelled) <= rs.w-4 {
			body = append(body, "  "+labelled)
		} else if labelled := "Share: " + line; cells(labelled) <= rs.w-4 {
			body = append(body, "  "+labelled)
		} else {
			body = append(body, "  Share:", "  "+cut(line, max(rs.w-4, 10), gl.ell))
		}
	}
	body = append(wrapIndented(body, rs.w), "")
	body = append(body, rs.chatBody(rs.h-4-len(body))...)
	km := rs.keys
	km.Rematch.SetEnabled(s.Host == rs.you)
	sub := s.RulesTitle + gl.sep + dealLabel(s.Deal, s.DealShown())
	if !s.Rated {
		sub += gl.sep + unratedNote
	}
	bindings := []key.Binding{km.Rematch, km.Chat, km.Leave, km.Help}
	switch {
	case rs.over:
		bindings = []key.Binding{km.Leave, km.Help}
	case rs.inArenaRoom():
		km.Leave.SetHelp("enter", "arena")
		bindings = []key.Binding{km.Chat, km.Leave, km.Help}
	}
	return drawPage(rs.env, rs.w, rs.h, rs.pageTitle("room "+s.Code+gl.sep+"results"), sub, body, rs.msg, rs.msgSt, rs.bar, bindings)
}
