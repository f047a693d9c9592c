package engine

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"
	"time"
)

// Deal is the cards of one game: the pyramid row by row from the top, left
// to right, then the stock, first drawn first.
type Deal struct {
	// Decks is 1 (52 cards) or 2 (104 cards).
	Decks int
	// Cards holds the pyramid cards then the stock.
	Cards []Card
	// Number is the deal number the deal came from, when Numbered.
	Number uint64
	// Numbered reports whether the deal came from a deal number rather
	// than from deal text.
	Numbered bool
}

// NewDeal returns deal number n for one or two decks: a fresh deck in card
// order (each card twice for two decks) shuffled by Fisher–Yates with the
// engine's generator seeded by n.
func NewDeal(n uint64, decks int) Deal {
	if decks != 2 {
		decks = 1
	}
	cards := make([]Card, 52*decks)
	for i := range cards {
		cards[i] = Card(i % 52)
	}
	g := splitMix64{s: n}
	for i := len(cards) - 1; i > 0; i-- {
		j := g.below(uint64(i + 1))
		cards[i], cards[j] = cards[j], cards[i]
	}
	return Deal{Decks: decks, Cards: cards, Number: n, Numbered: true}
}

// dailySalt separates daily deal numbers from the small numbers people
// pick by hand ("PYRAMID\0" in ASCII).
const dailySalt = 0x505952414d494400

// DailyNumber is the deal number the daily deal for the UTC date of t
// starts from (DailyDeal): the same for everybody that day. It derives
// from a server's secret (HMAC-SHA256 of the date), which nobody without
// it can compute, so that the day's deal cannot be solved offline before
// the day is over. Without a secret (nil) it is the number every server
// dealt before daily secrets, which anybody can compute: tests use it.
func DailyNumber(secret []byte, t time.Time) uint64 {
	y, m, d := t.UTC().Date()
	if len(secret) == 0 {
		return mix64(dailySalt ^ uint64(y*10000+int(m)*100+d))
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("pyramid daily " + t.UTC().Format(time.DateOnly)))
	return binary.BigEndian.Uint64(mac.Sum(nil))
}

// rows returns the pyramid rows of a deal size.
func (d Deal) rows() int { return pick2(d.Decks == 2, 9, 7) }

// Pyramid is the pyramid's cards, row by row from the top.
func (d Deal) Pyramid() []Card { n := d.rows(); return d.Cards[:n*(n+1)/2] }

// Stock is the stock's cards, first drawn first.
func (d Deal) Stock() []Card { n := d.rows(); return d.Cards[n*(n+1)/2:] }

// MaxDealText bounds deal text, wherever it comes from or is kept (the
// store keeps custom deals under the same bound); anything longer is
// refused unread. A double deal is about 500 bytes, so this leaves room
// for plenty of comments.
const MaxDealText = 4 << 10

// ParseDeal reads deal text: cards of two or three characters (rank
// A23456789TJQK or 10, suit CDHS, any case) separated by white space, "#"
// starting a comment to the end of the line. 52 cards make a single deal
// (each card once), 104 a double deal (each card twice); the first 28 or 45
// are the pyramid row by row from the top, the rest the stock, first drawn
// first. Errors name the problem: the unknown card and where it stands,
// the count, a duplicate or missing card.
func ParseDeal(text string) (Deal, error) {
	if len(text) > MaxDealText {
		return Deal{}, fmt.Errorf("deal: text is %d bytes, at most %d", len(text), MaxDealText)
	}
	var cards []Card
	for ln, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		for _, tok := range strings.Fields(line) {
			c, err := ParseCard(tok)
			if err != nil {
				return Deal{}, fmt.Errorf("deal: line %d, card %d: %w", ln+1, len(cards)+1, err)
			}
			if len(cards) == 104 {
				return Deal{}, fmt.Errorf("deal: more than 104 cards (line %d): want 52 for one deck or 104 for two", ln+1)
			}
			cards = append(cards, c)
		}
	}
	var decks int
	switch len(cards) {
	case 52:
		decks = 1
	case 104:
		decks = 2
	default:
		return Deal{}, fmt.Errorf("deal: %d cards: want 52 for one deck or 104 for two", len(cards))
	}
	var seen [52]int
	var first [52]int
	for i, c := range cards {
		if seen[c] == 0 {
			first[c] = i + 1
		}
		seen[c]++
		if seen[c] > decks {
			if decks == 1 {
				return Deal{}, fmt.Errorf("deal: duplicate card %s (cards %d and %d)", c, first[c], i+1)
			}
			return Deal{}, fmt.Errorf("deal: card %s appears more than twice (card %d is its third): a double deal has each card exactly twice", c, i+1)
		}
	}
	for c := range Card(52) {
		if seen[c] != decks {
			if decks == 1 {
				return Deal{}, fmt.Errorf("deal: missing card %s: a single deal has each of the 52 cards once", c)
			}
			return Deal{}, fmt.Errorf("deal: card %s appears %d times: a double deal has each card exactly twice", c, seen[c])
		}
	}
	return Deal{Decks: decks, Cards: cards}, nil
}

// Text prints the deal in the deal text format, the pyramid in its shape:
// ParseDeal reads it back to the same cards.
func (d Deal) Text() string {
	var b strings.Builder
	rows := d.rows()
	deck := pick(d.Decks == 2, "two decks", "one deck")
	if d.Numbered {
		fmt.Fprintf(&b, "# Pyramid deal %d (%s)\n", d.Number, deck)
	} else {
		fmt.Fprintf(&b, "# Pyramid deal (%s)\n", deck)
	}
	fmt.Fprintf(&b, "# pyramid: %d rows from the top\n", rows)
	pyr := d.Pyramid()
	for r := range rows {
		b.WriteString(strings.Repeat("  ", rows-1-r))
		for c := 0; c <= r; c++ {
			if c > 0 {
				b.WriteString("  ")
			}
			b.WriteString(pyr[r*(r+1)/2+c].String())
		}
		b.WriteByte('\n')
	}
	b.WriteString("# stock: first drawn first\n")
	for i, c := range d.Stock() {
		if i > 0 {
			b.WriteByte(pickByte(i%12 == 0, '\n', ' '))
		}
		b.WriteString(c.String())
	}
	b.WriteByte('\n')
	return b.String()
}

// Line is the deal's cards on one line, separated by spaces: the compact
// deal text kept in saved games.
func (d Deal) Line() string {
	var b strings.Builder
	b.Grow(len(d.Cards) * 3)
	for i, c := range d.Cards {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.String())
	}
	return b.String()
}

func pickByte(b bool, yes, no byte) byte {
	if b {
		return yes
	}
	return no
}
