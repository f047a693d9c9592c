package main

import (
	"slices"
	"strconv"
	"strings"
)

// An arena race's deal is hidden (the races are rated), so an arena
// player cannot follow its game with package engine as a racer of the
// race mode does: it reads the board from its copy of the screen. A
// card is a box seven cells wide whose first line holds its label at
// the left ("│10♥  │", the cursor's ">" and "<" in place of the
// sides); a card nothing covers shows its label again at the right on
// the line below ("│  10♥│"), where a covered card shows the top of
// the cards over it. The pyramid's rows are two lines apart, each card
// four cells left of the one it covers.

// boardGeom is where the pyramid lies on the screen: the lines of its
// rows' labels, top first, and the column of its apex. It is learnt
// from a full pyramid (the race's start) and kept: the layout depends
// on the window's size only.
type boardGeom struct {
	rows []int // the screen row of each pyramid row's labels
	apex int   // the apex card's first column
}

// boardCard is a card seen on the screen.
type boardCard struct {
	row, col int // its place on the screen
	rank     int // 1 (ace) to 13 (king)
}

// pyramidCards is the number of cards of a full classic pyramid.
const pyramidCards = 28

// suits are the suits' glyphs as the board draws them.
const suits = "♠♥♦♣"

// labelAt reads the label of a card whose box starts at column x of
// line: its rank, and whether there is one.
func labelAt(line []rune, x int) (rank int, ok bool) {
	if x+6 >= len(line) || (line[x] != '│' && line[x] != '>') || (line[x+6] != '│' && line[x+6] != '<') {
		return 0, false
	}
	i := x + 1
	switch r := line[i]; {
	case r == '1' && line[i+1] == '0':
		rank, i = 10, i+2
	case r >= '2' && r <= '9':
		rank, i = int(r-'0'), i+1
	case r == 'A':
		rank, i = 1, i+1
	case r == 'J':
		rank, i = 11, i+1
	case r == 'Q':
		rank, i = 12, i+1
	case r == 'K':
		rank, i = 13, i+1
	default:
		return 0, false
	}
	if !strings.ContainsRune(suits, line[i]) {
		return 0, false
	}
	for i++; i < x+6; i++ {
		if line[i] != ' ' {
			return 0, false
		}
	}
	return rank, true
}

// uncovered reports whether the card whose label starts at column x of
// line shows its label again at the right of the next line: nothing
// covers it.
func uncovered(next []rune, x int) bool {
	return x+6 < len(next) && next[x] == '│' && next[x+6] == '│' && next[x+1] == ' ' &&
		strings.ContainsRune(suits, next[x+5])
}

// boardState is what a racer needs of its board to pick a move.
type boardState struct {
	free      []boardCard // the pyramid's cards nothing covers
	all       int         // the pyramid's cards on the screen
	waste     int         // the waste's top card's rank, 0 when it is empty
	stock     int         // the cards left in the stock
	pass, max int         // the pass through the stock ("pass 1/3"), 0 when not shown
}

// readBoard reads the board from the screen: the pyramid's cards above
// the stock's line, the waste's top and the stock's count on it, the
// pass from the header.
func readBoard(sc *screen) (boardState, []boardCard) {
	var b boardState
	var cards []boardCard
	stockRow := -1
	for r := range sc.cells {
		if strings.Contains(string(sc.cells[r]), "stock") {
			stockRow = r
			break
		}
	}
	if stockRow < 0 {
		return b, nil
	}
	for r := 1; r < stockRow; r++ {
		line := sc.cells[r]
		for x := 0; x+6 < len(line); x++ {
			rank, ok := labelAt(line, x)
			if !ok {
				continue
			}
			c := boardCard{row: r, col: x, rank: rank}
			cards = append(cards, c)
			if r+1 < len(sc.cells) && uncovered(sc.cells[r+1], x) {
				b.free = append(b.free, c)
			}
			x += 6
		}
	}
	b.all = len(cards)
	line := string(sc.cells[stockRow])
	if i := strings.Index(line, "waste"); i >= 0 {
		runes := []rune(line)
		from := len([]rune(line[:i]))
		for x := from; x+6 < len(runes); x++ {
			if rank, ok := labelAt(runes, x); ok {
				b.waste = rank
				break
			}
		}
		b.stock = lastNumber(line[:i])
	}
	b.pass, b.max = passOf(string(sc.cells[0]))
	return b, cards
}

// lastNumber is the last run of digits in s, 0 when none.
func lastNumber(s string) int {
	end := len(s)
	for end > 0 && !isDigit(s[end-1]) {
		end--
	}
	start := end
	for start > 0 && isDigit(s[start-1]) {
		start--
	}
	n, _ := strconv.Atoi(s[start:end])
	return n
}

// passOf reads "pass P/M" from the header, 0, 0 when it is not there.
func passOf(header string) (pass, most int) {
	i := strings.Index(header, "pass ")
	if i < 0 {
		return 0, 0
	}
	p, m, ok := strings.Cut(header[i+len("pass "):], "/")
	if !ok {
		return 0, 0
	}
	j := 0
	for j < len(m) && isDigit(m[j]) {
		j++
	}
	pass, _ = strconv.Atoi(p)
	most, _ = strconv.Atoi(m[:j])
	return pass, most
}

// learn sets the geometry from a full pyramid's cards: the lines of its
// seven rows and its apex. It reports whether it could.
func (g *boardGeom) learn(cards []boardCard) bool {
	if len(cards) != pyramidCards {
		return false
	}
	var rows []int
	for _, c := range cards {
		if !slices.Contains(rows, c.row) {
			rows = append(rows, c.row)
		}
	}
	slices.Sort(rows)
	if len(rows) != 7 {
		return false
	}
	for _, c := range cards {
		if c.row == rows[0] {
			g.rows, g.apex = rows, c.col
			return true
		}
	}
	return false
}

// slot is the card's place in the move notation, "R.C", or "" when the
// geometry does not place it.
func (g *boardGeom) slot(c boardCard) string {
	r := slices.Index(g.rows, c.row) + 1
	if r == 0 {
		return ""
	}
	off := c.col - (g.apex - (r-1)*4)
	if off < 0 || off%8 != 0 || off/8 >= r {
		return ""
	}
	return strconv.Itoa(r) + "." + strconv.Itoa(off/8+1)
}

// pickMove is a racer's move on the board as its screen shows it, in
// the notation typed at the ":" prompt: a king, a pair of the
// pyramid's free cards, a free card with the waste's top, else a draw,
// else a redeal; false when none is known.
func pickMove(b boardState, g *boardGeom) (string, bool) {
	if len(g.rows) > 0 {
		free := make([]string, len(b.free))
		for i, c := range b.free {
			free[i] = g.slot(c)
		}
		for i, c := range b.free {
			if c.rank == 13 && free[i] != "" {
				return free[i], true
			}
		}
		if b.waste == 13 {
			return "w", true
		}
		for i, c := range b.free {
			for j := i + 1; j < len(b.free); j++ {
				if c.rank+b.free[j].rank == 13 && free[i] != "" && free[j] != "" {
					return free[i] + "+" + free[j], true
				}
			}
		}
		for i, c := range b.free {
			if b.waste > 0 && c.rank+b.waste == 13 && free[i] != "" {
				return free[i] + "+w", true
			}
		}
	}
	switch {
	case b.stock > 0:
		return "d", true
	case b.pass > 0 && b.pass < b.max:
		return "r", true
	}
	return "", false
}
