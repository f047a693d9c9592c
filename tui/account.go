package tui

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// Replies of the account's commands.
type (
	// renamedMsg is the account's answer to a new name.
	renamedMsg struct {
		req  int
		name string
		err  error
	}
	// linkCodeMsg brings a new link code, and the clock's reading when
	// it came, to say how long the code lasts.
	linkCodeMsg struct {
		req     int
		code    string
		expires time.Time
		now     time.Time
		err     error
	}
)

// maxNameCells is the widest display name, in terminal cells.
const maxNameCells = 16

// NameForm is the form that changes the player's display name: a text
// input, the rules a name follows, and the server's reason when it
// refuses one.
type NameForm struct {
	env   *env
	event tea.Msg // backMsg or quitMsg, for the owner
	input textinput.Model
	// current is the name as stored.
	current string
	req     int // of the latest request; older answers are dropped
	pending bool
	msg     string
	msgSt   styleID
	w, h    int
	save    key.Binding
	back    key.Binding
	bar     *helpBar
}

// newTextInput builds the text input of a form: styled with the
// session's renderer, its cursor does not blink (a blinking cursor would
// redraw the session twice a second for nothing), and its clipboard key
// is off: ctrl+v would read the clipboard of the server, not the
// player's. A terminal's own paste still types into it.
func newTextInput(r *lipgloss.Renderer, prompt string, limit, width int) textinput.Model {
	in := textinput.New()
	in.Prompt = prompt
	in.CharLimit = limit
	in.Width = width
	in.PromptStyle = r.NewStyle().Bold(true)
	in.TextStyle = r.NewStyle()
	in.PlaceholderStyle = r.NewStyle().Foreground(lipgloss.Color("8"))
	in.CompletionStyle = r.NewStyle()
	in.Cursor.Style = r.NewStyle()
	in.Cursor.TextStyle = r.NewStyle()
	in.Cursor.SetMode(cursor.CursorStatic)
	in.KeyMap.Paste.SetEnabled(false)
	return in
}

// newNameForm builds the form.
func newNameForm(e *env, w, h int) NameForm {
	return NameForm{
		env:   e,
		input: newTextInput(e.renderer, "name: ", maxNameCells, maxNameCells+1),
		w:     w,
		h:     h,
		save:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "save")),
		back:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		bar:   newHelpBar(),
	}
}

// open shows the form with the current name to edit.
func (f NameForm) open(current string) NameForm {
	f.current = clean(current, maxNameCells)
	f.input.SetValue(f.current)
	f.input.CursorEnd()
	f.input.Focus() // nil command: the cursor is static
	f.pending, f.msg = false, ""
	return f
}

// SetSize sets the window size.
func (f NameForm) SetSize(w, h int) NameForm {
	f.w, f.h = w, h
	return f
}

// say sets the message line.
func (f NameForm) say(st styleID, text string) NameForm {
	f.msg, f.msgSt = text, st
	return f
}

// Update edits the name, sends it on enter, or goes back on esc.
func (f NameForm) Update(msg tea.Msg) (NameForm, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return f, nil
	}
	switch {
	case k.Type == tea.KeyCtrlC:
		f.event = quitMsg{}
		return f, nil
	case k.Type == tea.KeyCtrlL:
		return f, tea.ClearScreen
	case key.Matches(k, f.back):
		f.event = backMsg{}
		return f, nil
	case key.Matches(k, f.save):
		return f.submit()
	}
	before, pos := f.input.Value(), f.input.Position()
	var cmd tea.Cmd
	f.input, cmd = f.input.Update(k)
	if v := f.input.Value(); cells(v) > maxNameCells || clean(v, 4*maxNameCells) != v {
		// Too wide (the input counts characters, a wide one takes two
		// cells) or a character no screen may show: the key is refused.
		f.input.SetValue(before)
		f.input.SetCursor(pos)
	}
	if f.input.Value() != before && f.msgSt == sErr {
		f.msg = ""
	}
	return f, cmd
}

// submit sends the name to the account, in a command.
func (f NameForm) submit() (NameForm, tea.Cmd) {
	if f.pending {
		return f, nil
	}
	name := strings.TrimSpace(f.input.Value())
	switch name {
	case "":
		f.msg, f.msgSt = "type a name: 1 to 16 letters, digits, _ . or -", sErr
		return f, nil
	case f.current:
		f.msg, f.msgSt = "that is your name already", sInfo
		return f, nil
	}
	f.req++
	f.pending = true
	f.msg, f.msgSt = "saving"+f.env.gl.ell, sInfo
	acc, player, ctx, req := f.env.account, f.env.player.ID, f.env.ctx, f.req
	return f, func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, loadTimeout)
		defer cancel()
		stored, err := acc.Rename(ctx, player, name)
		return renamedMsg{req: req, name: stored, err: err}
	}
}

// refused shows why the account refused the name; the form stays.
func (f NameForm) refused(msg renamedMsg) NameForm {
	if msg.req != f.req {
		return f
	}
	f.pending = false
	f.msg, f.msgSt = clean(msg.err.Error(), 200), sErr
	return f
}

// View draws the form, exactly h lines.
func (f NameForm) View() string {
	e := f.env
	body := []string{
		"",
		"    Your name is shown on the daily board.",
		"    1 to 16 letters, digits, _ . or -, not taken by another player.",
		"",
		"    " + f.input.View(),
	}
	f.save.SetEnabled(!f.pending)
	return drawPage(e, f.w, f.h, "Pyramid Solitaire"+e.gl.sep+"change name", identity(e, f.current), body,
		f.msg, f.msgSt, f.bar, []key.Binding{f.save, f.back})
}

// LinkScreen shows a one-time code that links another SSH key to the
// player, how long it lasts and the exact command to run with that key.
type LinkScreen struct {
	env     *env
	event   tea.Msg // backMsg or quitMsg, for the owner
	name    string
	req     int // of the latest request; older answers are dropped
	loading bool
	code    string
	expires time.Time
	now     time.Time
	msg     string
	msgSt   styleID
	w, h    int
	renew   key.Binding
	back    key.Binding
	bar     *helpBar
}

// newLinkScreen builds the screen; open shows it and asks for a code.
func newLinkScreen(e *env, w, h int) LinkScreen {
	return LinkScreen{
		env:   e,
		w:     w,
		h:     h,
		renew: key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new code")),
		back:  key.NewBinding(key.WithKeys("q", "esc"), key.WithHelp("q", "menu")),
		bar:   newHelpBar(),
	}
}

// open shows the screen for the player called name and asks for a code.
func (l LinkScreen) open(name string) (LinkScreen, tea.Cmd) {
	l.name = name
	l.code = ""
	return l.load()
}

// load asks the account for a new code, in a command that also reads
// the clock.
func (l LinkScreen) load() (LinkScreen, tea.Cmd) {
	l.req++
	l.loading, l.msg = true, ""
	e, req := l.env, l.req
	return l, func() tea.Msg {
		ctx, cancel := context.WithTimeout(e.ctx, loadTimeout)
		defer cancel()
		code, exp, err := e.account.LinkCode(ctx, e.player.ID)
		return linkCodeMsg{req: req, code: code, expires: exp, now: e.now(), err: err}
	}
}

// loaded takes the account's answer.
func (l LinkScreen) loaded(msg linkCodeMsg) LinkScreen {
	if msg.req != l.req {
		return l
	}
	l.loading = false
	if msg.err != nil {
		l.code = ""
		l.msg, l.msgSt = clean("could not make a link code: "+msg.err.Error(), 200), sErr
		return l
	}
	l.code, l.expires, l.now = formatCode(clean(msg.code, 40)), msg.expires, msg.now
	return l
}

// formatCode writes an eight-character code in two groups, as the
// server's commands do ("ABCD-EFGH"); the server reads it either way.
func formatCode(c string) string {
	if len(c) == 8 && !strings.ContainsAny(c, "- ") {
		return c[:4] + "-" + c[4:]
	}
	return c
}

// SetSize sets the window size.
func (l LinkScreen) SetSize(w, h int) LinkScreen {
	l.w, l.h = w, h
	return l
}

// say sets the message line.
func (l LinkScreen) say(st styleID, text string) LinkScreen {
	l.msg, l.msgSt = text, st
	return l
}

// Update asks for a new code or goes back.
func (l LinkScreen) Update(msg tea.Msg) (LinkScreen, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return l, nil
	}
	switch {
	case k.Type == tea.KeyCtrlC:
		l.event = quitMsg{}
	case k.Type == tea.KeyCtrlL:
		return l, tea.ClearScreen
	case key.Matches(k, l.renew) && !l.loading:
		return l.load()
	case key.Matches(k, l.back):
		l.event = backMsg{}
	}
	return l, nil
}

// connectCommand is the command that reaches this server.
func connectCommand(e *env) string {
	c := clean(e.connect, 200)
	if c == "" {
		c = "ssh HOST"
	}
	return c
}

// View draws the screen, exactly h lines.
func (l LinkScreen) View() string {
	e := l.env
	pal := e.pal
	var body []string
	switch {
	case l.loading:
		body = append(body, "", "    asking for a link code"+e.gl.ell)
	case l.code != "":
		left := int(math.Ceil(l.expires.Sub(l.now).Minutes()))
		valid := "It works once, until " + l.expires.UTC().Format("15:04") + " UTC (" +
			strconv.Itoa(left) + plural(left, " minute", " minutes") + " from now)."
		if left <= 0 {
			valid = "It has expired: press n for a new one."
		}
		body = append(body,
			"",
			"    Your link code:  "+pal.style(sTitle, l.code),
			"    "+valid,
			"",
			"    On the machine with the other SSH key, run:",
			"")
		for _, line := range wrapWords(connectCommand(e)+" link "+l.code, l.w-7) {
			body = append(body, "      "+pal.style(sBold, line))
		}
		body = append(body,
			"",
			"    Or connect with that key and choose Use a link code in its menu.",
			"    That key then plays as "+clean(l.name, maxNameCells)+", with the same stats and games.",
			pal.style(sDim, "    Keep the code to yourself: whoever runs that command plays as you."))
	}
	l.renew.SetEnabled(!l.loading)
	return drawPage(e, l.w, l.h, "Pyramid Solitaire"+e.gl.sep+"link another key", identity(e, l.name), body,
		l.msg, l.msgSt, l.bar, []key.Binding{l.renew, l.back})
}

// drawPage draws a screen of the account: the title, a dim line under it
// (none when sub is empty), the body lines, then the message line and the
// help bar, exactly h lines, every line cut to the width.
func drawPage(e *env, w, h int, title, sub string, body []string, msg string, msgSt styleID, bar *helpBar, keys []key.Binding) string {
	var b strings.Builder
	b.Grow(w * h)
	pal := e.pal
	out := lines{b: &b}
	out.add(" " + pal.style(sTitle, cut(title, w-2, e.gl.ell)))
	if sub != "" {
		out.add(" " + pal.style(sDim, cut(sub, w-2, e.gl.ell)))
	}
	for _, line := range body {
		if out.n >= h-2 {
			break
		}
		out.add(cut(line, w, ""))
	}
	out.fill(h - 2)
	out.add(" " + pal.style(msgSt, cut(msg, w-2, e.gl.ell)))
	b.WriteByte('\n')
	b.WriteString(bar.view(e, keys, w))
	return b.String()
}

// flow fills at most n lines of width w with pieces of text joined by
// sep, starting a new line where the next piece does not fit; the last
// line is cut.
func flow(pieces []string, sep string, w, n int) []string {
	var out []string
	line := ""
	for _, p := range pieces {
		switch {
		case line == "":
			line = p
		case cells(line)+cells(sep)+cells(p) <= w:
			line += sep + p
		case len(out) < n-1:
			out = append(out, cut(line, w, "…"))
			line = p
		default:
			line += sep + p
		}
	}
	if line != "" {
		out = append(out, cut(line, w, "…"))
	}
	return out
}

// wrapWords breaks text at spaces into lines of at most w cells; a word
// longer than w stays whole on its own line, for the caller to cut.
func wrapWords(text string, w int) []string {
	var out []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && cells(line)+1+cells(word) > w {
			out = append(out, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return append(out, line)
}

// padRight pads plain text with spaces to w cells.
func padRight(s string, w int) string {
	if n := w - cells(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// padLeft pads plain text with spaces on the left to w cells.
func padLeft(s string, w int) string {
	if n := w - cells(s); n > 0 {
		return strings.Repeat(" ", n) + s
	}
	return s
}

// openAccount shows a screen of the player's account and starts its
// load.
func (m *Model) openAccount(kind itemKind) tea.Cmd {
	if !m.env.accounts() {
		return nil
	}
	var cmd tea.Cmd
	e, w, h := m.env, m.w, m.h
	switch kind {
	case itemStats:
		s := valueOr(m.stats, func() StatsScreen { return newStatsScreen(e, w, h) })
		s, cmd = s.open(m.menu.name)
		m.stats, m.screen = &s, screenStats
	case itemBoard:
		b := valueOr(m.board, func() BoardScreen { return newBoardScreen(e, w, h) })
		b, cmd = b.open()
		m.board, m.screen = &b, screenBoard
	case itemName:
		f := valueOr(m.rename, func() NameForm { return newNameForm(e, w, h) })
		m.rename, m.screen = ref(f.open(m.menu.name)), screenName
	case itemLink:
		l := valueOr(m.linking, func() LinkScreen { return newLinkScreen(e, w, h) })
		l, cmd = l.open(m.menu.name)
		m.linking, m.screen = &l, screenLink
	case itemRedeem:
		m.openRedeem()
	}
	return cmd
}

// accountLoaded takes an answer of the account to the screen that asked.
func (m *Model) accountLoaded(msg tea.Msg) {
	switch msg := msg.(type) {
	case statsMsg:
		if m.stats != nil {
			m.stats = ref(m.stats.loaded(msg))
		}
	case boardMsg:
		if m.board != nil {
			m.board = ref(m.board.loaded(msg))
		}
	case linkCodeMsg:
		if m.linking != nil {
			m.linking = ref(m.linking.loaded(msg))
		}
	}
}

// valueOr returns *p, or a new value when p is nil.
func valueOr[T any](p *T, build func() T) T {
	if p == nil {
		return build()
	}
	return *p
}

// renamed takes the account's answer to a new name: the menu shows the
// name as stored, even when the player left the form meanwhile; a
// refusal stays in the form with its reason.
func (m *Model) renamed(msg renamedMsg) {
	if m.rename == nil || msg.req != m.rename.req {
		return
	}
	if msg.err != nil {
		m.rename = ref(m.rename.refused(msg))
		if m.screen != screenName {
			m.editMenu().say(sErr, clean("name not changed: "+msg.err.Error(), 200))
		}
		return
	}
	f := *m.rename
	f.pending = false
	m.rename = &f
	name := clean(msg.name, maxNameCells)
	mn := m.editMenu()
	mn.name = name
	mn.say(sOK, "you are "+name+" now")
	if m.screen == screenName {
		m.screen = screenMenu
	}
}

// say shows a line from outside (a notice, a shutdown) on the current
// screen's message line.
func (m *Model) say(st styleID, text string) {
	switch m.screen {
	case screenTable:
		if m.table != nil {
			m.tbl().say(st, "%s", text)
		}
	case screenStats, screenBoard, screenName, screenLink, screenRedeem:
		m.sayAccount(st, text)
	case screenWatch:
		if m.watch != nil {
			m.watch.board.say(st, "%s", text)
		}
	default:
		m.editMenu().say(st, text)
	}
}

// sayAccount is say on a screen of the account, apart from say for the
// reason updateScreen is apart from update.
func (m *Model) sayAccount(st styleID, text string) {
	switch m.screen {
	case screenStats:
		m.stats = ref(m.stats.say(st, text))
	case screenBoard:
		m.board = ref(m.board.say(st, text))
	case screenName:
		m.rename = ref(m.rename.say(st, text))
	case screenLink:
		m.linking = ref(m.linking.say(st, text))
	case screenRedeem:
		m.redeem = ref(m.redeem.say(st, text))
	}
}
