package tui

import (
	"slices"
	"strconv"

	"pyramid/engine"
)

// heldTable is the rule "a move shows only once the server has it",
// written once for every game a player plays here: the table's (stored
// through Games, save.go), a race's (reported to the room,
// race_report.go) and a ghost race's (stored through Ghosts, ghost.go).
//
// While a change of the game is on its way to the server, the screen
// draws a frozen copy of the table from before the first change the
// server has not taken (shown) instead of the live table; the keys still
// play on the live one. Once the server has every change the copy goes
// (release) and the live table shows; if the server refuses a change,
// the copy becomes the live table again (rollBack) and the player reads
// why, in one wording (rolledBack). So whatever the player saw is what
// the server has, even after a crash.
//
// The copy keeps up with what needs no server: the cursor, the
// selection, the prompt and the message line (follow), so that a cursor
// key shows at once while a move is on its way.
type heldTable struct {
	// shown is the frozen copy drawn in place of the live table, or nil
	// when the server has every change.
	shown *tableScreen
}

// arm asks t to keep a frozen copy of itself from right before the
// change the next message may make (tableScreen.keepBefore), when on
// and nothing is held yet: take makes it the held copy.
func (h *heldTable) arm(t *tableScreen, on bool) {
	t.wantBefore = on && h.shown == nil
}

// take ends what arm began, after the message: when the message changed
// t's game (changed), the copy t kept from before the change is held
// until the server has the change.
func (h *heldTable) take(t *tableScreen, changed bool) {
	before := t.before
	t.before, t.wantBefore = nil, false
	if changed && h.shown == nil && before != nil && before.token == t.token {
		h.shown = before
	}
}

// holds reports whether a copy of the game token is held.
func (h *heldTable) holds(token int) bool { return h.shown != nil && h.shown.token == token }

// view returns the table to draw for live: the held copy while there is
// one, else live itself.
func (h *heldTable) view(live *tableScreen) *tableScreen {
	if h.shown != nil {
		return h.shown
	}
	return live
}

// follow shows on the held copy what a key changed on the live table
// without changing the game: the cursor (where the held board has that
// card to stop at), the selection, the prompt and, when the key said
// something (said), the message.
func (h *heldTable) follow(live *tableScreen, said bool) {
	c := h.shown
	if c == nil || live == nil || c.token != live.token {
		return
	}
	if c.isTarget(live.cursor) {
		c.cursor = live.cursor
	}
	if live.sel == engine.NoPlace || c.isTarget(live.sel) {
		c.sel = live.sel
	}
	if said {
		c.msg, c.msgSt = live.msg, live.msgSt
	}
	if c.promptOpen != live.promptOpen || !slices.Equal(c.prompt.value, live.prompt.value) || c.prompt.pos != live.prompt.pos {
		c.prompt = live.prompt
		c.prompt.value = slices.Clone(live.prompt.value)
		c.promptOpen = live.promptOpen
		c.updateKeys()
	}
}

// say sets the held copy's message line too, so that a notice shows
// while a move is on its way.
func (h *heldTable) say(st styleID, text string) {
	if h.shown != nil {
		h.shown.say(st, text)
	}
}

// setSize lays the held copy out for a new size: it shows a position
// the server has, so drawing it anew reveals nothing it does not.
func (h *heldTable) setSize(w, ht int) {
	if h.shown != nil && (h.shown.w != w || h.shown.h != ht) {
		h.shown.setSize(w, ht)
	}
}

// setEnv has the held copy draw with another env.
func (h *heldTable) setEnv(e *env) {
	if h.shown != nil {
		h.shown.setEnv(e)
	}
}

// release lets the held copy go: the server has every change of live.
// The copy goes back to the pool of frozen tables.
func (h *heldTable) release(live *tableScreen) {
	if live != nil {
		live.letGo(h.shown) // nothing else keeps it
	}
	h.shown = nil
}

// drop forgets the held copy without showing it again: its game left
// the screen, or the server's answer makes it moot.
func (h *heldTable) drop() { h.shown = nil }

// rollBack takes live back to the held copy after the server refused a
// change (err): it returns the copy, the table to play on from now, with
// the keys of scheme, and what to tell the player (rolledBack). With
// nothing of live held it returns nil and notSaved(err).
func (h *heldTable) rollBack(live *tableScreen, scheme KeyScheme, err error) (*tableScreen, string) {
	back := h.shown
	h.shown = nil
	if back == nil || live == nil || back.token != live.token {
		return nil, notSaved(err)
	}
	lost := live.game.MovesMade() - back.game.MovesMade()
	back.setScheme(scheme)
	back.wantBefore, back.before = false, nil
	return back, rolledBack(refusal(err), back.game.MovesMade(), lost)
}

// refusal is why the server did not take a change, as the player reads
// it (Reason).
func refusal(err error) string { return Reason(err) }

// notSaved is what the player reads of a change the server did not take
// when the screen never showed it held (nothing to go back to).
func notSaved(err error) string { return clean("not saved: "+refusal(err), 200) }

// rolledBack is what the player reads when a change the server did not
// take (why) is undone: the screen is back at the last position the
// server has, of moves moves, and lost moves made since are gone.
func rolledBack(why string, moves, lost int) string {
	return clean("not saved: "+why+": back to your last saved position ("+
		strconv.Itoa(moves)+plural(moves, " move", " moves")+")"+undone(lost), 200)
}

// undone says how many moves a refused change took back, when it is more
// than the one the player just made.
func undone(n int) string {
	if n <= 1 {
		return ""
	}
	return "; your last " + strconv.Itoa(n) + " moves are undone"
}
