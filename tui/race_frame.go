package tui

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"pyramid/engine"
	"pyramid/lobby"
)

// The race's frame, drawn from parts that are each kept until what they
// show changes. A racer's frame is drawn again for every opponent's move
// (several a second in a race of eight, for every racer of the server),
// and such a move changes one racer's line: the board, the room's line
// and the other racers' lines come out of the cache, and a frame made of
// the same parts as the last one is the last one.

// raceFrame is the race screen's cache of its frame's parts.
type raceFrame struct {
	board      raceBoardKey
	boardLines []string // the board's frame (board.renderLines), its help bar last

	room    roomLineKey
	roomStr string

	racers    []racerLineCache
	rows      []string // the panel's racer lines, two racers each in a wide window; "" to write again
	scratch   []byte   // the panel line being written
	minis     []miniCache
	miniLines []string // the mini pyramids' lines, joined from minis

	chat    chatKey
	chatStr []string
	// chatRowsOf is every row of the chat as chatRowsKey says it was
	// wrapped (race_chat.go); chatPane and chatMaxBack are the rows the
	// last frame had for the chat's rows and markers and how far back it
	// may scroll, which pgup and pgdn go by.
	chatRowsKey chatRowsKey
	chatRowsOf  []string
	chatPane    int
	chatMaxBack int

	cols    int // racers to a panel line
	colsKey colsKey
	colsOf  int // panelCols's answer for colsKey

	parts []string // viewRace's scratch
}

// raceBoardKey is everything the player's board draws from: when it is
// the same, so is the board (the board's game changes only with its
// version).
type raceBoardKey struct {
	t            *tableScreen
	env          *env
	version      int
	cursor, sel  engine.Place
	hint         engine.Move
	msg, title   string
	clock        string
	msgSt        styleID
	w, h         int
	watchers     int
	status       engine.Status
	finish       time.Duration // the player's time, on the cleared panel
	promptClosed bool          // an open prompt changes with every key: never kept
}

// roomLineKey is what the room's line says.
type roomLineKey struct {
	env                *env
	w                  int
	code, title        string
	phase              lobby.Phase
	public, rated      bool
	timeLimit, left    time.Duration
	racers, maxPlayers int
	deal               uint64
	spectators         int
}

// racerLineCache is what one racer's line of the panel was drawn from.
type racerLineCache struct {
	key   racerLineKey
	drawn bool // key is what the line shows
}

// racerLineKey is what a racer's line shows (appendRacerLine), and no more: a
// session keeps one per racer.
type racerLineKey struct {
	env                  *env
	name                 string
	removed, moves, pass int32
	cards                int32 // the racer's pyramid size, or the room's
	nameW                int32 // the names' width (racerNameW)
	short                bool  // the short line (shortPanel)
	state                lobby.RacerState
	present, berserk     bool
	mark                 byte
	st                   styleID
}

// miniCache is one racer's mini pyramid block, a styled string per line.
type miniCache struct {
	key   miniKey
	lines []string
}

// miniKey is what a racer's mini pyramid shows.
type miniKey struct {
	env       *env
	r         lobby.Racer
	mark      string // racerMark
	bw, rows  int
	unicode   bool
	snapCards int
}

// chatKey is what the chat lines under the board show; an open input
// changes with every key and is never kept.
type chatKey struct {
	env  *env
	w, n int
	len  int
	back int // rows scrolled back
	last lobby.ChatLine
}

// frameOf returns the cache, made on first use.
func (rs *raceScreen) frameOf() *raceFrame {
	if rs.vc == nil {
		rs.vc = &raceFrame{}
	}
	return rs.vc
}

// viewRace draws the race: the player's board, the panel, the chat, and
// the board's help bar at the bottom of the window.
func (rs *raceScreen) viewRace() string {
	vc := rs.frameOf()
	vc.parts = rs.appendRace(vc.parts[:0])
	defer clear(vc.parts) // the parts of the frame before may go
	return strings.Join(vc.parts, "\n")
}

// appendRace appends viewRace's frame to dst in parts joined by newlines,
// each kept until what it shows changes: the session's renderer compares
// them with the last frame's without joining them (Model.ViewParts).
func (rs *raceScreen) appendRace(dst []string) []string {
	vc := rs.frameOf()
	dst, bar := rs.boardPart(vc, dst)
	dst = rs.appendPanel(vc, dst)
	t := rs.held.view(rs.table)
	_, needH := t.needs()
	dst = rs.appendChat(vc, dst, rs.chatLines(rs.h-rs.panelLines()-needH))
	return append(dst, bar)
}

// inRace reports whether the screen shows the race (viewRace): the
// player's own game, or the board of the racer a spectator watches.
func (rs *raceScreen) inRace() bool {
	switch rs.mode() {
	case modeRacing:
		return true
	case modeSpectating:
		return rs.snap.Phase == lobby.PhaseRacing && rs.table != nil
	}
	return false
}

// boardPart appends the player's board (or the one held until the server
// has the last change), drawn again only when it changed, a line a part:
// its lines but the last; and it returns its last, the help bar, which
// goes under the panel.
func (rs *raceScreen) boardPart(vc *raceFrame, dst []string) (_ []string, bar string) {
	t := rs.held.view(rs.table)
	k := raceBoardKey{t: t, env: t.env, version: t.version, cursor: t.cursor, sel: t.sel, hint: t.hint,
		msg: t.msg, title: t.shownTitle(), clock: t.clock, msgSt: t.msgSt, w: t.w, h: t.h, watchers: t.watchers,
		status: t.d.status, promptClosed: !t.promptOpen}
	if t.d.status != engine.Playing {
		k.finish = rs.mine().Finish
	}
	if n := len(vc.boardLines) - 1; k.promptClosed && k == vc.board && n >= 0 {
		return append(dst, vc.boardLines[:n]...), vc.boardLines[n]
	}
	var p *Prompt
	if t.promptOpen {
		p = &t.prompt
	}
	vc.board, vc.boardLines = k, t.renderLines(vc.boardLines, rs, "", p, rs.raceBar(), raceBarDrop[:])
	n := len(vc.boardLines) - 1 // a frame has its help bar's line at least
	return append(dst, vc.boardLines[:n]...), vc.boardLines[n]
}

// appendPanel appends the racer panel's lines: the room's line, then the
// racers (a line each, two to a line in a wide window, or a mini pyramid
// each).
func (rs *raceScreen) appendPanel(vc *raceFrame, parts []string) []string {
	parts = append(parts, rs.roomPart(vc))
	if rs.minis() {
		return rs.appendMinis(vc, parts)
	}
	pal := rs.env.pal
	c := rs.panelCols()
	vc.cols = c
	short := rs.shortPanel()
	fixed := racerFixedW
	if short {
		fixed = racerShortFixedW
	}
	nameW := racerNameW(rs.racers, rs.w, c, fixed)
	if len(vc.racers) != len(rs.racers) {
		vc.racers = make([]racerLineCache, len(rs.racers))
	}
	nRows := (len(rs.racers) + c - 1) / c
	if len(vc.rows) != nRows {
		vc.rows = make([]string, nRows)
	}
	for i, r := range rs.racers {
		st := sPlain
		switch {
		case r.ID == rs.you:
			st = sBold
		case r.State == lobby.RacerLeft || !r.Present:
			st = sDim
		case r.State == lobby.RacerCleared:
			st = sOK
		}
		k := racerLineKey{env: rs.env, name: r.Name, removed: int32(r.Removed), moves: int32(r.Moves), pass: int32(r.Pass),
			cards: int32(r.Cards), nameW: int32(nameW), short: short, state: r.State, present: r.Present, berserk: r.Berserk, mark: rs.racerMark(r)[0], st: st}
		if r.Cards == 0 {
			k.cards = int32(rs.snap.Cards)
		}
		if lc := &vc.racers[i]; lc.key != k || !lc.drawn {
			lc.key, lc.drawn = k, true
			vc.rows[i/c] = "" // its line is written again
		}
	}
	for row := range nRows {
		if vc.rows[row] == "" {
			// A line is written again only when one of its racers'
			// changed, into the kept buffer: one string a line.
			b := vc.scratch[:0]
			for i := row * c; i < min((row+1)*c, len(rs.racers)); i++ {
				if i > row*c {
					b = append(b, "  "...)
				}
				lc := &vc.racers[i]
				open := pal.open[lc.key.st]
				b = append(b, open...)
				b = rs.appendRacerLine(b, rs.racers[i], nameW, short)
				if open != "" {
					b = append(b, "\x1b[m"...)
				}
			}
			vc.rows[row], vc.scratch = string(b), b
		}
		parts = append(parts, vc.rows[row])
	}
	return parts
}

// roomPart is the room's line, styled.
func (rs *raceScreen) roomPart(vc *raceFrame) string {
	if rs.ghost != nil {
		return " " + rs.env.pal.style(sBold, cut(rs.roomLine(), rs.w-2, rs.env.gl.ell))
	}
	s := &rs.snap
	k := roomLineKey{env: rs.env, w: rs.w, code: s.Code, title: s.RulesTitle, phase: s.Phase, public: s.Public, rated: s.Rated,
		timeLimit: s.TimeLimit, racers: len(rs.racers), maxPlayers: s.MaxPlayers, deal: s.Deal, spectators: s.Spectators}
	if s.Phase == lobby.PhaseRacing {
		k.left = rs.timeLeft().Round(time.Second)
	}
	if k != vc.room || vc.roomStr == "" {
		vc.room, vc.roomStr = k, " "+rs.env.pal.style(sBold, cut(rs.roomLine(), rs.w-2, rs.env.gl.ell))
	}
	return vc.roomStr
}

// timeLeft is the race's time left as the room's line shows it.
func (rs *raceScreen) timeLeft() time.Duration {
	s := &rs.snap
	left := s.Deadline.Sub(rs.now)
	if rs.now.IsZero() || left > s.TimeLimit {
		left = s.TimeLimit
	}
	return max(0, left)
}

// appendMinis appends a block per racer: the name, the pyramid with one
// cell per card (removed or not), and the figures.
func (rs *raceScreen) appendMinis(vc *raceFrame, parts []string) []string {
	rows, bw := rs.pyramidRows(), rs.miniW()
	if len(vc.minis) != len(rs.racers) {
		vc.minis = make([]miniCache, len(rs.racers))
	}
	changed := len(vc.miniLines) != rows+3
	for i, r := range rs.racers {
		k := miniKey{env: rs.env, r: r, mark: rs.racerMark(r), bw: bw, rows: rows, unicode: rs.env.gl.unicode, snapCards: rs.snap.Cards}
		if c := &vc.minis[i]; c.key != k || c.lines == nil {
			c.key, c.lines = k, rs.miniBlock(r, rows, bw)
			changed = true
		}
	}
	if changed {
		// The panel's lines are joined again only when a block changed
		// (the clock's tick, a chat line, the player's own cursor leave
		// them as they are).
		vc.miniLines = slices.Grow(vc.miniLines[:0], rows+3)
		for line := range rows + 3 {
			n := 0
			for i := range vc.minis {
				n += len(vc.minis[i].lines[line])
			}
			var l strings.Builder
			l.Grow(n)
			for i := range vc.minis {
				l.WriteString(vc.minis[i].lines[line])
			}
			vc.miniLines = append(vc.miniLines, l.String())
		}
	}
	return append(parts, vc.miniLines...)
}

// miniBlock is one racer's mini pyramid block, each line bw cells and
// styled.
func (rs *raceScreen) miniBlock(r lobby.Racer, rows, bw int) []string {
	full, gone := "▲", "·"
	if !rs.env.gl.unicode {
		full = "^"
	}
	mark, st := rs.racerMark(r), sPlain
	if mark == ">" {
		st = sBold
	}
	b := make([]string, 0, rows+3)
	name := cut(clean(r.Name, 16), bw-3, rs.env.gl.ell)
	if r.Berserk {
		name = cut(clean(r.Name, 16), bw-4, rs.env.gl.ell) + berserkMark
	}
	b = append(b, padRight(" "+mark+name, bw))
	for row := range rows {
		var l strings.Builder
		l.WriteString(strings.Repeat(" ", 2+rows-1-row))
		for c := 0; c <= row; c++ {
			if c > 0 {
				l.WriteByte(' ')
			}
			if r.Board&(1<<(row*(row+1)/2+c)) != 0 {
				l.WriteString(gone)
			} else {
				l.WriteString(full)
			}
		}
		b = append(b, padRight(l.String(), bw))
	}
	state := r.State.String()
	if !r.Present && r.State == lobby.RacerPlaying {
		state = "left"
	}
	b = append(b, padRight("  "+strconv.Itoa(r.Removed)+"/"+strconv.Itoa(max(r.Cards, rs.snap.Cards))+" "+strconv.Itoa(r.Moves)+"mv", bw),
		padRight("  "+state, bw))
	for i := range b {
		b[i] = rs.env.pal.style(st, cut(b[i], bw, ""))
	}
	return b
}
