package tui

import (
	"strings"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
)

// promptMax bounds what the prompt takes: a whole game's moves fit.
const promptMax = 1200

// promptHistory is how many submitted lines the prompt remembers.
const promptHistory = 20

// Prompt is a one-line editor: the table's ":" line where moves are typed
// in notation. It handles editing keys only; its owner decides what enter
// and esc mean. The cursor does not blink: a blinking cursor would redraw
// every session twice a second for nothing.
type Prompt struct {
	// Label is shown before the text.
	Label string
	// Max is the most characters the line takes, 0 for promptMax: a
	// character typed or pasted beyond it is not taken.
	Max     int
	value   []rune
	pos     int
	history []string
	hpos    int
}

// Value is the text typed so far.
func (p Prompt) Value() string { return string(p.value) }

// Reset empties the prompt for a new line.
func (p Prompt) Reset() Prompt {
	p.value, p.pos, p.hpos = p.value[:0], 0, len(p.history)
	return p
}

// Remember adds a submitted line to the history.
func (p Prompt) Remember(s string) Prompt {
	if s == "" || (len(p.history) > 0 && p.history[len(p.history)-1] == s) {
		return p
	}
	p.history = append(p.history, s)
	if len(p.history) > promptHistory {
		p.history = append([]string(nil), p.history[len(p.history)-promptHistory:]...)
	}
	p.hpos = len(p.history)
	return p
}

// limit is the most characters the line takes.
func (p Prompt) limit() int {
	if p.Max > 0 {
		return min(p.Max, promptMax)
	}
	return promptMax
}

// Len is the number of characters typed so far.
func (p Prompt) Len() int { return len(p.value) }

// Full reports whether the line holds as many characters as it takes.
func (p Prompt) Full() bool { return len(p.value) >= p.limit() }

// Update edits the line: printable characters, backspace, delete, left,
// right, home, end, ctrl+u, and up/down through the history.
func (p Prompt) Update(msg tea.Msg) (Prompt, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return p, nil
	}
	switch k.Type {
	case tea.KeyRunes, tea.KeySpace:
		v := make([]rune, 0, len(p.value)+len(k.Runes))
		v = append(v, p.value[:p.pos]...)
		n, most := 0, p.limit()
		for _, r := range k.Runes {
			if unicode.IsPrint(r) && len(p.value)+n < most {
				v = append(v, r)
				n++
			}
		}
		p.value = append(v, p.value[p.pos:]...)
		p.pos += n
	case tea.KeyBackspace:
		if p.pos > 0 {
			p.value = append(p.value[:p.pos-1:p.pos-1], p.value[p.pos:]...)
			p.pos--
		}
	case tea.KeyDelete:
		if p.pos < len(p.value) {
			p.value = append(p.value[:p.pos:p.pos], p.value[p.pos+1:]...)
		}
	case tea.KeyLeft:
		p.pos = max(0, p.pos-1)
	case tea.KeyRight:
		p.pos = min(len(p.value), p.pos+1)
	case tea.KeyHome, tea.KeyCtrlA:
		p.pos = 0
	case tea.KeyEnd, tea.KeyCtrlE:
		p.pos = len(p.value)
	case tea.KeyCtrlU:
		p.value, p.pos = p.value[:0:0], 0
	case tea.KeyUp:
		if p.hpos > 0 {
			p.hpos--
			p.value = []rune(p.history[p.hpos])
			p.pos = len(p.value)
		}
	case tea.KeyDown:
		if p.hpos < len(p.history) {
			p.hpos++
			p.value = p.value[:0:0]
			if p.hpos < len(p.history) {
				p.value = []rune(p.history[p.hpos])
			}
			p.pos = len(p.value)
		}
	}
	return p, nil
}

// view draws the prompt in width cells, scrolling the text so the cursor
// stays in sight; the cursor is a reverse-video cell.
func (p Prompt) view(pal *palette, width int) string {
	var b strings.Builder
	b.WriteString(pal.style(sBold, p.Label))
	room := width - len(p.Label) - 1
	start := 0
	if p.pos > room-1 {
		start = p.pos - (room - 1)
	}
	end := min(len(p.value), start+room)
	b.WriteString(string(p.value[start:p.pos]))
	at := " "
	if p.pos < len(p.value) {
		at = string(p.value[p.pos])
	}
	b.WriteString(pal.style(sMenuCur, at))
	if p.pos < end {
		b.WriteString(string(p.value[p.pos+1 : end]))
	}
	return b.String()
}
