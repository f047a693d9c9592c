package server

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// Frame pacing. Bubble Tea's standard renderer draws on a 60 fps ticker:
// a goroutine and a timer per session that wake 60 times a second whether
// or not anything changed, and a key waits for the next tick (8 ms on
// average) before its frame leaves. The session's own renderer draws
// right after the Update that changed the view instead, and only paces
// frames that come in a burst.
const (
	// inputGap is the least time between two frames when the second one
	// answers the player's input (a key, a click, a resize): a key alone
	// is drawn at once; a paste of keys is drawn at most every inputGap.
	inputGap = 4 * time.Millisecond
	// eventGap is the same for everything else (replies of commands,
	// lobby and race events, clock ticks): at most 60 such frames a
	// second, as the standard renderer drew. A message may ask for a
	// longer gap (FrameGapper: a race room's events) or let its frame
	// wait for company (FrameSlacker: a clock's tick).
	eventGap = time.Second / 60
	// poolBuf is the largest output buffer given back to frameBufs
	// after a write: a key's frame fits many times, a rare larger one
	// (a repaint at 500×200) is let go.
	poolBuf = 64 << 10
	// maxWrite is the most a frame gives the SSH channel in one write: a
	// larger frame (a repaint: the first frame, a resize, a new screen)
	// goes in several. The channel keeps a packet buffer, and the
	// connection a sealing buffer, as large as the largest write it was
	// ever given, for the session's life: a repaint is kilobytes, a
	// key's frame a few hundred bytes, so a session that repainted once
	// would keep kilobytes it seldom needs. Smaller writes cost a few
	// bytes of framing per packet more.
	maxWrite = 512
)

// Terminal sequences the renderer writes: DEC private modes (alternate
// screen with the cursor saved, bracketed paste, mouse reports with SGR
// coordinates, focus reports: those Bubble Tea's standard renderer set)
// and the few cursor and erase commands a frame needs.
const (
	seqAltScreenOn   = "\x1b[?1049h"
	seqAltScreenOff  = "\x1b[?1049l"
	seqCursorHide    = ansi.HideCursor
	seqCursorShow    = ansi.ShowCursor
	seqPasteOn       = "\x1b[?2004h"
	seqPasteOff      = "\x1b[?2004l"
	seqMouseCell     = "\x1b[?1002h"
	seqMouseCellOff  = "\x1b[?1002l"
	seqMouseAll      = "\x1b[?1003h"
	seqMouseAllOff   = "\x1b[?1003l"
	seqMouseSGR      = "\x1b[?1006h"
	seqMouseSGROff   = "\x1b[?1006l"
	seqFocusOn       = "\x1b[?1004h"
	seqFocusOff      = "\x1b[?1004l"
	seqClearScreen   = ansi.EraseEntireScreen + ansi.CursorHomePosition
	seqHome          = ansi.CursorHomePosition // every frame starts here (tools/loadgen counts frames by it)
	seqEraseRight    = ansi.EraseLineRight
	seqEraseBelow    = ansi.EraseScreenBelow
	seqEraseLine     = ansi.EraseEntireLine
	seqAllMouseModes = seqMouseCellOff + seqMouseAllOff + seqMouseSGROff
	// Synchronized output (DEC mode 2026): a terminal that knows it shows
	// what comes between the two at once; others ignore both.
	seqSyncBegin = "\x1b[?2026h"
	seqSyncEnd   = "\x1b[?2026l"
)

// mouseMode is the mouse reporting a program asked for.
type mouseMode uint8

const (
	mouseOff mouseMode = iota
	mouseCell
	mouseAll
)

// flushMsg asks the renderer to draw a frame it held back (see pace).
type flushMsg struct{}

// frameRenderer draws a program's views on its session's terminal. It
// replaces Bubble Tea's standard renderer (the program runs with
// tea.WithoutRenderer): it is driven by the program's updates instead of a
// ticker, writes each frame (the lines that changed, with the terminal
// commands that came before them) in one write, and owns the terminal
// modes: alternate screen, cursor, mouse, bracketed paste, all restored by
// restore.
//
// Everything but the pacing timer runs on the program's event loop
// goroutine (framedModel's Init and Update, then runProgram once the
// program is done), so it needs no lock. A write that blocks (a client
// that stopped reading) stalls only this session's program, as the
// standard renderer's did; the session's write timeout ends it.
type frameRenderer struct {
	out  io.Writer
	now  func() time.Time
	send func(tea.Msg) // the program's Send, for the pacing timer

	width, height int

	// Terminal modes: wanted, and whether the terminal was set up.
	started bool
	alt     bool
	cursor  bool // cursor shown
	mouse   mouseMode
	paste   bool
	focus   bool
	inlineN int      // lines of the last frame drawn outside the alternate screen
	repaint bool     // draw every line of the next frame
	shown   []string // the view on the screen, in the parts it was drawn from (joined by newlines)
	one     []string // draw's scratch: a view of one part
	buf     []byte   // terminal commands waiting for the next write, then the frame
	bufBox  *[]byte  // buf's box in frameBufs, while buf is taken from it

	last  time.Time  // when the last frame was written
	held  bool       // a frame was held back by pace
	timer flushTimer // delivers flushMsg for a held frame
	// afterFunc starts timer (time.AfterFunc; tests replace it).
	afterFunc func(time.Duration, func()) flushTimer
	armed     bool      // timer is running
	due       time.Time // when the armed timer fires
	frames    int64     // frames written (for tests)
}

// flushTimer is the pacing timer: a *time.Timer of time.AfterFunc.
type flushTimer interface {
	Stop() bool
	Reset(d time.Duration) bool
}

// afterFunc is time.AfterFunc as a flushTimer.
func afterFunc(d time.Duration, f func()) flushTimer { return time.AfterFunc(d, f) }

// newFrameRenderer returns a renderer for a terminal of width × height that
// starts in the alternate screen with the cursor hidden, cell-motion mouse
// reports and bracketed paste, as the program's options used to ask of the
// standard renderer.
func newFrameRenderer(out io.Writer, now func() time.Time, width, height int) *frameRenderer {
	return &frameRenderer{out: out, now: now, afterFunc: afterFunc, width: width, height: height, alt: true, mouse: mouseCell, paste: true}
}

// command applies a terminal command message to the renderer's state and
// queues its sequence for the next write; it reports whether msg was one.
// Bubble Tea's messages for these commands are unexported empty structs,
// so they are told apart by value.
func (r *frameRenderer) command(msg tea.Msg) bool {
	switch msg {
	case tea.ClearScreen():
		r.emit(seqClearScreen)
		r.repaint = true
	case tea.EnterAltScreen():
		if !r.alt {
			r.alt = true
			if r.started {
				r.emit(seqAltScreenOn + seqClearScreen)
				r.emitCursor()
			}
			r.repaint = true
		}
	case tea.ExitAltScreen():
		if r.alt {
			r.alt = false
			if r.started {
				r.emit(seqAltScreenOff)
				r.emitCursor()
			}
			r.inlineN = 0
			r.repaint = true
		}
	case tea.ShowCursor(), tea.HideCursor():
		r.cursor = msg == tea.ShowCursor()
		if r.started {
			r.emitCursor()
		}
	case tea.EnableMouseCellMotion(), tea.EnableMouseAllMotion():
		r.mouse = mouseCell
		seq := seqMouseCell
		if msg == tea.EnableMouseAllMotion() {
			r.mouse, seq = mouseAll, seqMouseAll
		}
		if r.started {
			r.emit(seq + seqMouseSGR)
		}
	case tea.DisableMouse():
		r.mouse = mouseOff
		if r.started {
			r.emit(seqAllMouseModes)
		}
	case tea.EnableBracketedPaste(), tea.DisableBracketedPaste():
		r.paste = msg == tea.EnableBracketedPaste()
		if r.started {
			r.emit(pick(r.paste, seqPasteOn, seqPasteOff))
		}
	case tea.EnableReportFocus(), tea.DisableReportFocus():
		r.focus = msg == tea.EnableReportFocus()
		if r.started {
			r.emit(pick(r.focus, seqFocusOn, seqFocusOff))
		}
	default:
		return false
	}
	return true
}

// pick returns on when b holds, else off.
func pick(b bool, on, off string) string {
	if b {
		return on
	}
	return off
}

// resize takes a new window size: the next frame is drawn whole on a
// cleared screen (the terminal may have rewrapped what it showed).
func (r *frameRenderer) resize(width, height int) {
	if width == r.width && height == r.height {
		return
	}
	r.width, r.height = width, height
	if r.started && r.alt {
		r.emit(seqClearScreen)
	}
	r.repaint = true
}

// emit queues a sequence for the next write.
func (r *frameRenderer) emit(seq string) {
	r.takeBuf()
	r.buf = append(r.buf, seq...)
}

// frameBufs are the sessions' output buffers between a frame's first
// byte and its write: a session keeps none between frames, and a frame
// allocates none (a thousand racers draw five frames a second each).
var frameBufs = sync.Pool{New: func() any { return new([]byte) }}

// takeBuf takes an output buffer from frameBufs, unless one is taken.
func (r *frameRenderer) takeBuf() {
	if r.buf == nil {
		r.bufBox = frameBufs.Get().(*[]byte)
		r.buf = (*r.bufBox)[:0]
	}
}

// giveBuf gives the output buffer back to frameBufs once written (the
// channel has copied it), or lets a very large one go.
func (r *frameRenderer) giveBuf() {
	if r.bufBox != nil && cap(r.buf) <= poolBuf {
		*r.bufBox = r.buf[:0]
		frameBufs.Put(r.bufBox)
	}
	r.buf, r.bufBox = nil, nil
}

// emitCursor queues the cursor's visibility: terminals keep one per
// screen, so it is set again on every switch of screen.
func (r *frameRenderer) emitCursor() {
	if r.cursor {
		r.emit(seqCursorShow)
	} else {
		r.emit(seqCursorHide)
	}
}

// start queues the set-up of the terminal before the first frame.
func (r *frameRenderer) start() {
	r.started = true
	if r.alt {
		r.emit(seqAltScreenOn + ansi.EraseEntireScreen)
	}
	r.emitCursor()
	if r.paste {
		r.emit(seqPasteOn)
	}
	switch r.mouse {
	case mouseCell:
		r.emit(seqMouseCell + seqMouseSGR)
	case mouseAll:
		r.emit(seqMouseAll + seqMouseSGR)
	}
	if r.focus {
		r.emit(seqFocusOn)
	}
	r.repaint = true
}

// pace decides whether the frame after a message is drawn now: at once
// when the last frame is at least gap old and the message has no slack,
// or else held back and drawn by a flushMsg when it is due (the last
// frame's time plus gap, or now plus slack when that is later), unless
// a frame is drawn before (one timer, re-armed only for a frame due
// sooner than the one it waits for).
func (r *frameRenderer) pace(gap, slack time.Duration) bool {
	if r.last.IsZero() {
		return true
	}
	now := r.now()
	due := r.last.Add(gap)
	if slack > 0 && now.Add(slack).After(due) {
		due = now.Add(slack)
	}
	wait := due.Sub(now)
	if wait <= 0 {
		return true
	}
	r.held = true
	if r.send == nil || r.armed && !due.Before(r.due) {
		return false // the armed timer comes soon enough
	}
	// Not armed, or armed for an event's frame while a key's is due
	// sooner. A timer that fired meanwhile brings one flushMsg more,
	// which finds nothing held.
	r.armed, r.due = true, due
	if r.timer == nil {
		send := r.send
		r.timer = r.afterFunc(wait, func() { send(flushMsg{}) })
	} else {
		r.timer.Reset(wait)
	}
	return false
}

// flushed handles a flushMsg: the timer is free again, and the held frame
// is drawn if no frame was drawn since.
func (r *frameRenderer) flushed(view func() []string) {
	r.armed = false
	if r.held {
		r.drawParts(view())
	}
}

// draw writes the frame for view: the queued terminal commands, then the
// lines that differ from the last frame, in one write.
func (r *frameRenderer) draw(view string) {
	r.one = append(r.one[:0], view)
	r.drawParts(r.one)
}

// drawParts is draw for a view given as parts joined by newlines
// (PartsViewer): the parts are compared, not joined, and a part that is
// the last frame's very string compares at once. The renderer keeps the
// parts (the strings, not the slice), so a session holds one copy of its
// frame's text: the model's.
func (r *frameRenderer) drawParts(parts []string) {
	r.held = false
	if r.armed && r.timer.Stop() {
		// The frame the timer waited for goes now: no wake-up for
		// nothing (a held message's slack may be long).
		r.armed = false
	}
	r.takeBuf() // a frame's sequences are written into it directly too
	if !r.started {
		r.start()
	}
	if len(parts) == 0 || len(parts) == 1 && parts[0] == "" {
		parts = append(r.one[:0], " ") // as the standard renderer: an empty view clears the screen
		r.one = parts
	}
	if r.repaint || !slices.Equal(parts, r.shown) {
		changed := true
		if r.alt {
			changed = r.frameAlt(parts)
		} else {
			r.frameInline(parts)
		}
		clear(r.shown) // the parts of the frame before may go
		r.shown = append(r.shown[:0], parts...)
		r.repaint = false
		if changed {
			r.frames++
		}
	}
	if len(r.buf) > maxWrite {
		// The frame goes in several writes, and the terminal could show
		// the screen between two of them half drawn: bracket it. A frame
		// of one write reaches the terminal whole, so it goes as it is.
		r.buf = slices.Insert(r.buf, 0, []byte(seqSyncBegin)...)
		r.buf = append(r.buf, seqSyncEnd...)
	}
	r.flush()
}

// flush writes what is queued.
func (r *frameRenderer) flush() {
	if len(r.buf) == 0 {
		r.giveBuf()
		return
	}
	for rest := r.buf; len(rest) > 0; {
		n := min(len(rest), maxWrite)
		if _, err := r.out.Write(rest[:n]); err != nil {
			break // the client is gone, or the write timeout ends the session
		}
		rest = rest[n:]
	}
	r.last = r.now()
	r.giveBuf()
}

// visible returns the lines of a view given in parts, from the first a
// screen of the renderer's height shows: its last height lines (the top
// ones would scroll off).
func (r *frameRenderer) visible(parts []string) partLines {
	pl := partLines{parts: parts, it: lineIter{done: true}}
	if r.height <= 0 {
		return pl
	}
	n := len(parts)
	for _, p := range parts {
		n += strings.Count(p, "\n")
	}
	for ; n > r.height; n-- {
		pl.next()
	}
	return pl
}

// lineIter yields the lines of a text, without allocating them.
type lineIter struct {
	rest string
	done bool
}

// next returns the next line, or false after the last.
func (it *lineIter) next() (string, bool) {
	if it.done {
		return "", false
	}
	line, rest, found := strings.Cut(it.rest, "\n")
	it.rest, it.done = rest, !found
	return line, true
}

// partLines yields the lines of a text given in parts joined by newlines
// (each may hold several lines), without joining or allocating them.
type partLines struct {
	parts []string
	it    lineIter
}

// next returns the next line, or false after the last.
func (pl *partLines) next() (string, bool) {
	for {
		if line, ok := pl.it.next(); ok {
			return line, true
		}
		if len(pl.parts) == 0 {
			return "", false
		}
		pl.it = lineIter{rest: pl.parts[0]}
		pl.parts = pl.parts[1:]
	}
}

// frameAlt writes a frame on the alternate screen. It starts at home (the
// mark of a frame), moves down to each changed line (by line feeds for a
// line or two, else by an absolute move) and writes it, whole or only its
// changed cells; lines the last frame had below the new one's end are
// erased. It reports whether the frame differs from the last: parts made
// anew may say what the last frame's said, and then nothing is written.
func (r *frameRenderer) frameAlt(view []string) bool {
	next := r.visible(view)
	old := r.visible(r.shown)
	mark := len(r.buf)
	r.emit(seqHome)
	row := 0 // the cursor's row; it is at the start of it or after written text
	atStart := true
	i := 0
	for ; ; i++ {
		line, ok := next.next()
		if !ok {
			break
		}
		was, had := old.next()
		if had && !r.repaint {
			if was == line {
				continue
			}
			if r.writeChange(i, was, line) {
				row, atStart = i, false
				continue
			}
		}
		r.moveTo(&row, &atStart, i)
		r.writeLine(line)
		atStart = false
	}
	if _, more := old.next(); more {
		r.moveTo(&row, &atStart, i)
		r.emit(seqEraseBelow)
	}
	if len(r.buf) == mark+len(seqHome) {
		r.buf = r.buf[:mark]
		return false
	}
	return true
}

// moveTo moves the cursor from the start of, or text on, row to the start
// of row i (i ≥ row, i below the screen's last row only to erase).
func (r *frameRenderer) moveTo(row *int, atStart *bool, i int) {
	switch d := i - *row; {
	case d == 0:
		if !*atStart {
			r.emit("\r")
		}
	case d <= 2:
		for range d {
			r.emit("\r\n")
		}
	default:
		r.emitMove(i, 0)
	}
	*row, *atStart = i, true
}

// emitMove queues a move of the cursor to row i, column col (from 0), in
// the fewest bytes: the column is left out when it is the first.
func (r *frameRenderer) emitMove(i, col int) {
	r.buf = append(r.buf, "\x1b["...)
	r.buf = strconv.AppendInt(r.buf, int64(i+1), 10)
	if col > 0 {
		r.buf = append(r.buf, ';')
		r.buf = strconv.AppendInt(r.buf, int64(col+1), 10)
	}
	r.buf = append(r.buf, 'H')
}

// fit cuts line to the window's width.
func (r *frameRenderer) fit(line string) string {
	if r.width > 0 && len(line) > r.width && cells(line) > r.width {
		return ansi.Truncate(line, r.width, "")
	}
	return line
}

// writeChange writes the part of row i that differs between the line the
// terminal shows (old) and its new text, when that is shorter than the
// whole line: a cursor move to the first changed cell, the style in force
// there, the new text up to where both lines end alike (from an SGR reset
// on, at the same column), and a reset. It reports whether it wrote; it
// writes nothing for a line with controls or escape sequences other than
// SGR before the change, whose state it could not set up.
func (r *frameRenderer) writeChange(i int, old, line string) bool {
	old, line = r.fit(old), r.fit(line)
	if !printable(old) || !printable(line) {
		return false
	}
	n := 0
	for n < len(old) && n < len(line) && old[n] == line[n] {
		n++
	}
	// The change starts with the grapheme that holds or ends at byte n
	// (its cluster may differ: "e" against "e" + a combining accent), or
	// after the escape sequence that ends there.
	start, col, c := 0, 0, 0
	for at := 0; at < n; {
		size, w, escape := token(line[at:])
		if !escape {
			start, col = at, c
		} else if at+size <= n {
			start, col = at+size, c+w
		} else {
			start, col = at, c
		}
		c += w
		at += size
	}
	// The end: the longest common tail that starts with an escape
	// sequence where both lines are unstyled (or with a reset), at the
	// same column: the tail's cells are already on the screen.
	end, tail, styledEnd := len(line), false, false
	widthNew, widthOld := -1, -1 // unknown yet
	m := 0
	for m < len(old)-start && m < len(line)-start && old[len(old)-1-m] == line[len(line)-1-m] {
		m++
	}
	if m > 0 {
		sc := syncScratches.Get().(*syncScratch)
		defer syncScratches.Put(sc)
		sc.new, widthNew = syncPoints(line, len(line)-m, sc.new[:0])
		sc.old, widthOld = syncPoints(old, len(old)-m, sc.old[:0])
		shift := len(old) - len(line)
		j := 0
	match:
		for _, pn := range sc.new {
			for ; j < len(sc.old); j++ {
				po := sc.old[j]
				if int(po.at) > int(pn.at)+shift {
					break
				}
				if int(po.at) == int(pn.at)+shift && po.col == pn.col {
					end, tail, styledEnd = int(pn.at), true, pn.styled
					break match
				}
			}
		}
	}
	mark := len(r.buf)
	r.emitMove(i, col)
	if !r.styleAt(line[:start]) {
		r.buf = r.buf[:mark]
		return false
	}
	r.emit(line[start:end])
	switch {
	case tail:
		if styledEnd {
			r.emit("\x1b[m") // the terminal is left unstyled after every write
		}
	default:
		if widthNew < 0 {
			widthNew, widthOld = cells(line), cells(old)
		}
		if widthNew < widthOld {
			r.emit(seqEraseRight)
		}
	}
	if len(r.buf)-mark >= len(seqEraseRight)+len(line)+4 { // no shorter than the whole line
		r.buf = r.buf[:mark]
		return false
	}
	return true
}

// styleAt queues the SGR state in force at the end of prefix (a line's
// start): its SGR sequences since its last reset. Lines end unstyled (as
// lipgloss's do) and writeChange resets after a styled end, so the
// terminal is unstyled when this is written. It reports false, and
// may have queued part, if prefix holds another kind of sequence.
func (r *frameRenderer) styleAt(prefix string) bool {
	from := len(r.buf)
	for at := 0; at < len(prefix); {
		size, _, escape := token(prefix[at:])
		seq := prefix[at : at+size]
		at += size
		if !escape {
			continue
		}
		if !isSGR(seq) {
			return false
		}
		if isReset(seq) {
			r.buf = r.buf[:from]
			continue
		}
		r.emit(seq) // on an unstyled terminal: every write leaves it so
	}
	return true
}

// token measures the escape sequence or grapheme at the start of s: its
// size in bytes, its width in cells, and whether it is an escape
// sequence. ASCII text and CSI sequences, nearly all of a frame, are
// measured here; other graphemes by the ansi package.
func token(s string) (size, width int, escape bool) {
	switch b := s[0]; {
	case b == 0x1b:
		if len(s) > 2 && s[1] == '[' {
			for i := 2; i < len(s); i++ {
				if c := s[i]; c >= 0x40 && c <= 0x7e {
					return i + 1, 0, true
				} else if c < 0x20 || c > 0x7e {
					break // not a CSI sequence: left to the ansi package
				}
			}
		}
	case b < 0x80 && (len(s) == 1 || s[1] < 0x80):
		return 1, 1, false // an ASCII character not followed by a combining one
	default:
		// A one-cell rune (ASCII or of narrowRune's blocks), alone in its
		// cluster: followed by ASCII or by another such rune, which is no
		// combining mark, joiner or variation selector ("10♦", "│4♠").
		if r, n := utf8.DecodeRuneInString(s); (r < 0x80 || narrowRune(r)) && (len(s) == n || s[n] < 0x80 || narrowNext(s[n:])) {
			return n, 1, false
		}
	}
	seq, w, n, _ := ansi.DecodeSequence(s, ansi.NormalState, nil)
	return n, w, w == 0 && isEscape(seq)
}

// narrowRune reports whether r is in one of the blocks of one-cell
// characters a frame is mostly made of besides ASCII (Latin-1 and Latin
// letters, punctuation, arrows, box drawing, shapes, card suits), checked
// against the ansi package by TestNarrowRunes.
func narrowRune(r rune) bool {
	switch {
	case r >= 0xa0 && r <= 0x2ff, r >= 0x2010 && r <= 0x2027, r >= 0x2030 && r <= 0x205e,
		r >= 0x2190 && r <= 0x21ff, r >= 0x2500 && r <= 0x25ff, r >= 0x2660 && r <= 0x2667:
		return r != 0xad && r != 0x25fd && r != 0x25fe // no width; emoji
	}
	return false
}

// narrowNext reports whether s starts with a rune of narrowRune's blocks.
func narrowNext(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return narrowRune(r)
}

// cells is the width of s in cells (ansi.StringWidth, faster on ASCII).
func cells(s string) int {
	w := 0
	for at := 0; at < len(s); {
		n, cw, _ := token(s[at:])
		w += cw
		at += n
	}
	return w
}

// printable reports whether line has no control characters but ESC (the
// start of escape sequences): a tab or a carriage return would move the
// cursor where a diff cannot follow.
func printable(line string) bool {
	for i := range len(line) {
		if b := line[i]; (b < 0x20 && b != 0x1b) || b == 0x7f {
			return false
		}
	}
	return true
}

// isEscape reports whether seq is an escape sequence.
func isEscape(seq string) bool { return len(seq) > 0 && seq[0] == 0x1b }

// isReset reports whether seq is the SGR reset, in either spelling.
func isReset(seq string) bool { return seq == "\x1b[m" || seq == "\x1b[0m" }

// isSGR reports whether seq is a Select Graphic Rendition sequence.
func isSGR(seq string) bool {
	if len(seq) < 3 || seq[1] != '[' || seq[len(seq)-1] != 'm' {
		return false
	}
	for _, b := range []byte(seq[2 : len(seq)-1]) {
		if (b < '0' || b > '9') && b != ';' && b != ':' {
			return false
		}
	}
	return true
}

// syncPoint is a place in a line where a tail can be left as it is: the
// start of a grapheme or an escape sequence with no style in force, or of
// a reset; styled says whether a style is in force there. Its fields
// are 32-bit (a line is far shorter).
type syncPoint struct {
	at, col int32
	styled  bool
}

// syncScratch is writeChange's scratch: the sync points of the new line
// and of the old. The sessions share them through syncScratches, so a
// session keeps none between frames (a thousand sessions kept 1.6 MB).
type syncScratch struct{ new, old []syncPoint }

var syncScratches = sync.Pool{New: func() any { return new(syncScratch) }}

// syncPoints appends to pts the sync points of line at or after byte
// from, and returns line's width.
func syncPoints(line string, from int, pts []syncPoint) ([]syncPoint, int) {
	styled := false
	col := 0
	for at := 0; at < len(line); {
		size, w, escape := token(line[at:])
		seq := line[at : at+size]
		reset := escape && isReset(seq)
		if at >= from && (reset || !styled) {
			pts = append(pts, syncPoint{at: int32(at), col: int32(col), styled: styled})
		}
		if escape && isSGR(seq) {
			styled = !reset
		}
		col += w
		at += size
	}
	return pts, col
}

// writeLine writes one line from the start of its row: erased first, so
// a full-width line leaves no pending wrap for an erase to clip, and cut
// to the window's width (a wider line would wrap and shift the screen).
func (r *frameRenderer) writeLine(line string) {
	r.emit(seqEraseRight)
	r.emit(r.fit(line))
}

// frameInline writes a frame outside the alternate screen (a farewell
// left on the player's terminal): from the start of the last frame's
// first line, every line, as the standard renderer does inline.
func (r *frameRenderer) frameInline(view []string) {
	next := r.visible(view)
	r.emit("\r")
	if r.inlineN > 1 {
		r.emit(ansi.CursorUp(r.inlineN - 1))
	}
	n := 0
	for line, ok := next.next(); ok; line, ok = next.next() {
		if n > 0 {
			r.emit("\r\n")
		}
		r.writeLine(line)
		n++
	}
	if r.inlineN > n {
		r.emit(seqEraseBelow)
	}
	r.emit("\r")
	r.inlineN = n
}

// restore gives the terminal back as the program found it: paste and
// mouse reports off, the cursor shown, the main screen. It is written
// once, when the program has ended, whatever the way.
func (r *frameRenderer) restore() {
	if r.timer != nil {
		r.timer.Stop()
	}
	if !r.started {
		return
	}
	if !r.alt {
		r.emit(seqEraseLine + "\r")
	}
	r.emit(seqPasteOff + seqCursorShow + seqAllMouseModes)
	if r.focus {
		r.emit(seqFocusOff)
	}
	if r.alt {
		r.emit(seqAltScreenOff)
	}
	r.flush()
	r.started = false
}

// framedModel runs a program's model with the session's renderer: after
// every Update it hands the view to the renderer, which draws it now or
// paces it; its own View is empty, for the program runs without Bubble
// Tea's renderer. It is used by pointer, so that an Update allocates no
// new tea.Model.
type framedModel struct {
	model tea.Model
	r     *frameRenderer
	parts []string // view's scratch
}

// view is the model's view, in parts.
func (f *framedModel) view() []string {
	if pv, ok := f.model.(PartsViewer); ok {
		f.parts = pv.ViewParts(f.parts[:0])
	} else {
		f.parts = append(f.parts[:0], f.model.View())
	}
	return f.parts
}

// Init starts the model and draws its first frame.
func (f *framedModel) Init() tea.Cmd {
	cmd := f.model.Init()
	f.r.drawParts(f.view())
	return cmd
}

// Update hands msg to the model, then draws the frame or paces it.
func (f *framedModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(flushMsg); ok {
		f.r.flushed(f.view)
		return f, nil
	}
	gap, slack := eventGap, time.Duration(0)
	switch msg := msg.(type) {
	case tea.KeyMsg:
		gap = inputGap
		if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
			// Keys that came in one read (a move typed at the prompt
			// and its enter, sent at once): the rest of the read, parsed
			// into the next messages, carries their frame.
			slack = inputGap
		}
	case tea.MouseMsg:
		gap = inputGap
	case tea.WindowSizeMsg:
		f.r.resize(msg.Width, msg.Height)
		gap = 0
	default:
		if f.r.command(msg) {
			gap = 0
			break
		}
		if w, ok := msg.(TerminalWriter); ok {
			f.r.emit(w.TerminalSequence())
			gap = 0
			break
		}
		if g, ok := msg.(FrameGapper); ok {
			gap = max(gap, g.FrameGap())
		}
		if s, ok := msg.(FrameSlacker); ok {
			slack = s.FrameSlack()
		}
	}
	next, cmd := f.model.Update(msg)
	f.model = next
	if gap == 0 || f.r.pace(gap, slack) {
		f.r.drawParts(f.view())
	}
	clear(f.parts) // the model's strings are the renderer's to keep, not the scratch's
	return f, cmd
}

// View is empty: the renderer draws the model's view (see Update).
func (f *framedModel) View() string { return "" }

// finish draws the last frame of a program that ended normally (the
// standard renderer drew the final view on quitting too) and restores
// the terminal; after a kill only the terminal is restored.
func (r *frameRenderer) finish(final tea.Model, killed bool) {
	if f, ok := final.(*framedModel); ok && !killed {
		r.drawParts(f.view())
	}
	if killed {
		r.buf = r.buf[:0] // a frame cut short by a panic is not worth finishing
	}
	r.restore()
}
