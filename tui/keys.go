package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
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

// tableKeyMaps are the table's key maps by scheme and character set
// (ASCII, Unicode), built once. A key map is a value: a session's copy
// shares the key lists and texts of these, which nothing changes in
// place (key.Binding's setters replace them), so it costs no allocation.
var tableKeyMaps = [2][2]TableKeyMap{
	{newTableKeyMap(SchemeVi, glyphSets[0]), newTableKeyMap(SchemeVi, glyphSets[1])},
	{newTableKeyMap(SchemeWASD, glyphSets[0]), newTableKeyMap(SchemeWASD, glyphSets[1])},
}

// NewTableKeyMap returns the table's keys in a movement scheme.
func NewTableKeyMap(s KeyScheme, g *glyphs) TableKeyMap {
	for u, set := range glyphSets {
		if g == set && int(s) < len(tableKeyMaps) {
			return tableKeyMaps[s][u]
		}
	}
	return newTableKeyMap(s, g)
}

// newTableKeyMap builds the table's keys in a movement scheme.
func newTableKeyMap(s KeyScheme, g *glyphs) TableKeyMap {
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

// menuKeyMaps are the menu's key maps by character set (ASCII,
// Unicode), built once and shared as tableKeyMaps are.
var menuKeyMaps = [2]MenuKeyMap{newMenuKeyMap(glyphSets[0]), newMenuKeyMap(glyphSets[1])}

// NewMenuKeyMap returns the menu's keys.
func NewMenuKeyMap(g *glyphs) MenuKeyMap {
	for u, set := range glyphSets {
		if g == set {
			return menuKeyMaps[u]
		}
	}
	return newMenuKeyMap(g)
}

// newMenuKeyMap builds the menu's keys.
func newMenuKeyMap(g *glyphs) MenuKeyMap {
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
// else between frames.
type helpBar struct {
	key string
	out string
}

// newHelpBar returns an empty help bar.
func newHelpBar() *helpBar { return &helpBar{} }

// forget drops the last rendering, for a screen that stops showing. The
// bar is a cache: every copy of its screen may drop it.
func (h *helpBar) forget() { h.key, h.out = "", "" }

// view returns the help bar of bindings for a width, drawn with the
// session's palette and glyphs.
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
		h.key, h.out = string(kb), " "+fit(e, bindings, width-1)
	}
	return h.out
}

// fit renders the enabled bindings that fit in width cells, followed by
// the ellipsis when some did not, as help.Model's short help does with
// the styles the bar always had: a bold key, then its description and
// the separators in grey. help.Model truncates by itself, but it adds
// the item that overflows when the ellipsis would not fit after the one
// before it; here items are dropped until the ellipsis fits.
//
// It writes the escape sequences from the palette rather than through
// help.Model and lipgloss, which make the same bytes for the bar's texts
// (no tabs, no line breaks; lipgloss ends a style with "\x1b[0m") but
// copy a 4 KB help.Model by value on the way and allocate for every
// item: the bar changes with most moves.
func fit(e *env, bindings []key.Binding, width int) string {
	sep, ell := e.gl.sep, e.gl.ell
	sepW, tailW := cells(sep), 1+cells(ell)
	widths := make([]int, 0, len(bindings)) // of the enabled items that fit
	total, cutShort := 0, false
	for _, kb := range bindings {
		if !kb.Enabled() {
			continue
		}
		w := cells(kb.Help().Key) + 1 + cells(kb.Help().Desc)
		if len(widths) > 0 {
			w += sepW
		}
		if total+w > width {
			cutShort = true
			break
		}
		widths, total = append(widths, w), total+w
	}
	for cutShort && len(widths) > 0 && total+tailW > width {
		total -= widths[len(widths)-1]
		widths = widths[:len(widths)-1]
	}
	var b strings.Builder
	n := 0
	for _, kb := range bindings {
		if n == len(widths) {
			break
		}
		if !kb.Enabled() {
			continue
		}
		if n > 0 {
			lipglossStyle(&b, e.pal, sDesc, sep)
		}
		lipglossStyle(&b, e.pal, sKey, kb.Help().Key)
		b.WriteByte(' ')
		lipglossStyle(&b, e.pal, sDesc, kb.Help().Desc)
		n++
	}
	if cutShort && total+tailW <= width {
		lipglossStyle(&b, e.pal, sDesc, " "+ell)
	}
	return b.String()
}

// lipglossStyle writes s in style id as lipgloss renders an inline
// style: the style's sequence, s, and a full reset.
func lipglossStyle(b *strings.Builder, p *palette, id styleID, s string) {
	if p.open[id] == "" {
		b.WriteString(s)
		return
	}
	b.WriteString(p.open[id])
	b.WriteString(s)
	b.WriteString("\x1b[0m")
}
