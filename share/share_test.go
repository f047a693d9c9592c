package share

import (
	"strings"
	"testing"
	"time"
)

func TestGameLine(t *testing.T) {
	for _, tt := range []struct {
		name string
		g    Game
		sep  string
		want string
	}{
		{"a daily cleared", Game{RulesTitle: "Daily deal", Daily: "2026-12-01", Cleared: true, Removed: 28, Cards: 28, Time: 192 * time.Second, Moves: 41},
			Sep, "Pyramid · daily 2026-12-01 · Daily deal · cleared · 3:12 · 41 moves"},
		{"a deal lost, assisted", Game{RulesTitle: "Classic", Deal: 42, Removed: 19, Cards: 28, Time: 301 * time.Second, Moves: 60, Assisted: true},
			Sep, "Pyramid · Classic · deal 42 · 19/28 · 5:01 · 60 moves · assisted"},
		{"a game that runs", Game{RulesTitle: "Classic", Deal: 7, Removed: 4, Cards: 28, InProgress: true, Time: time.Minute, Moves: 1},
			Sep, "Pyramid · Classic · deal 7 · 4/28 so far · 1:00 · 1 move"},
		{"a custom deal, ASCII", Game{RulesTitle: "Double", Custom: true, Removed: 3, Cards: 45, Time: 3725 * time.Second, Moves: 9},
			" - ", "Pyramid - Double - a custom deal - 3/45 - 1:02:05 - 9 moves"},
		{"no time", Game{RulesTitle: "Classic", Deal: 1, Cards: 28}, Sep, "Pyramid · Classic · deal 1 · 0/28 · 0:00 · 0 moves"},
		{"a title with an escape", Game{RulesTitle: "Clas\x1b[2Jsic", Deal: 1, Cards: 28, Time: time.Second}, Sep,
			`Pyramid · Clas\x1b[2Jsic · deal 1 · 0/28 · 0:01 · 0 moves`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.g.Line(tt.sep); got != tt.want {
				t.Errorf("Line = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRaceLine(t *testing.T) {
	for _, tt := range []struct {
		name string
		r    Race
		want string
	}{
		{"a win", Race{RulesTitle: "Classic", Place: 1, Racers: 3, Cleared: true, Removed: 28, Cards: 28, Time: 83 * time.Second, Moves: 40},
			"Pyramid race · Classic · 1st of 3 · cleared · 1:23.0 · 40 moves"},
		{"second, one move", Race{RulesTitle: "Classic", Place: 2, Racers: 3, Removed: 20, Cards: 28, Time: 75*time.Second + 40*time.Millisecond, Moves: 1},
			"Pyramid race · Classic · 2nd of 3 · 20/28 · 1:15.0 · 1 move"},
		{"unrated", Race{RulesTitle: "Double", Place: 12, Racers: 12, Removed: 0, Cards: 45, Moves: 0, Unrated: true},
			"Pyramid race · Double · 12th of 12 · 0/45 · 0 moves · unrated"},
		{"time up, no removal", Race{RulesTitle: "Classic", Place: 1, Racers: 3, Cards: 28, Moves: 1},
			"Pyramid race · Classic · 1st of 3 · 0/28 · 1 move"},
		{"an hour", Race{RulesTitle: "Classic", Place: 21, Racers: 22, Removed: 2, Cards: 28, Time: time.Hour + 2*time.Second + 350*time.Millisecond, Moves: 9},
			"Pyramid race · Classic · 21st of 22 · 2/28 · 1:00:02.4 · 9 moves"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.Line(Sep); got != tt.want {
				t.Errorf("Line = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRaceFit: a long rules title gives way, down to 12 cells; the rest
// of the line stays whole.
func TestRaceFit(t *testing.T) {
	r := Race{RulesTitle: "Custom: 3 waste piles, 3 passes, open stock, overlap", Place: 1, Racers: 8, Removed: 10, Cards: 28, Moves: 20}
	tail := " · 1st of 8 · 10/28 · 0:00.0 · 20 moves"
	for _, w := range []int{200, 76, 60, 30} {
		got := r.Fit(Sep, w)
		if !strings.HasSuffix(got, tail) || !strings.HasPrefix(got, "Pyramid race · Custom") {
			t.Errorf("Fit(%d) = %q: lost its facts", w, got)
		}
		if w >= 70 && width(got) > w {
			t.Errorf("Fit(%d) = %q: %d cells", w, got, width(got))
		}
	}
	if got := r.Fit(Sep, 200); got != r.Line(Sep) {
		t.Errorf("Fit(200) = %q, want the whole line", got)
	}
	if got := r.Fit(Sep, 30); width(strings.TrimSuffix(strings.TrimPrefix(got, "Pyramid race · "), tail)) != 12 {
		t.Errorf("Fit(30) = %q: the title should be cut to 12 cells", got)
	}
}

func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th",
		21: "21st", 22: "22nd", 101: "101st", 111: "111th"} {
		if got := Ordinal(n); got != want {
			t.Errorf("Ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}
