package tui

import (
	"strings"

	"pyramid/engine"
)

// glyphs are the characters a session draws with: Unicode or plain ASCII.
type glyphs struct {
	unicode bool
	// faces[c] is card c's face as three cells: rank right-aligned in two,
	// then the suit (" 9♠", "10♥" or " 9S", "10H").
	faces [52][3]rune
	// narrow[c] is card c's face in two cells, for the narrow board of a
	// phone-sized window: the rank in one (T for ten, as the deal text
	// writes it), then the suit ("9♠", "T♥" or "9S", "TH").
	narrow [52][2]rune
	// back fills a face-down card.
	back rune
	// box and panel are the corners and lines of a card and of the
	// end-of-game panel: top-left, top-right, bottom-left, bottom-right,
	// horizontal, vertical.
	box, panel [6]rune
	// marks around a compact card tell its state without colour:
	// covered, available, cursor, selected, selected under the cursor,
	// hinted. They are ASCII in both
	// modes: the Unicode candidates (▶ «) are ambiguous-width and break
	// alignment in East Asian terminals.
	markCov, markAv, markCur, markSel, markSelCur, markHint [2]rune
	// sep separates header items; inf is the unlimited pass count.
	sep, inf, ell string
	// arrows for the help bar.
	arrows string
	// redeal marks the empty stock while the waste can turn over.
	redeal rune
}

// glyphSets are the two sets of glyphs, ASCII then Unicode. They are
// read-only once built: every session shares them.
var glyphSets = [2]*glyphs{newGlyphs(false), newGlyphs(true)}

// glyphsFor returns the shared glyphs of a session.
func glyphsFor(unicode bool) *glyphs {
	if unicode {
		return glyphSets[1]
	}
	return glyphSets[0]
}

// newGlyphs builds a set of glyphs.
func newGlyphs(unicode bool) *glyphs {
	g := &glyphs{unicode: unicode}
	for c := range engine.Card(52) {
		rank := c.RankString()
		var face [3]rune
		if len(rank) == 2 {
			face[0], face[1] = rune(rank[0]), rune(rank[1])
		} else {
			face[0], face[1] = ' ', rune(rank[0])
		}
		if unicode {
			face[2] = []rune(c.Suit().Symbol())[0]
		} else {
			face[2] = rune(c.Suit().Letter())
		}
		g.faces[c] = face
		g.narrow[c] = [2]rune{face[1], face[2]}
		if len(rank) == 2 {
			g.narrow[c][0] = 'T'
		}
	}
	g.markCov = [2]rune{' ', ' '}
	g.markAv = [2]rune{'[', ']'}
	g.markCur = [2]rune{'>', '<'}
	g.markSel = [2]rune{'*', '*'}
	g.markSelCur = [2]rune{'>', '*'}
	g.markHint = [2]rune{'+', '+'}
	if unicode {
		g.back = '▒'
		g.box = [6]rune{'┌', '┐', '└', '┘', '─', '│'}
		g.panel = [6]rune{'╔', '╗', '╚', '╝', '═', '║'}
		g.sep, g.inf, g.ell = " · ", "∞", "…"
		g.arrows = "←↑↓→"
		g.redeal = '↻'
	} else {
		g.back = '#'
		g.box = [6]rune{'+', '+', '+', '+', '-', '|'}
		g.panel = g.box
		g.sep, g.inf, g.ell = " - ", "inf", "..."
		g.arrows = "arrows"
		g.redeal = 'r'
	}
	return g
}

// cardName is a card as messages name it: "9♠", "10♥" or "9S".
func (g *glyphs) cardName(c engine.Card) string {
	f := g.faces[c]
	if f[0] == ' ' {
		return string(f[1:])
	}
	return string(f[:])
}

// cardsIn writes the cards named in s (an engine message, which names
// them in letters: "KD + 4S = 17") as the board draws them: with suit
// symbols, or letters when the session draws letters. A card is a
// word of a rank (A23456789TJQK) and a suit (CDHS), in capitals.
func (g *glyphs) cardsIn(s string) string {
	var b strings.Builder
	done := 0 // s[:done] is in b
	for i := 0; i+2 <= len(s); i++ {
		if !isCardWord(s, i) {
			continue
		}
		c, err := engine.ParseCard(s[i : i+2])
		if err != nil {
			continue
		}
		b.WriteString(s[done:i])
		b.WriteString(g.cardName(c))
		done = i + 2
		i++
	}
	if done == 0 {
		return s // no card: the message as it is
	}
	b.WriteString(s[done:])
	return b.String()
}

// isCardWord reports whether s holds a card in letters at i, a word of
// its own (nothing but spaces and punctuation around it).
func isCardWord(s string, i int) bool {
	if !strings.ContainsRune("A23456789TJQK", rune(s[i])) || !strings.ContainsRune("CDHS", rune(s[i+1])) {
		return false
	}
	word := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	return (i == 0 || !word(s[i-1])) && (i+2 == len(s) || !word(s[i+2]))
}

// partnerRank is the rank that makes 13 with rank r, as players read it.
func partnerRank(r int) string {
	if r >= 13 || r < 1 {
		return ""
	}
	return engine.NewCard(13-r, engine.Spades).RankString()
}

// cardStyle returns the style of a card shown in state base (a black card
// style) for a card of suit colour red.
func cardStyle(base styleID, c engine.Card) styleID {
	if c.Suit().Red() {
		return base + 1
	}
	return base
}
