package tui

import (
	"context"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
)

// redeemedMsg is the account's answer to a link code: the name of the
// player the session's key now plays as, or why the code was refused.
type redeemedMsg struct {
	req  int
	name string
	err  error
}

// Link codes as players type them: eight letters and digits, shown in two
// groups ("ABCD-EFGH").
const (
	linkCodeChars = 8
	linkCodeCells = linkCodeChars + 1
)

// redeemScreen is the form where a player types a link code that another
// player's session made (Link another key): the session's key then plays
// as that player. The session itself was resolved when it connected and
// goes on as the player it started as, so after a code is accepted the
// form says so and the session ends on the next key.
type redeemScreen struct {
	chrome
	input textinput.Model
	// name is the player's display name, for the line under the title.
	name    string
	req     int // of the latest request; older answers are dropped
	pending bool
	// done is the name of the player the key now plays as, once the
	// account accepted a code; every key then ends the session.
	done string
	use  key.Binding
	back key.Binding
	end  key.Binding
	bar  *helpBar
}

// newRedeemScreen builds the form for the player called name, ready to
// type into.
func newRedeemScreen(e *env, name string, w, h int) *redeemScreen {
	// No placeholder: an input that looks filled in invites enter.
	in := newTextInput(e.renderer, "code: ", linkCodeCells, 0)
	in.Focus() // nil command: the cursor is static
	return &redeemScreen{
		chrome: chrome{env: e, w: w, h: h},
		input:  in,
		name:   name,
		use:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "use the code")),
		back:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		end:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("any key", "end this session")),
		bar:    newHelpBar(),
	}
}

// Update edits the code, sends it on enter, or goes back on esc. While
// the account checks a code the form waits: its answer decides whether
// the session goes on. Once a code is accepted, any key ends the session.
func (f *redeemScreen) update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	switch {
	case f.done != "":
		f.event = quitMsg{}
		return nil
	case f.pending:
		return nil
	case key.Matches(k, f.back):
		f.event = backMsg{}
		return nil
	case key.Matches(k, f.use):
		return f.submit()
	}
	if k.Type == tea.KeyRunes {
		// A code copied from a terminal often comes with the blanks
		// around it. Whatever else is not part of a code (an escape
		// sequence, a bidi control, a wide character) is refused with
		// everything that came with it, before the input could drop
		// some of it and keep the rest.
		text := strings.TrimSpace(string(k.Runes))
		if text == "" || !codeText(text) {
			return nil
		}
		k.Runes = []rune(text)
	}
	before, pos := f.input.Value(), f.input.Position()
	var cmd tea.Cmd
	f.input, cmd = f.input.Update(k)
	if v := f.input.Value(); !codeText(v) {
		// The input's own keys (a space, a deletion) leave a code's
		// characters only; should anything else get in, it goes.
		f.input.SetValue(before)
		f.input.SetCursor(pos)
	} else if up := strings.ToUpper(v); up != v {
		// Codes are upper case; the account reads them either way.
		pos := f.input.Position()
		f.input.SetValue(up)
		f.input.SetCursor(pos)
	}
	if f.input.Value() != before && f.msgSt == sErr {
		f.msg = ""
	}
	return cmd
}

// codeText reports whether s holds only what a link code is typed with:
// ASCII letters and digits, dashes and spaces.
func codeText(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r == '-' || r == ' ') {
			return false
		}
	}
	return true
}

// submit sends the code to the account, in a command. The account
// reads it as the server's link command does (O, I and L are forgiven):
// the form only checks its length.
func (f *redeemScreen) submit() tea.Cmd {
	code := strings.TrimSpace(f.input.Value())
	if n := len(code) - strings.Count(code, "-") - strings.Count(code, " "); n != linkCodeChars {
		f.msg, f.msgSt = "a link code has 8 letters and digits, like ABCD-EFGH", sErr
		return nil
	}
	f.req++
	f.pending = true
	f.msg, f.msgSt = "linking this key"+f.env.gl.ell, sInfo
	acc, ctx, req := f.env.account, f.env.ctx, f.req
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, loadTimeout)
		defer cancel()
		name, err := acc.Redeem(ctx, code)
		return redeemedMsg{req: req, name: name, err: err}
	}
}

// answered takes the account's answer: the name the key now plays as,
// or the reason the code was refused, with the code left to correct.
func (f *redeemScreen) answered(msg redeemedMsg) {
	if msg.req != f.req || !f.pending {
		return
	}
	f.pending = false
	if msg.err != nil {
		f.msg, f.msgSt = clean(Reason(msg.err), 200), sErr
		return
	}
	f.done = clean(msg.name, maxNameCells)
	if f.done == "" {
		f.done = "?" // a name the screen cannot show; the key moved all the same
	}
	f.msg = ""
}

// View draws the form, or the result once a code is accepted, exactly h
// lines.
func (f *redeemScreen) view() string {
	e := f.env
	pal := e.pal
	wrap := func(text string) []string {
		ls := wrapWords(text, max(20, f.w-8))
		for i, l := range ls {
			ls[i] = "    " + l
		}
		return ls
	}
	body := []string{""}
	var keys []key.Binding
	if f.done != "" {
		for _, l := range wrap("This key now plays as " + f.done + ": reconnect to continue as " + f.done +
			" (you share their games and stats).") {
			body = append(body, pal.style(sOK, l))
		}
		body = append(body, "")
		for _, l := range wrapWords(connectCommand(e), f.w-7) {
			body = append(body, "      "+pal.style(sBold, l))
		}
		body = append(body, "", "    This session still plays as "+clean(f.name, maxNameCells)+": press any key to end it.")
		keys = []key.Binding{f.end}
	} else {
		body = append(body, wrap("Type the link code another player gave you (from Link another key in their menu, "+
			"or the link command): this key then plays as them, with their name, stats and games.")...)
		body = append(body, "", "    "+f.input.View(), "")
		for _, l := range wrap("Only a key without games of its own can join another player.") {
			body = append(body, pal.style(sDim, l))
		}
		f.use.SetEnabled(!f.pending)
		f.back.SetEnabled(!f.pending)
		keys = []key.Binding{f.use, f.back}
	}
	return drawPage(e, f.w, f.h, "Pyramid Solitaire"+e.gl.sep+"use a link code", identity(e, f.name), body,
		f.msg, f.msgSt, f.bar, keys)
}
