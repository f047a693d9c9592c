package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// renamedMsg is the account's answer to a new name.
type renamedMsg struct {
	req  int
	name string
	err  error
}

// maxNameCells is the widest display name, in terminal cells;
// maxNameInput the most characters the name field takes, so that a name
// typed too long is shown as such (and said so) rather than cut.
const (
	maxNameCells = 16
	maxNameInput = 2 * maxNameCells
)

// nameScreen is the form that changes the player's display name: a text
// input, the rules a name follows, and the server's reason when it
// refuses one.
type nameScreen struct {
	chrome
	input textinput.Model
	// current is the name as stored.
	current string
	req     int // of the latest request; older answers are dropped
	pending bool
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

// newNameScreen builds the form.
func newNameScreen(e *env, w, h int) *nameScreen {
	return &nameScreen{
		chrome: chrome{env: e, w: w, h: h},
		input:  newTextInput(e.renderer, "name: ", maxNameInput, maxNameCells+1),
		save:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "save")),
		back:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		bar:    newHelpBar(),
	}
}

// open shows the form with the current name to edit.
func (f *nameScreen) open(current string) {
	f.current = clean(current, maxNameCells)
	f.input.SetValue(f.current)
	f.input.CursorEnd()
	f.input.Focus() // nil command: the cursor is static
	f.pending, f.msg = false, ""
}

// Update edits the name, sends it on enter, or goes back on esc.
func (f *nameScreen) update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, f.back):
		f.event = backMsg{}
		return nil
	case key.Matches(k, f.save):
		return f.submit()
	}
	before, pos := f.input.Value(), f.input.Position()
	var cmd tea.Cmd
	f.input, cmd = f.input.Update(k)
	v := f.input.Value()
	if bad, ok := unshown(v); ok {
		// A character no screen may show (a control, a bidi override):
		// it cannot be typed, and the form says which it was.
		f.input.SetValue(before)
		f.input.SetCursor(pos)
		f.msg, f.msgSt = fmt.Sprintf("U+%04X cannot be in a name: it does not show on a screen", bad), sErr
		return cmd
	}
	if v != before {
		f.msg = f.refusal(v)
		f.msgSt = sErr
		if f.msg == "" && len([]rune(v)) >= maxNameInput {
			f.msg, f.msgSt = "that is as long as the field takes", sWarn
		}
	}
	return cmd
}

// refusal is why a name cannot be one, as the account says it (too
// wide, a character it takes for another), or "".
func (f *nameScreen) refusal(name string) string {
	name = strings.TrimSpace(name)
	if name == "" || f.env.account == nil {
		return ""
	}
	return clean(f.env.account.NameRefusal(name), 200)
}

// unshown returns the first character of s that the screens drop (see
// clean), if there is one.
func unshown(s string) (rune, bool) {
	for _, r := range s {
		if c := string(r); clean(c, 4) != c {
			return r, true
		}
	}
	return 0, false
}

// submit sends the name to the account, in a command.
func (f *nameScreen) submit() tea.Cmd {
	if f.pending {
		return nil
	}
	name := strings.TrimSpace(f.input.Value())
	switch name {
	case "":
		f.msg, f.msgSt = "type a name: 1 to 16 letters, digits, _ . or -", sErr
		return nil
	case f.current:
		f.msg, f.msgSt = "that is your name already", sInfo
		return nil
	}
	if why := f.refusal(name); why != "" {
		f.msg, f.msgSt = why, sErr
		return nil
	}
	f.req++
	f.pending = true
	f.msg, f.msgSt = "saving"+f.env.gl.ell, sInfo
	acc, player, ctx, req := f.env.account, f.env.player.ID, f.env.ctx, f.req
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, loadTimeout)
		defer cancel()
		stored, err := acc.Rename(ctx, player, name)
		return renamedMsg{req: req, name: stored, err: err}
	}
}

// refused shows why the account refused the name; the form stays.
func (f *nameScreen) refused(msg renamedMsg) {
	if msg.req != f.req {
		return
	}
	f.pending = false
	f.msg, f.msgSt = clean(Reason(msg.err), 200), sErr
}

// View draws the form, exactly h lines.
func (f *nameScreen) view() string {
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
