package tui

import (
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
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
	// Quit ends the session and Redraw repaints the whole screen: the
	// root handles both for every screen (Model.handleInput); they are
	// here for the help.
	Quit, Redraw key.Binding
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
		draw, moveHelp = "x", "wasd"
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

// ShortHelp is the help bar: the keys of a turn. The table's bar also
// shows w (watch the solver's line) after a game, when the solver knows
// one; that binding is not part of the key map.
func (k TableKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Move, k.Select, k.Draw, k.Undo, k.Redo, k.Hint, k.Prompt, k.Help, k.New, k.Back}
}

// The table's help bar, item by item, in the order it shows them.
const (
	barMove = iota
	barSelect
	barDraw
	barUndo
	barRedo
	barHint
	barPrompt
	barWatch
	barHelp
	barNew
	barBack
	barItems
)

// tableBarDrop is the order in which the table's help bar gives items up
// when the window is too narrow for all of them: the keys a player finds
// without being told first (the arrows, enter), undo before draw (no
// game goes without drawing: a phone's bar keeps d), the way back to the
// menu, the help and the ':' prompt last, so that q, ? and : show at 80
// columns whatever else does.
var tableBarDrop = [barItems]uint8{barMove, barRedo, barSelect, barHint, barNew, barUndo, barDraw, barWatch, barPrompt, barHelp, barBack}

// watchKeys is the table's w after a game: watch the solver's winning
// line. It is kept apart from TableKeyMap, which every table carries, so
// that a table does not grow by a binding it shows only at the end.
var watchKeys = key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "watch"))

// WatchKeyMap is the key map of the watch screen, which steps through
// the solver's winning line of a deal.
type WatchKeyMap struct {
	// Next plays the next move of the line; Prev takes the last one back.
	Next, Prev key.Binding
	// Start and End jump to either end of the line.
	Start, End key.Binding
	// Auto plays the line on by itself, a move every watchStep, or
	// pauses it.
	Auto key.Binding
	// Help opens the full help.
	Help key.Binding
	// Back returns to the end of the game the line is of.
	Back key.Binding
	// Quit ends the session and Redraw repaints the whole screen: the
	// root handles both for every screen (Model.handleInput); they are
	// here for the help.
	Quit, Redraw key.Binding
}

// watchKeyMaps are the watch screen's key maps by character set (ASCII,
// Unicode), built once and shared as tableKeyMaps are.
var watchKeyMaps = [2]WatchKeyMap{newWatchKeyMap(glyphSets[0]), newWatchKeyMap(glyphSets[1])}

// NewWatchKeyMap returns the watch screen's keys.
func NewWatchKeyMap(g *glyphs) WatchKeyMap {
	for u, set := range glyphSets {
		if g == set {
			return watchKeyMaps[u]
		}
	}
	return newWatchKeyMap(g)
}

// newWatchKeyMap builds the watch screen's keys.
func newWatchKeyMap(g *glyphs) WatchKeyMap {
	next, prev := "→", "←"
	if !g.unicode {
		next, prev = "l", "h"
	}
	return WatchKeyMap{
		Next:   key.NewBinding(key.WithKeys("right", "l", " ", "enter"), key.WithHelp(next, "next")),
		Prev:   key.NewBinding(key.WithKeys("left", "h", "backspace"), key.WithHelp(prev, "previous")),
		Start:  key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "start")),
		End:    key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "end")),
		Auto:   key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "auto-play")),
		Help:   key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Back:   key.NewBinding(key.WithKeys("q", "esc"), key.WithHelp("q", "back")),
		Quit:   key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		Redraw: key.NewBinding(key.WithKeys("ctrl+l"), key.WithHelp("ctrl+l", "redraw")),
	}
}

// ShortHelp is the watch screen's help bar.
func (k WatchKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.Prev, k.Auto, k.Start, k.End, k.Help, k.Back}
}

// watchBarDrop is the order in which the watch screen's bar gives items
// up when the window is narrow.
var watchBarDrop = [...]uint8{3, 4, 2, 1, 0, 5, 6}

// MenuKeyMap is the key map of the menu and its forms.
type MenuKeyMap struct {
	// Up and Down choose an item; Left and Right change a rule knob.
	Up, Down, Left, Right key.Binding
	// Select opens the item.
	Select key.Binding
	// First, Last, PgUp and PgDown jump through the list.
	First, Last, PgUp, PgDown key.Binding
	// Back leaves a form, or asks whether to quit from the list.
	Back key.Binding
	// Help opens the full help.
	Help key.Binding
	// Quit ends the session and Redraw repaints the whole screen: the
	// root handles both for every screen (Model.handleInput); they are
	// here for the help.
	Quit, Redraw key.Binding
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
		First:  key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home", "first")),
		Last:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end", "last")),
		PgUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PgDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
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

// helpBar renders a key map's short help with the session's styles and
// keeps the last result: the bar only changes when a binding is enabled or
// disabled or the width changes, so most frames reuse it. It keeps nothing
// else between frames but a 64-bit hash of what the bar was drawn from
// (the text of that would be as long as the bar). It keeps the bars before
// too, the last drawn first: a bar goes back and forth between a few (a
// prompt opened and closed, a move that enables undo and a draw that
// disables it: a race's every move, typed at the prompt or not).
type helpBar struct {
	key uint64
	out string
	// older are the bars drawn before, the last first: the table's
	// during a race goes through three (undo on, undo off after a draw,
	// the prompt open).
	older [2]keptBar
}

// keptBar is a bar a helpBar keeps, with the hash it was drawn from.
type keptBar struct {
	key uint64
	out string
}

// newHelpBar returns an empty help bar.
func newHelpBar() *helpBar { return &helpBar{} }

// forget drops the last rendering, for a screen that stops showing. The
// bar is a cache: every copy of its screen may drop it.
func (h *helpBar) forget() { *h = helpBar{} }

// view returns the help bar of bindings for a width, drawn with the
// session's palette and glyphs. When they do not all fit, the last ones
// give way first.
func (h *helpBar) view(e *env, bindings []key.Binding, width int) string {
	return h.viewDropping(e, bindings, nil, width)
}

// viewDropping is view with the order in which items give way when they
// do not all fit: drop lists indexes of bindings, the first to go first;
// items it does not list go before those it lists, the last first. Nil
// means the last first.
func (h *helpBar) viewDropping(e *env, bindings []key.Binding, drop []uint8, width int) string {
	// The key hashes the texts of the enabled bindings, where the
	// disabled ones are, the width and the glyphs (the separators are
	// theirs; the player may switch them): computing and comparing it
	// allocates nothing, so a frame whose bar did not change costs no
	// garbage.
	k := uint64(fnvOffset)
	if e.gl.unicode {
		k = fnvByte(k, 2)
	}
	for _, b := range bindings {
		if b.Enabled() {
			k = fnv(k, b.Help().Key)
			k = fnvByte(k, 0)
			k = fnv(k, b.Help().Desc)
		}
		k = fnvByte(k, 1)
	}
	k = fnvByte(fnvByte(k, byte(width)), byte(width>>8))
	if k == h.key && h.out != "" {
		return h.out
	}
	// The bar before, or a new one, comes first; the others move down
	// one, the oldest going when the bar is new.
	i := 0
	for i < len(h.older)-1 && (h.older[i].key != k || h.older[i].out == "") {
		i++
	}
	found := h.older[i]
	if found.key != k || found.out == "" {
		found = keptBar{k, " " + fit(e, bindings, drop, width-1)}
	}
	copy(h.older[1:i+1], h.older[:i])
	h.older[0] = keptBar{h.key, h.out}
	h.key, h.out = found.key, found.out
	return h.out
}

// FNV-1a, 64 bits, for the help bar's key.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnv(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = fnvByte(h, s[i])
	}
	return h
}

func fnvByte(h uint64, c byte) uint64 { return (h ^ uint64(c)) * fnvPrime }

// maxBar is the most items a help bar has.
const maxBar = 16

// fit renders the enabled bindings that fit in width cells, in their
// order, followed by the ellipsis when some were left out (the full help
// has them). Items give way in the order of drop (see viewDropping), the
// help key last, until the rest and the ellipsis fit, as help.Model's short help does with the
// styles the bar always had: a bold key, then its description and the
// separators in grey. help.Model only cuts the end of the bar, and adds
// the item that overflows when the ellipsis would not fit after the one
// before it.
//
// It writes the escape sequences from the palette rather than through
// help.Model and lipgloss, which make the same text for the bar's texts
// (no tabs, no line breaks) but copy a 4 KB help.Model by value on the
// way and allocate for every item: the bar changes with most moves.
func fit(e *env, bindings []key.Binding, drop []uint8, width int) string {
	sep, ell := e.gl.sep, e.gl.ell
	sepW, tailW := cells(sep), 1+cells(ell)
	bindings = bindings[:min(len(bindings), maxBar)]
	// shown says which items are on the bar; an item's width counts the
	// separator before it, which every item but the first has.
	var shown [maxBar]bool
	var widths [maxBar]int
	total, n := 0, 0
	for i, kb := range bindings {
		if kb.Enabled() {
			shown[i] = true
			widths[i] = cells(kb.Help().Key) + 1 + cells(kb.Help().Desc)
			total += widths[i]
			n++
		}
	}
	total += max(0, n-1) * sepW
	// order is the order items give way in: those drop does not name,
	// the last first, then those it names.
	var order [maxBar]int
	k := 0
	for i := len(bindings) - 1; i >= 0; i-- {
		if !slices.Contains(drop, uint8(i)) {
			order[k] = i
			k++
		}
	}
	for _, i := range drop {
		if int(i) < len(bindings) {
			order[k] = int(i)
			k++
		}
	}
	// The help key goes last whatever the order: the full help lists
	// what a narrow window's bar leaves out.
	if i := slices.IndexFunc(order[:k], func(i int) bool { return bindings[i].Help().Key == "?" }); i >= 0 {
		help := order[i]
		copy(order[i:k-1], order[i+1:k])
		order[k-1] = help
	}
	cutShort := false
	for _, i := range order[:k] {
		tail := 0
		if cutShort {
			tail = tailW
		}
		if total+tail <= width {
			break
		}
		if !shown[i] {
			continue
		}
		shown[i], cutShort = false, true
		total -= widths[i]
		if n--; n > 0 {
			total -= sepW
		}
	}
	// The bar is written with the palette's shortest switch from one
	// style to the next (the separator, the blank after a key and the
	// description share one grey run) rather than a reset after every
	// piece as lipgloss writes it: the same text in fewer bytes, on
	// every screen's last line.
	b := make([]byte, 0, 2*width+16*maxBar)
	cur := sPlain
	first := true
	for i, kb := range bindings {
		if !shown[i] {
			continue
		}
		if !first {
			b = e.pal.appendStyle(b, cur, sDesc)
			b = append(b, sep...)
			cur = sDesc
		}
		first = false
		b = e.pal.appendStyle(b, cur, sKey)
		b = append(b, kb.Help().Key...)
		b = e.pal.appendStyle(b, sKey, sDesc)
		b = append(b, ' ')
		b = append(b, kb.Help().Desc...)
		cur = sDesc
	}
	if cutShort && total+tailW <= width {
		b = e.pal.appendStyle(b, cur, sDesc)
		b = append(b, ' ')
		b = append(b, ell...)
		cur = sDesc
	}
	return string(e.pal.appendStyle(b, cur, sPlain))
}

// keyName is a key's name as bubbles/key matches it (tea.KeyMsg.String):
// key.Matches takes any fmt.Stringer, and a keyName is its own string, so
// a screen names a key once per message and hands that to every binding
// it checks, where tea.KeyMsg builds the name anew (two allocations) for
// each.
type keyName string

// String returns the name.
func (n keyName) String() string { return string(n) }

// printable is the printable ASCII characters in order, for nameOf to
// slice one-character names from without allocating.
const printable = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"

// keyTypeOffset is the lowest key type keyTypeNames holds: tea's special
// keys (arrows, home, F-keys, …) have negative types, control keys 0 to
// 127.
const keyTypeOffset = 128

// keyTypeNames are the names of the key types that are not runes, by
// type + keyTypeOffset, as tea.KeyMsg.String gives them; built once and
// never changed.
var keyTypeNames = func() (names [2 * keyTypeOffset]string) {
	for i := range names {
		if t := tea.KeyType(i - keyTypeOffset); t != tea.KeyRunes {
			names[i] = tea.Key{Type: t}.String()
		}
	}
	return names
}()

// nameOf returns k's name, k.String(), without allocating for a
// printable ASCII character or a special key without alt; other keys
// (alt, pastes, other runes) get k.String().
func nameOf(k tea.KeyMsg) keyName {
	switch {
	case k.Alt || k.Paste:
	case k.Type == tea.KeyRunes:
		if len(k.Runes) == 1 && k.Runes[0] >= ' ' && k.Runes[0] <= '~' {
			i := int(k.Runes[0] - ' ')
			return keyName(printable[i : i+1])
		}
	case int(k.Type)+keyTypeOffset >= 0 && int(k.Type)+keyTypeOffset < len(keyTypeNames):
		if n := keyTypeNames[int(k.Type)+keyTypeOffset]; n != "" {
			return keyName(n)
		}
	}
	return keyName(k.String())
}
