package lobby

import (
	"context"
	"fmt"
	"math/bits"
	"strings"
	"testing"
	"time"

	"pyramid/engine"
)

func TestRank(t *testing.T) {
	s := time.Second
	r := func(id string, st RacerState, removed int, last, finish time.Duration) Racer {
		return Racer{ID: id, Progress: Progress{State: st, Removed: removed}, LastRemoval: last, Finish: finish}
	}
	tests := []struct {
		name   string
		racers []Racer
		want   string // "place:id" in order
	}{
		{"cleared by finish time", []Racer{
			r("a", RacerCleared, 28, 90*s, 90*s), r("b", RacerCleared, 28, 60*s, 60*s), r("c", RacerPlaying, 27, 10*s, 0),
		}, "1:b 2:a 3:c"},
		{"not cleared by removed then last removal", []Racer{
			r("a", RacerStuck, 20, 50*s, 0), r("b", RacerPlaying, 22, 80*s, 0), r("c", RacerStuck, 20, 40*s, 0),
		}, "1:b 2:c 3:a"},
		{"tie on removed and time", []Racer{
			r("a", RacerStuck, 20, 50*s, 0), r("b", RacerPlaying, 20, 50*s, 0), r("c", RacerStuck, 10, 5*s, 0), r("d", RacerPlaying, 25, 9*s, 0),
		}, "1:d 2:a 2:b 4:c"},
		{"tie on finish time", []Racer{
			r("a", RacerCleared, 28, 70*s, 70*s), r("b", RacerCleared, 28, 70*s, 70*s), r("c", RacerStuck, 3, 1*s, 0),
		}, "1:a 1:b 3:c"},
		{"leavers after those who stayed", []Racer{
			r("a", RacerLeft, 27, 30*s, 0), r("b", RacerStuck, 2, 100*s, 0), r("c", RacerLeft, 27, 20*s, 0), r("d", RacerCleared, 28, 200*s, 200*s),
		}, "1:d 2:b 3:c 4:a"},
		{"nobody removed anything", []Racer{
			r("a", RacerPlaying, 0, 0, 0), r("b", RacerStuck, 0, 0, 0), r("c", RacerLeft, 0, 0, 0),
		}, "1:a 1:b 3:c"},
		{"all left, tied", []Racer{r("a", RacerLeft, 4, 8*s, 0), r("b", RacerLeft, 4, 8*s, 0)}, "1:a 1:b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := rank(tt.racers)
			var got []string
			for _, p := range ps {
				got = append(got, fmt.Sprintf("%d:%s", p.Place, p.ID))
			}
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("got %s, want %s", g, tt.want)
			}
			for _, p := range ps {
				for _, r := range tt.racers {
					if r.ID == p.ID && r.Place != p.Place {
						t.Errorf("racer %s: Place %d, placing %d", r.ID, r.Place, p.Place)
					}
				}
			}
		})
	}
}

func TestRacerStateString(t *testing.T) {
	for s, want := range map[RacerState]string{RacerWaiting: "waiting", RacerPlaying: "playing", RacerStuck: "stuck",
		RacerCleared: "cleared", RacerLeft: "left", RacerState(99): "unknown"} {
		if got := s.String(); got != want {
			t.Errorf("%d: got %q, want %q", int(s), got, want)
		}
	}
}

func TestProgressOf(t *testing.T) {
	// A deal the solver proves winnable, with its winning line.
	n, sol, err := engine.NextWinnable(context.Background(), engine.Classic(), 1, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	g, err := engine.NewNumbered(engine.Classic(), n)
	if err != nil {
		t.Fatal(err)
	}
	p := ProgressOf(g, 7)
	if p != (Progress{Pass: g.Pass(), State: RacerPlaying, GameID: 7}) {
		t.Errorf("new game: %+v", p)
	}
	for _, m := range sol.Moves {
		if err := g.Apply(m); err != nil {
			t.Fatal(err)
		}
		p = ProgressOf(g, 7)
		if bits.OnesCount64(p.Board) != p.Removed || p.Moves != g.MovesMade() {
			t.Fatalf("after %v: %+v", m, p)
		}
	}
	if p.State != RacerCleared || p.Removed != 28 || p.Board != 1<<28-1 {
		t.Errorf("won game: %+v", p)
	}
}
