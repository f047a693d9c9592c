package tui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
)

// helpDoneMsg: the player leaves the help screen.
type helpDoneMsg struct{}

// helpScreen is the full help: how to play, these rules, every key and
// the move notation. It scrolls when the window is short.
type helpScreen struct {
	chrome
	text []string
	// wrapped is text broken to the window's width.
	wrapped []string
	top     int
	up      key.Binding
	down    key.Binding
	close   key.Binding
	bar     *helpBar
}

// newHelpScreen writes the help for the table's keys and, when there is a
// game, its rules.
func newHelpScreen(e *env, km TableKeyMap, rules *engine.Rules, w, h int) *helpScreen {
	gl := e.gl
	hk := func(b key.Binding) string { return b.Help().Key }
	row := func(k, desc string) string { return "  " + k + strings.Repeat(" ", max(1, 14-cells(k))) + desc }
	text := []string{
		"How to play",
		"  Remove two available cards that add up to 13: A+Q 2+J 3+10 4+9 5+8 6+7.",
		"  A King is removed alone. A card is available when no card lies on it.",
		"  Draw from the stock onto the waste; the waste's top card plays too.",
		"  When the stock is empty the waste turns over, while passes are left",
		"  (pass 2/3 is the second of three). Clear the pyramid to win.",
	}
	if rules != nil && rules.Daily {
		text = append(text,
			"  The daily: your first finished game of the day's deal is your result on",
			"  its board, unless it used a hint. Undo takes back removals only, never a",
			"  draw or a redeal. Later games of the deal are practice.")
	} else {
		text = append(text, "  Undo and redo have no limit.")
	}
	if rules != nil {
		text = append(text, "  These rules: "+rules.Describe()+".")
	}
	text = append(text, "",
		"Keys",
		row(moveKeys(km, gl), "move between the available cards and the piles"),
		row("enter space", "select a card; a second card that makes 13 removes both"),
		row("", "a King goes at once; select a card again or press esc to unselect"),
		row("click", "select with the mouse; a click on the stock draws"),
		row(hk(km.Draw), "draw; when the stock is empty, turn the waste over"),
		row(hk(km.Undo)+" / "+hk(km.Redo), "undo / redo"),
		row(hk(km.Hint), "hint: highlights a move"),
		row(hk(km.Prompt), "type moves in notation, e.g. 7.1+7.4 d 6.2+w"),
		row(hk(km.New), "new deal"),
	)
	if e.solver != nil {
		text = append(text,
			row("w", "after a game: watch the solver win the deal from its start,"),
			row("", "move by move ("+watchKeysHelp(gl)+")"))
		if e.analyst() != nil { // lost.go
			text = append(text, row("", "after a loss: from the move that lost the win, when it is known"))
		}
	}
	text = append(text,
		row(hk(km.Back), "back to the menu (the game waits there)"),
		row(hk(km.Help), "this help"),
		row(hk(km.Redraw), "redraw the screen"),
		row(hk(km.Quit), "quit"),
	)
	return helpScreenOf(e, append(text, notationHelp(gl)...), w, h)
}

// notationHelp is the help's part on the move notation and the cards.
func notationHelp(gl *glyphs) []string {
	return []string{
		"",
		"Move notation",
		"  R.C is the card in row R (1 is the top) and column C; w is the waste's",
		"  top card (w1 w2 w3 with three piles) and s the stock's when it plays.",
		"  X+Y removes a pair, X a King, d draws and r turns the waste over.",
		"  Moves are separated by spaces; the first that cannot be played stops",
		"  the line and says why.",
		"",
		"Cards",
		"  Available cards are bright, covered ones dim; in the one-line layout an",
		"  available card has brackets: [ 9" + string(gl.faces[engine.NewCard(9, engine.Spades)][2]) + "]. > < marks the cursor, * * the",
		"  selected card (> * when the cursor is on it) and + + a hint's cards.",
	}
}

// newRaceHelpScreen writes the help of a race room, for a racer or a
// spectator: the room's keys and the race's rules (no hints, an undo
// that never takes back a draw, q twice to leave), not the table's; an
// arena's room has berserk instead of ready, start and rematch.
func newRaceHelpScreen(e *env, km TableKeyMap, spectator, arena bool, w, h int) *helpScreen {
	gl := e.gl
	hk := func(b key.Binding) string { return b.Help().Key }
	row := func(k, desc string) string { return "  " + k + strings.Repeat(" ", max(1, 14-cells(k))) + desc }
	text := []string{
		"A race",
		"  Every racer plays their own game of the same deal; the panel lists",
		"  each one's cards removed, moves, pass and state, live.",
		"  Whoever clears the pyramid first wins; then the others who cleared, by",
		"  time; then by cards removed and the time of the last removal.",
		"",
	}
	if spectator {
		text = append(text,
			"Keys",
			row("tab l", "the next racer's board"),
			row("shift+tab h", "the racer before"),
			row("t", "chat, as the racers do; /help there lists its commands"),
			row("pgup pgdn", "scroll the chat back and forth"),
			row("q", "stop watching"),
			row("?", "this help"),
		)
		return helpScreenOf(e, text, w, h)
	}
	if arena {
		text = append(text,
			"Before the start (the arena starts its races)",
			row("b", "berserk: no undo in this race, a point more if you clear it"),
		)
	} else {
		text = append(text,
			"Waiting room",
			row("r", "ready, or not ready"),
			row("s", "start the countdown (the host, once two or more are in)"))
	}
	text = append(text,
		row("t", "chat (also racing, on the results); pgup pgdn scroll it back"),
		row("", "its commands: "+chatCommandsHelp()),
		"",
		"Racing",
		row(moveKeys(km, gl), "move between the available cards and the piles"),
		row("enter space", "select a card; a second card that makes 13 removes both"),
		row("click", "select with the mouse; a click on the stock draws"),
		row(hk(km.Draw), "draw; when the stock is empty, turn the waste over"),
		row(hk(km.Undo)+" / "+hk(km.Redo), "undo / redo removals: never a draw or a redeal, which"),
		row("", "would show the stock"),
		row(hk(km.Hint), "no hints in a race"),
		row(hk(km.Prompt), "type moves in notation, e.g. 7.1+7.4 d 6.2+w"),
		row("q q", "leave the race; race CODE brings you back while it runs"),
		"",
		"Results")
	if arena {
		text = append(text, row("enter q", "back to the arena (it comes by itself after a few seconds)"))
	} else {
		text = append(text, row("r", "a rematch in the room, on a new deal (the host)"))
	}
	text = append(text,
		row(copyKeys.Help().Key, "copy your share line (in the waiting room: the room's code)"))
	if !arena {
		text = append(text, row("q", "leave the room"))
	}
	text = append(text,
		row("?", "this help"),
	)
	return helpScreenOf(e, append(text, notationHelp(gl)...), w, h)
}

// helpScreenOf is the help screen of text.
func helpScreenOf(e *env, text []string, w, h int) *helpScreen {
	gl := e.gl
	up := key.NewBinding(key.WithKeys("up", "k", "w", "pgup"), key.WithHelp("↑/↓", "scroll"))
	if !gl.unicode {
		up.SetHelp("up/down", "scroll")
	}
	return &helpScreen{
		chrome:  chrome{env: e, w: w, h: h},
		text:    text,
		wrapped: wrapHelp(text, w-2),
		up:      up,
		down:    key.NewBinding(key.WithKeys("down", "j", "s", "pgdown", " ")),
		close:   key.NewBinding(key.WithKeys("q", "esc", "?", "enter"), key.WithHelp("q", "back")),
		bar:     newHelpBar(),
	}
}

// watchKeysHelp lists the watch screen's keys for the help.
func watchKeysHelp(gl *glyphs) string {
	km := NewWatchKeyMap(gl)
	return km.Next.Help().Key + " next, " + km.Prev.Help().Key + " previous, a auto-play, q back"
}

// moveKeys lists the movement keys for the help: the arrows and letters.
func moveKeys(km TableKeyMap, gl *glyphs) string {
	letters := ""
	for _, b := range []key.Binding{km.Left, km.Down, km.Up, km.Right} {
		for _, k := range b.Keys() {
			if len(k) == 1 {
				letters += k
			}
		}
	}
	return gl.arrows + " " + letters
}

// SetSize sets the window size.
func (h *helpScreen) setSize(w, ht int) {
	h.w, h.h = w, ht
	h.wrapped = wrapHelp(h.text, w-2)
	h.top = min(h.top, h.maxTop())
}

func (h *helpScreen) rows() int   { return max(1, h.h-2) }
func (h *helpScreen) maxTop() int { return max(0, len(h.wrapped)-h.rows()) }

// wrapHelp breaks the help's lines that are wider than w at spaces, the
// rest of a line indented under its start: at 80 columns nothing is cut.
func wrapHelp(text []string, w int) []string {
	out := make([]string, 0, len(text))
	for _, line := range text {
		if cells(line) <= w {
			out = append(out, line)
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if i := strings.Index(line[indent:], "  "); i > 0 && indent > 0 {
			// A key's row: the rest goes under its description.
			rest := strings.TrimLeft(line[indent+i:], " ")
			indent = len(line) - len(rest)
		}
		pad := strings.Repeat(" ", indent)
		first := true
		for _, part := range wrapWords(line, max(10, w-indent)) {
			if first {
				out = append(out, strings.Repeat(" ", len(line)-len(strings.TrimLeft(line, " ")))+part)
				first = false
				continue
			}
			out = append(out, pad+part)
		}
	}
	return out
}

// Update scrolls or closes the help.
func (h *helpScreen) update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, h.up):
		h.top = max(0, h.top-1)
	case key.Matches(k, h.down):
		h.top = min(h.maxTop(), h.top+1)
	case key.Matches(k, h.close):
		h.event = helpDoneMsg{}
		return nil
	}
	return nil
}

// View draws the help, exactly h lines.
func (h *helpScreen) view() string {
	var b strings.Builder
	out := lines{b: &b}
	pal := h.env.pal
	for i := h.top; i < len(h.wrapped) && out.n < h.rows(); i++ {
		s := cut(h.wrapped[i], h.w-2, h.env.gl.ell)
		if s != "" && s[0] != ' ' {
			s = pal.style(sBold, s)
		}
		out.add(" " + s)
	}
	out.fill(h.h - 1)
	b.WriteByte('\n')
	h.up.SetEnabled(h.maxTop() > 0)
	b.WriteString(h.bar.view(h.env, []key.Binding{h.up, h.close}, h.w))
	return b.String()
}

// confirmMsg is the answer of the confirmation.
type confirmMsg struct{ yes bool }

// confirmScreen asks whether to abandon a game in progress for another.
type confirmScreen struct {
	chrome
	question string
	detail   string
	// spec is the game to start on yes; retry, when not nil, is another
	// session's game that a refused save named instead (inprogress.go).
	spec    dealSpec
	retry   *SavedGame
	yes, no key.Binding
	bar     *helpBar
}

// newConfirm builds the abandon question for starting spec, or for
// saving the table's game over retry.
func newConfirm(e *env, question, detail string, spec dealSpec, retry *SavedGame, w, h int) *confirmScreen {
	return &confirmScreen{
		chrome: chrome{env: e, w: w, h: h}, question: question, detail: detail, spec: spec, retry: retry,
		yes: key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "yes, abandon it")),
		no:  key.NewBinding(key.WithKeys("n", "N", "esc", "q"), key.WithHelp("n", "no, keep it")),
		bar: newHelpBar(),
	}
}

// needs is the smallest window the question is readable in: it wraps.
func (c *confirmScreen) needs() (w, h int) { return minTableWidth, 12 }

// needs is the smallest window the help is readable in: it wraps and
// scrolls.
func (h *helpScreen) needs() (w, ht int) { return minTableWidth, 12 }

// Update answers on y or n.
func (c *confirmScreen) update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, c.yes):
		c.event = confirmMsg{yes: true}
		return nil
	case key.Matches(k, c.no):
		c.event = confirmMsg{yes: false}
		return nil
	}
	return nil
}

// View draws the question in the middle of the window.
func (c *confirmScreen) view() string {
	var b strings.Builder
	out := lines{b: &b}
	pal := c.env.pal
	var body []string
	for _, s := range wrapWords(c.question, max(10, c.w-4)) {
		body = append(body, pal.style(sWarn, cut(s, c.w-4, c.env.gl.ell)))
	}
	body = append(body, "")
	for _, s := range wrapWords(c.detail, max(10, c.w-4)) {
		body = append(body, cut(s, c.w-4, c.env.gl.ell))
	}
	body = append(body, "", pal.style(sBold, "y")+": yes"+c.env.gl.sep+pal.style(sBold, "n")+": no")
	out.fill(max(0, (c.h-len(body))/2-1))
	for _, s := range body {
		out.add("  " + s)
	}
	out.fill(c.h - 1)
	b.WriteByte('\n')
	b.WriteString(c.bar.view(c.env, []key.Binding{c.yes, c.no}, c.w))
	return b.String()
}

// tooSmall is the screen shown when the window is smaller than a screen
// needs: what size it needs, and what it is now. The game waits.
func tooSmall(w, h, needW, needH int, g *glyphs) string {
	x := "×"
	if !g.unicode {
		x = "x"
	}
	msg := "make the window larger (need " + strconv.Itoa(needW) + x + strconv.Itoa(needH) +
		", now " + strconv.Itoa(w) + x + strconv.Itoa(h) + ")"
	var b strings.Builder
	out := lines{b: &b}
	wrapped := []string{msg}
	if cells(msg) > w {
		// Too narrow for one line: the request, then the sizes, each
		// broken further only if it must be.
		req, sizes, _ := strings.Cut(msg, " (")
		wrapped = append(wrapWords(req, max(1, w)), wrapWords("("+sizes, max(1, w))...)
	}
	out.fill(max(0, (h-len(wrapped))/2))
	for _, s := range wrapped {
		if out.n >= h {
			break
		}
		s = cut(s, w, "")
		out.add(strings.Repeat(" ", max(0, (w-cells(s))/2)) + s)
	}
	out.fill(h)
	return b.String()
}
