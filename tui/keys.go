package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
)

// KeyScheme is a set of movement keys.
type KeyScheme uint8

const (
	// SchemeVi moves with the arrows and h j k l; d draws.
	SchemeVi KeyScheme = iota
	// SchemeWASD moves with the arrows, h j k l and w a s d; x draws,
	// since d moves right.
	SchemeWASD
)

// String names the scheme for the menu.
func (s KeyScheme) String() string {
	if s == SchemeWASD {
		return "arrows, hjkl and wasd move · x draws"
	}
	return "arrows and hjkl move · d draws"
}

// TableKeyMap is the key map of the table. Bindings that do not apply to
// the position (undo with nothing to undo, draw with nothing to draw, …)
// are disabled, so the help bar shows what can be done now.
type TableKeyMap struct {
	// Up, Down, Left and Right move the cursor.
	Up, Down, Left, Right key.Binding
	// Move is the four directions as one entry of the help bar.
	Move key.Binding
	// Select takes the card under the cursor (enter, space).
	Select key.Binding
	// Cancel drops the selection and the hint.
	Cancel key.Binding
	// Draw draws, or turns the waste over when the stock is empty.
	Draw key.Binding
	// Undo and Redo walk the game's history.
	Undo, Redo key.Binding
	// Hint shows a move.
	Hint key.Binding
	// Prompt opens the ":" line for moves in notation.
	Prompt key.Binding
	// New deals a new game of the same rules.
	New key.Binding
	// Help opens the full help.
	Help key.Binding
	// Back returns to the menu.
	Back key.Binding
	// Quit ends the session.
	Quit key.Binding
	// Redraw repaints the whole screen.
	Redraw key.Binding
}

// NewTableKeyMap returns the table's keys in a movement scheme.
func NewTableKeyMap(s KeyScheme, g *glyphs) TableKeyMap {
	up, down, left, right := []string{"up", "k"}, []string{"down", "j"}, []string{"left", "h"}, []string{"right", "l"}
	draw, moveHelp := "d", g.arrows
	if s == SchemeWASD {
		up, down, left, right = append(up, "w"), append(down, "s"), append(left, "a"), append(right, "d")
		draw, moveHelp = "x", g.arrows
	}
	return TableKeyMap{
		Up:     key.NewBinding(key.WithKeys(up...), key.WithHelp(strings.Join(up, "/"), "up")),
		Down:   key.NewBinding(key.WithKeys(down...), key.WithHelp(strings.Join(down, "/"), "down")),
		Left:   key.NewBinding(key.WithKeys(left...), key.WithHelp(strings.Join(left, "/"), "left")),
		Right:  key.NewBinding(key.WithKeys(right...), key.WithHelp(strings.Join(right, "/"), "right")),
		Move:   key.NewBinding(key.WithKeys(append(append(append(up, down...), left...), right...)...), key.WithHelp(moveHelp, "move")),
		Select: key.NewBinding(key.WithKeys("enter", " "), key.WithHelp("enter", "select")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "unselect")),
		Draw:   key.NewBinding(key.WithKeys(draw), key.WithHelp(draw, "draw")),
		Undo:   key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo")),
		Redo:   key.NewBinding(key.WithKeys("r", "ctrl+r"), key.WithHelp("r", "redo")),
		Hint:   key.NewBinding(key.WithKeys("H"), key.WithHelp("H", "hint")),
		Prompt: key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "moves")),
		New:    key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new")),
		Help:   key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Back:   key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "menu")),
		Quit:   key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		Redraw: key.NewBinding(key.WithKeys("ctrl+l"), key.WithHelp("ctrl+l", "redraw")),
	}
}

// ShortHelp is the help bar: the keys of a turn.
func (k TableKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Move, k.Select, k.Draw, k.Undo, k.Redo, k.Hint, k.Prompt, k.Help, k.New, k.Back}
}

// FullHelp is every key, in columns.
func (k TableKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Left, k.Right, k.Select, k.Cancel},
		{k.Draw, k.Undo, k.Redo, k.Hint, k.Prompt},
		{k.New, k.Help, k.Back, k.Redraw, k.Quit},
	}
}

// MenuKeyMap is the key map of the menu and its forms.
type MenuKeyMap struct {
	// Up and Down choose an item; Left and Right change a rule knob.
	Up, Down, Left, Right key.Binding
	// Select opens the item.
	Select key.Binding
	// Back leaves a form, or quits from the list.
	Back key.Binding
	// Help opens the full help.
	Help key.Binding
	// Quit ends the session.
	Quit key.Binding
	// Redraw repaints the whole screen.
	Redraw key.Binding
}

// NewMenuKeyMap returns the menu's keys.
func NewMenuKeyMap(g *glyphs) MenuKeyMap {
	upDown := "↑/↓"
	if !g.unicode {
		upDown = "up/down"
	}
	return MenuKeyMap{
		Up:     key.NewBinding(key.WithKeys("up", "k", "w"), key.WithHelp(upDown, "choose")),
		Down:   key.NewBinding(key.WithKeys("down", "j", "s", "tab"), key.WithHelp(upDown, "choose")),
		Left:   key.NewBinding(key.WithKeys("left", "h", "a"), key.WithHelp("←/→", "change"), key.WithDisabled()),
		Right:  key.NewBinding(key.WithKeys("right", "l", "d"), key.WithHelp("←/→", "change"), key.WithDisabled()),
		Select: key.NewBinding(key.WithKeys("enter", " "), key.WithHelp("enter", "open")),
		Back:   key.NewBinding(key.WithKeys("q", "esc"), key.WithHelp("q", "quit")),
		Help:   key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:   key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		Redraw: key.NewBinding(key.WithKeys("ctrl+l"), key.WithHelp("ctrl+l", "redraw")),
	}
}

// ShortHelp is the menu's help bar.
func (k MenuKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Left, k.Select, k.Help, k.Back}
}

// FullHelp is every menu key.
func (k MenuKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Left, k.Right}, {k.Select, k.Back, k.Help, k.Quit}}
}

// helpBar renders a key map's short help with the session's styles and
// keeps the last result: the bar only changes when a binding is enabled or
// disabled or the width changes, so most frames reuse it. It keeps nothing
// else between frames: the help.Model that renders it (some 4 KB of
// styles) is built only when the bar changes.
type helpBar struct {
	key string
	out string
}

// newHelpBar returns an empty help bar.
func newHelpBar() *helpBar { return &helpBar{} }

// view returns the help bar of bindings for a width, drawn with the
// session's renderer and glyphs.
func (h *helpBar) view(e *env, bindings []key.Binding, width int) string {
	// The key is built on the stack: comparing it with the last one
	// allocates nothing, so a frame whose bar did not change costs no
	// garbage.
	var scratch [256]byte
	kb := scratch[:0]
	for _, b := range bindings {
		if b.Enabled() {
			kb = append(kb, b.Help().Key...)
			kb = append(kb, 0)
			kb = append(kb, b.Help().Desc...)
		}
		kb = append(kb, 1)
	}
	kb = append(kb, byte(width), byte(width>>8))
	if string(kb) != h.key || h.out == "" {
		h.key, h.out = string(kb), " "+fit(newHelpModel(e), bindings, width-1)
	}
	return h.out
}

// newHelpModel builds the help renderer from the session's renderer and
// glyphs. Only the short help's styles are set: the bar never shows the
// full help.
func newHelpModel(e *env) help.Model {
	r := e.renderer
	keyStyle := r.NewStyle().Bold(true)
	desc := r.NewStyle().Foreground(lipgloss.Color("8"))
	return help.Model{
		ShortSeparator: e.gl.sep,
		Ellipsis:       e.gl.ell,
		Styles: help.Styles{
			Ellipsis:       desc,
			ShortKey:       keyStyle,
			ShortDesc:      desc,
			ShortSeparator: desc,
		},
	}
}

// fit renders the enabled bindings that fit in width cells, followed by
// the ellipsis when some did not. help.Model truncates by itself, but it
// adds the item that overflows when the ellipsis would not fit after the
// one before it; here items are dropped until the ellipsis fits.
func fit(m help.Model, bindings []key.Binding, width int) string {
	sepW, tailW := cells(m.ShortSeparator), 1+cells(m.Ellipsis)
	shown := make([]key.Binding, 0, len(bindings))
	widths := make([]int, 0, len(bindings))
	total, cutShort := 0, false
	for _, b := range bindings {
		if !b.Enabled() {
			continue
		}
		w := cells(b.Help().Key) + 1 + cells(b.Help().Desc)
		if len(shown) > 0 {
			w += sepW
		}
		if total+w > width {
			cutShort = true
			break
		}
		shown, widths, total = append(shown, b), append(widths, w), total+w
	}
	for cutShort && len(shown) > 0 && total+tailW > width {
		total -= widths[len(widths)-1]
		shown, widths = shown[:len(shown)-1], widths[:len(widths)-1]
	}
	m.Width = 0
	out := m.ShortHelpView(shown)
	if cutShort && total+tailW <= width {
		out += m.Styles.Ellipsis.Inline(true).Render(" " + m.Ellipsis)
	}
	return out
}
