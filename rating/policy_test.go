package rating

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// decided is a Decision in short: "rated 1 win podium", "unrated
// assisted", "aborted never-moved".
func decided(d Decision) string {
	if d.Standing != Rated {
		return d.Standing.String() + " " + string(d.Reason)
	}
	s := fmt.Sprintf("rated %d", d.Rank)
	if d.Win {
		s += " win"
	}
	if d.Podium {
		s += " podium"
	}
	return s
}

// racer is an entrant who played: placed, moved, removed cards, stayed.
func racer(id string, place, removed int) Entrant {
	return Entrant{ID: id, Place: place, Moves: removed + 5, Removed: removed, Cleared: removed == 28}
}

func TestDecide(t *testing.T) {
	left := func(e Entrant) Entrant { e.Left = true; return e }
	idle := func(e Entrant) Entrant { e.Moves, e.Removed = 0, 0; return e }
	assisted := func(e Entrant) Entrant { e.Assisted = true; return e }
	tests := []struct {
		name    string
		unrated Reason
		es      []Entrant
		limited [][2]string
		want    []string
	}{
		{
			name: "two racers",
			es:   []Entrant{racer("ann", 1, 28), racer("bob", 2, 10)},
			want: []string{"rated 1 win podium", "rated 2"},
		},
		{
			name: "three racers: the last of three is no podium",
			es:   []Entrant{racer("ann", 1, 28), racer("bob", 2, 10), racer("cat", 3, 4)},
			want: []string{"rated 1 win podium", "rated 2 podium", "rated 3"},
		},
		{
			name: "four racers: three on the podium",
			es:   []Entrant{racer("ann", 1, 28), racer("bob", 2, 10), racer("cat", 3, 4), racer("dan", 4, 2)},
			want: []string{"rated 1 win podium", "rated 2 podium", "rated 3 podium", "rated 4"},
		},
		{
			name: "one who left is rated, on no podium",
			es: []Entrant{racer("ann", 1, 28), racer("bob", 2, 10), racer("cat", 3, 8),
				left(racer("dan", 4, 6)), racer("eve", 5, 1)},
			want: []string{"rated 1 win podium", "rated 2 podium", "rated 3 podium", "rated 4", "rated 5"},
		},
		{
			name: "both left having removed cards: the first wins",
			es:   []Entrant{left(racer("ann", 1, 4)), left(racer("bob", 2, 2))},
			want: []string{"rated 1 win podium", "rated 2"},
		},
		{
			name: "last of three after leaving: no podium",
			es:   []Entrant{racer("ann", 1, 28), racer("bob", 2, 10), left(racer("cat", 3, 4))},
			want: []string{"rated 1 win podium", "rated 2 podium", "rated 3"},
		},
		{
			name: "a tie for first: two wins",
			es:   []Entrant{racer("ann", 1, 12), racer("bob", 1, 12), racer("cat", 3, 4)},
			want: []string{"rated 1 win podium", "rated 1 win podium", "rated 3"},
		},
		{
			name: "everybody tied: wins, on the podium",
			es:   []Entrant{racer("ann", 1, 12), racer("bob", 1, 12)},
			want: []string{"rated 1 win podium", "rated 1 win podium"},
		},
		{
			name: "guests are no entrants: the places close up",
			es:   []Entrant{racer("ann", 2, 20), racer("bob", 4, 10)},
			want: []string{"rated 1 win podium", "rated 2"},
		},
		{
			name: "the second-key farm: the other never moved",
			es:   []Entrant{left(racer("ann", 1, 2)), left(idle(racer("dan", 2, 0)))},
			want: []string{"aborted few-movers", "aborted never-moved"},
		},
		{
			name: "a racer who never moved is aborted, the others race",
			es:   []Entrant{racer("ann", 1, 28), racer("bob", 2, 10), idle(racer("cat", 3, 0))},
			want: []string{"rated 1 win podium", "rated 2", "aborted never-moved"},
		},
		{
			name: "left with nothing: aborted, no rated opponent for the other",
			es:   []Entrant{racer("ann", 1, 6), left(racer("dan", 2, 0))},
			want: []string{"unrated no-opponent", "aborted left-empty"},
		},
		{
			name: "stuck with nothing is a placing like any",
			es:   []Entrant{racer("ann", 1, 6), racer("dan", 2, 0)},
			want: []string{"rated 1 win podium", "rated 2"},
		},
		{
			name:    "a chosen deal",
			unrated: ReasonChosenDeal,
			es:      []Entrant{racer("ann", 1, 28), racer("bob", 2, 10), idle(racer("cat", 3, 0))},
			want:    []string{"unrated chosen-deal", "unrated chosen-deal", "aborted never-moved"},
		},
		{
			name: "an assisted racer is unrated, the others rated as if they were not there",
			es:   []Entrant{assisted(racer("ann", 1, 28)), racer("bob", 2, 10), racer("cat", 3, 4)},
			want: []string{"unrated assisted", "rated 1 win podium", "rated 2"},
		},
		{
			name: "an assisted racer against one other: no opponent",
			es:   []Entrant{assisted(racer("ann", 1, 28)), racer("bob", 2, 10)},
			want: []string{"unrated assisted", "unrated no-opponent"},
		},
		{
			name:    "a pair at its limit: the lower placed is unrated",
			es:      []Entrant{racer("ann", 1, 28), racer("dan", 2, 10), racer("bob", 3, 4)},
			limited: [][2]string{{"ann", "dan"}},
			want:    []string{"rated 1 win podium", "unrated pair-limit", "rated 2"},
		},
		{
			name:    "a pair at its limit, alone: nobody rated",
			es:      []Entrant{racer("ann", 1, 28), racer("dan", 2, 10)},
			limited: [][2]string{{"dan", "ann"}},
			want:    []string{"unrated no-opponent", "unrated pair-limit"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var limited func(a, b string) bool
			if tt.limited != nil {
				limited = func(a, b string) bool {
					for _, p := range tt.limited {
						if p == [2]string{a, b} || p == [2]string{b, a} {
							return true
						}
					}
					return false
				}
			}
			got := Decide(tt.unrated, tt.es, limited)
			for i := range tt.es {
				if g := decided(got[i]); g != tt.want[i] {
					t.Errorf("%s: got %q, want %q", tt.es[i].ID, g, tt.want[i])
				}
			}
		})
	}
}

func TestProvisional(t *testing.T) {
	tests := []struct {
		races, opponents int
		want             bool
	}{
		{0, 0, true}, {9, 9, true}, {10, 4, true}, {30, 4, true}, {10, 5, false}, {11, 7, false},
	}
	for _, tt := range tests {
		if got := Provisional(tt.races, tt.opponents); got != tt.want {
			t.Errorf("Provisional(%d, %d) = %v, want %v", tt.races, tt.opponents, got, tt.want)
		}
	}
}

// TestDisplay: a new player shows 1500, and 400 of the scale between two
// settled players is ten wins in eleven for the better one.
func TestDisplay(t *testing.T) {
	m := Races()
	if got := m.Display(m.New()); got != DisplayBase {
		t.Errorf("a new player's display rating %v, want %d", got, DisplayBase)
	}
	// Two settled players (σ tiny) 400 apart on the display scale.
	mu := m.Beta * math.Sqrt2 * math.Ln10
	a, b := Rating{Mu: m.Mu + mu, Sigma: 1e-6}, Rating{Mu: m.Mu, Sigma: 1e-6}
	if d := m.Display(a) - m.Display(b); math.Abs(d-400) > 1e-9 {
		t.Fatalf("display difference %v, want 400", d)
	}
	c := math.Sqrt(a.Sigma*a.Sigma + b.Sigma*b.Sigma + 2*m.Beta*m.Beta)
	p := math.Exp(a.Mu/c) / (math.Exp(a.Mu/c) + math.Exp(b.Mu/c))
	if math.Abs(p-10.0/11) > 1e-6 {
		t.Errorf("the better player's odds to win at 400 apart: %v, want 10/11", p)
	}
}

func TestReasonWords(t *testing.T) {
	for r, w := range reasonWords {
		if r.Words() != w || w == "" || strings.HasPrefix(w, "unrated") {
			t.Errorf("%q says %q", r, r.Words())
		}
	}
	if got := ReasonAssisted.Words(); got != "moves faster than play" {
		t.Errorf("assisted says %q", got)
	}
	if got := Reason("newer").Words(); got != "newer" {
		t.Errorf("an unknown reason says %q", got)
	}
	for _, s := range []Standing{Aborted, Unrated, Rated} {
		if got, ok := ParseStanding(s.String()); !ok || got != s {
			t.Errorf("ParseStanding(%q) = %v, %v", s, got, ok)
		}
	}
}
