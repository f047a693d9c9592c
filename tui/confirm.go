package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// confirmMsg is the answer of the confirmation.
type confirmMsg struct{ yes bool }

var _ screen = (*confirmScreen)(nil)

// confirmScreen asks whether to abandon the game in progress for another.
type confirmScreen struct {
	chrome
	question string
	detail   string
	spec     dealSpec
	yes, no  key.Binding
	bar      *helpBar
}

// newConfirm builds the confirmation for starting spec.
func newConfirm(e *env, question, detail string, spec dealSpec, w, h int) *confirmScreen {
	return &confirmScreen{
		chrome: chrome{env: e, w: w, h: h}, question: question, detail: detail, spec: spec,
		yes: key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "yes, new game")),
		no:  key.NewBinding(key.WithKeys("n", "N", "esc", "q"), key.WithHelp("n", "no, keep playing")),
		bar: newHelpBar(),
	}
}

// Update answers on y or n.
func (c *confirmScreen) update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	switch {
	case k.Type == tea.KeyCtrlC:
		c.event = quitMsg{}
		return nil
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
	body := []string{pal.style(sWarn, cut(c.question, c.w-4, c.env.gl.ell)), "", cut(c.detail, c.w-4, c.env.gl.ell), "",
		pal.style(sBold, "y") + ": yes" + c.env.gl.sep + pal.style(sBold, "n") + ": no"}
	out.fill(max(0, (c.h-len(body))/2-1))
	for _, s := range body {
		out.add("  " + s)
	}
	out.fill(c.h - 1)
	b.WriteByte('\n')
	b.WriteString(c.bar.view(c.env, []key.Binding{c.yes, c.no}, c.w))
	return b.String()
}
