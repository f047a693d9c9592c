package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// nameOf names every key as tea.KeyMsg.String does: every key type, with
// and without alt, runes one and several, pastes.
func TestNameOf(t *testing.T) {
	var keys []tea.KeyMsg
	for ty := tea.KeyType(-200); ty < 300; ty++ {
		keys = append(keys, tea.KeyMsg{Type: ty}, tea.KeyMsg{Type: ty, Alt: true})
	}
	for r := rune(0); r < 0x300; r++ {
		keys = append(keys, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}},
			tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: true},
			tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Paste: true})
	}
	keys = append(keys,
		tea.KeyMsg{Type: tea.KeyRunes},
		tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("hl")},
		tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("♠")},
		tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}},
		tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("ab"), Paste: true})
	for _, k := range keys {
		if got, want := nameOf(k).String(), k.String(); got != want {
			t.Errorf("nameOf(%#v) = %q, want %q", k, got, want)
		}
	}
}

// Naming a printable ASCII key or a special key allocates nothing.
func TestNameOfAllocations(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector allocates")
	}
	for _, k := range []tea.KeyMsg{
		{Type: tea.KeyRunes, Runes: []rune("l")},
		{Type: tea.KeyRunes, Runes: []rune("~")},
		{Type: tea.KeyDown},
		{Type: tea.KeyEnter},
		{Type: tea.KeyCtrlC},
		{Type: tea.KeySpace, Runes: []rune{' '}},
	} {
		if n := testing.AllocsPerRun(100, func() { _ = nameOf(k) }); n != 0 {
			t.Errorf("nameOf(%q) allocates %.0f times, want 0", k.String(), n)
		}
	}
}
