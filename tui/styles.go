package tui

import (
	"strings"
	"sync"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// styleID names one of the session's styles. Screens are drawn as cells
// tagged with a styleID and turned into text by a palette, which knows the
// escape sequence of each style for this session's colour profile.
type styleID uint8

// The styles. Card styles come in pairs, black then red, so that
// cardStyle can add 1 for a red suit.
const (
	sPlain    styleID = iota
	sDim              // labels, separators, rules text
	sBold             // titles
	sCovBlack         // a covered card
	sCovRed
	sAvBlack // an available card
	sAvRed
	sCurBlack // the card under the cursor
	sCurRed
	sSelBlack // the selected card
	sSelRed
	sHintBlack // a card of the hinted move
	sHintRed
	sSelCurBlack // the selected card under the cursor
	sSelCurRed
	sBack     // a face-down stock card
	sCurBack  // the face-down stock under the cursor
	sHintBack // the stock when the hint is to draw
	sErr      // a message saying why not
	sOK       // a message saying what happened
	sWarn     // game lost, save failed
	sInfo     // neutral messages, hints
	sKey      // a key in the help bar
	sDesc     // a key's description in the help bar
	sMenuCur  // the highlighted menu item
	sTitle    // the arcade's title
	nStyles
)

// palette holds what a session needs to colour text: the SGR parameters of
// every style for the session's colour profile. It depends on nothing but
// the profile and never changes once built, so the sessions of a profile
// share one (paletteFor).
type palette struct {
	// params is each style's SGR parameter list, e.g. "1;91"; empty for
	// a style that sets nothing in this profile.
	params [nStyles]string
	// onSpace says whether a style shows on a blank cell (reverse video,
	// background, underline); other styles may be skipped over blanks.
	onSpace [nStyles]bool
	// open is "\x1b[" + params + "m", or "" for none.
	open [nStyles]string
}

// palettes are the palettes of the colour profiles, each built the first
// time a session of its profile starts. Building one is deterministic and
// the result is read-only, so sharing it is safe and saves every session
// its own copy (about a kilobyte and a half).
var palettes = [...]func() *palette{
	termenv.TrueColor: sync.OnceValue(func() *palette { return newPalette(termenv.TrueColor) }),
	termenv.ANSI256:   sync.OnceValue(func() *palette { return newPalette(termenv.ANSI256) }),
	termenv.ANSI:      sync.OnceValue(func() *palette { return newPalette(termenv.ANSI) }),
	termenv.Ascii:     sync.OnceValue(func() *palette { return newPalette(termenv.Ascii) }),
}

// paletteFor returns the shared palette of a renderer's colour profile.
func paletteFor(r *lipgloss.Renderer) *palette {
	p := r.ColorProfile()
	if p < 0 || int(p) >= len(palettes) {
		return newPalette(p)
	}
	return palettes[p]()
}

// newPalette builds the styles of a colour profile. Card colours are the
// 16 basic ANSI colours in every profile: their escape sequences are the
// shortest (bytes per move matter over SSH) and they follow the player's
// terminal theme. Highlights use CompleteColor so that 256-colour and
// true-colour terminals get softer shades. No style depends on the
// terminal's background, only on the profile.
func newPalette(profile termenv.Profile) *palette {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(profile)
	ns := r.NewStyle
	black := lipgloss.Color("0")
	red := lipgloss.Color("9")
	darkRed := lipgloss.Color("1")
	grey := lipgloss.Color("8")
	selBg := lipgloss.CompleteColor{TrueColor: "#ffd75f", ANSI256: "221", ANSI: "11"}
	hintBg := lipgloss.CompleteColor{TrueColor: "#5fd7ff", ANSI256: "81", ANSI: "14"}
	defs := [nStyles]lipgloss.Style{
		sPlain:       ns(),
		sDim:         ns().Foreground(grey),
		sBold:        ns().Bold(true),
		sCovBlack:    ns().Foreground(grey),
		sCovRed:      ns().Foreground(darkRed).Faint(true),
		sAvBlack:     ns(),
		sAvRed:       ns().Foreground(red),
		sCurBlack:    ns().Bold(true).Reverse(true),
		sCurRed:      ns().Bold(true).Reverse(true).Foreground(red),
		sSelBlack:    ns().Bold(true).Foreground(black).Background(selBg),
		sSelRed:      ns().Bold(true).Foreground(darkRed).Background(selBg),
		sHintBlack:   ns().Bold(true).Foreground(black).Background(hintBg),
		sHintRed:     ns().Bold(true).Foreground(darkRed).Background(hintBg),
		sSelCurBlack: ns().Bold(true).Underline(true).Foreground(black).Background(selBg),
		sSelCurRed:   ns().Bold(true).Underline(true).Foreground(darkRed).Background(selBg),
		sBack:        ns().Foreground(lipgloss.Color("4")),
		sCurBack:     ns().Reverse(true).Foreground(lipgloss.Color("4")),
		sHintBack:    ns().Foreground(black).Background(hintBg),
		sErr:         ns().Foreground(red),
		sOK:          ns().Foreground(lipgloss.Color("10")),
		sWarn:        ns().Bold(true).Foreground(lipgloss.Color("11")),
		sInfo:        ns().Foreground(lipgloss.Color("14")),
		sKey:         ns().Bold(true),
		sDesc:        ns().Foreground(grey),
		sMenuCur:     ns().Reverse(true).Bold(true),
		sTitle:       ns().Bold(true).Foreground(lipgloss.Color("11")),
	}
	p := &palette{}
	for id, st := range defs {
		out := st.Render("x")
		open := out[:strings.IndexByte(out, 'x')]
		if strings.HasPrefix(open, "\x1b[") && strings.HasSuffix(open, "m") && !strings.Contains(open[1:], "\x1b") {
			p.params[id] = open[2 : len(open)-1]
			p.open[id] = open
		}
		p.onSpace[id] = p.open[id] != "" && (st.GetReverse() || st.GetUnderline() || st.GetBackground() != lipgloss.NoColor{})
	}
	return p
}

// style returns s wrapped in the escape sequences of style id.
func (p *palette) style(id styleID, s string) string {
	if p.open[id] == "" || s == "" {
		return s
	}
	return p.open[id] + s + "\x1b[m"
}

// write writes s in style id to b, as style returns it.
func (p *palette) write(b *strings.Builder, id styleID, s string) {
	p.writePadded(b, id, s, 0)
}

// writePadded writes s and n blanks after it in style id to b, as
// style(id, s + n blanks) returns them.
func (p *palette) writePadded(b *strings.Builder, id styleID, s string, n int) {
	if p.open[id] == "" || s == "" && n <= 0 {
		b.WriteString(s)
		pad(b, n)
		return
	}
	b.WriteString(p.open[id])
	b.WriteString(s)
	pad(b, n)
	b.WriteString("\x1b[m")
}

// appendStyle appends the escape sequence that switches from style cur
// to style id, as short as it can be, and returns the buffer.
func (p *palette) appendStyle(buf []byte, cur, id styleID) []byte {
	switch {
	case p.params[id] == p.params[cur]:
	case p.params[cur] == "":
		buf = append(buf, p.open[id]...)
	case p.params[id] == "":
		buf = append(buf, "\x1b[m"...)
	default:
		buf = append(buf, "\x1b[0;"...)
		buf = append(buf, p.params[id]...)
		buf = append(buf, 'm')
	}
	return buf
}
