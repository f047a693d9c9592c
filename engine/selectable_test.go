package engine

import "testing"

func TestSelectable(t *testing.T) {
	tests := []struct {
		name  string
		spec  string
		setup string
		place string
		want  bool
	}{
		{"free bottom card", "classic", "", "7.1", true},
		{"covered King", "classic", "", "6.1", false},
		{"covered by two", "classic,cover=overlap", "", "6.6", false},
		{"half covered, strict", "classic", "d 7.6+w", "6.6", false},
		{"half covered, pairs its coverer", "classic,cover=overlap", "d 7.6+w", "6.6", true},
		{"half covered, no pair", "classic,cover=overlap", "7.1", "6.1", false},
		{"removed card", "classic", "7.1", "7.1", false},
		{"waste top", "classic", "d", "w", true},
		{"empty waste", "classic", "", "w", false},
		{"closed stock", "classic", "", "s", false},
		{"open stock", "open-stock", "", "s", true},
		{"no such slot", "classic", "", "8.1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newTestGame(t, tt.spec, baseDeal, tt.setup)
			p, err := parsePlace(tt.place)
			if err != nil {
				t.Fatalf("place %q: %v", tt.place, err)
			}
			if got := g.Selectable(p); got != tt.want {
				t.Errorf("Selectable(%s) after %q = %v, want %v", tt.place, tt.setup, got, tt.want)
			}
		})
	}
}
