package tui

import (
	"strconv"
	"strings"
	"testing"

	"pyramid/engine"
	"pyramid/lobby"
)

// TestPresenceFinished: a player at the table of a game that is over,
// won or lost, is playing it but finished (who, the Lobby, the daily
// board's "N playing now" leave them out); an undo after a loss makes
// them playing again.
func TestPresenceFinished(t *testing.T) {
	for _, tt := range []struct {
		rules string
		deal  uint64
		want  engine.Status
	}{
		{"classic", 3, engine.Won},
		{"one-pass", 1, engine.Lost},
	} {
		t.Run(tt.rules, func(t *testing.T) {
			moves, status := heuristicLine(t, tt.rules, tt.deal)
			if status != tt.want {
				t.Fatalf("the heuristic line of %s %d is %s, want %s", tt.rules, tt.deal, status, tt.want)
			}
			fl := newFakeLobby()
			h := newHarness(t, Deps{Player: testPlayer, Lobby: fl, Args: []string{tt.rules, strconv.FormatUint(tt.deal, 10)}, Unicode: true})
			h.keys(":")
			h.typeText(strings.Join(moves[:len(moves)-1], " "))
			h.keys("enter")
			if d := fl.last(); d.What != lobby.Playing || d.Finished {
				t.Fatalf("one move before the end the lobby is told %+v, want playing", d)
			}
			h.keys(":")
			h.typeText(moves[len(moves)-1])
			h.keys("enter")
			if h.game().Status() != tt.want {
				t.Fatalf("status %s, want %s", h.game().Status(), tt.want)
			}
			if d := fl.last(); d.What != lobby.Playing || !d.Finished || d.Rules != tt.rules {
				t.Fatalf("at the end the lobby is told %+v, want playing %s, finished", d, tt.rules)
			}
			if tt.want == engine.Lost {
				h.keys("u")
				if d := fl.last(); d.Finished {
					t.Errorf("after an undo the lobby is told %+v, want not finished", d)
				}
			}
		})
	}
}

// TestDescribeFinished: the Lobby's line of a finished player.
func TestDescribeFinished(t *testing.T) {
	gl := glyphsFor(true)
	d := lobby.Doing{What: lobby.Playing, Rules: "classic", Deal: 3, Removed: 28, Finished: true}
	if got, want := describeDoing(d, gl), "finished Classic · deal 3 · 28/28 removed"; got != want {
		t.Errorf("describeDoing = %q, want %q", got, want)
	}
}
