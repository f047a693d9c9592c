package tui

import (
	"fmt"
	"strings"
	"testing"

	"pyramid/engine"
)

// storeWith returns a store holding one unfinished game of each record.
func storeWith(recs ...SavedGame) *fakeGames {
	f := &fakeGames{games: map[string]SavedGame{}}
	for _, sg := range recs {
		f.nextID++
		sg.ID = fmt.Sprintf("g%d", f.nextID)
		sg.Status = StatusPlaying
		f.games[sg.ID] = sg
	}
	return f
}

// continues lists the notes of the menu's Continue items.
func (h *harness) continues() []string {
	h.t.Helper()
	var out []string
	mn := h.m.menu()
	mn.show(true)
	for _, it := range mn.items {
		if it.kind == itemContinue {
			out = append(out, mn.conts[it.index])
		}
	}
	return out
}

func TestStartingARuleSetInProgressAsks(t *testing.T) {
	classic42 := SavedGame{Record: engine.Record{Rules: "classic", Deal: 42, Moves: []string{"d"}}, Chosen: true}
	tests := []struct {
		name string
		args []string
		// menu picks the Classic item when there is no deep link.
		menu bool
	}{
		{name: "menu", menu: true},
		{name: "deep link without a number", args: []string{"classic"}},
		{name: "deep link to another deal", args: []string{"classic", "7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, yes := range []bool{false, true} {
				store := storeWith(classic42)
				h := newHarness(t, Deps{Args: tt.args, Unicode: true, Player: testPlayer, Games: store})
				if tt.menu {
					h.wantScreen("Continue", "Classic · deal 42 · 1 move")
					h.menuTo(itemPreset) // Classic is the first rule set
					h.keys("enter")
				}
				h.wantScreen("You have Classic deal 42 in progress (1 move): abandon it?", "It counts as a game lost.", "y yes, abandon it")
				if !yes {
					// Keeping the game plays it, from the menu or a
					// deep link alike.
					h.keys("n")
					h.wantScreen("Classic · deal 42", "1 move")
					if !h.m.playing || len(store.saves) != 0 || store.games["g1"].Status != StatusPlaying {
						t.Errorf("no: the kept game is not on the table (%v), or saved (%d saves), or %q", h.m.playing, len(store.saves), store.games["g1"].Status)
					}
					continue
				}
				h.keys("y")
				h.keys("d")
				if s := store.games["g1"].Status; s != StatusAbandoned {
					t.Errorf("yes: the old game is %q after the new one's first save, want abandoned", s)
				}
				if n := len(store.saves); n != 1 || store.saves[0].Replace != "g1" {
					t.Errorf("yes: saves %+v, want one naming g1 as replaced", store.saves)
				}
				h.wantNotScreen("not saved")
			}
		})
	}
}

func TestDeepLinkToTheStoredDealContinuesIt(t *testing.T) {
	store := storeWith(SavedGame{Record: engine.Record{Rules: "classic", Deal: 42, Moves: []string{"d"}}, Chosen: true})
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Player: testPlayer, Games: store})
	h.wantScreen("welcome back", "1 move")
}

func TestDailyQuestionSaysItIsTheResult(t *testing.T) {
	store := storeWith(SavedGame{Record: engine.Record{Rules: "daily", Deal: 9, Moves: []string{"d"}}, Daily: "2026-02-28"})
	h := newHarness(t, Deps{Args: []string{"daily"}, Unicode: true, Player: testPlayer, Games: store})
	h.wantScreen("You have Daily 2026-02-28 in progress (1 move): abandon it?", "This will be your result on the board of 2026-02-28.")
	// Today's daily in progress, abandoned for a new deal on the table.
	h = newHarness(t, Deps{Args: []string{"daily"}, Unicode: true, Player: testPlayer, Games: &fakeGames{}})
	h.keys("d", "n")
	h.wantScreen("You have Daily 2026-03-01 in progress (1 move): abandon it?", "This will be your result on today's board.")
}

func TestEveryGameInProgressHasAContinue(t *testing.T) {
	store := storeWith(
		SavedGame{Record: engine.Record{Rules: "classic", Deal: 42, Moves: []string{"d"}}, Chosen: true},
		SavedGame{Record: engine.Record{Rules: "relaxed", Deal: 5, Moves: []string{"d", "d"}}, Chosen: true},
	)
	h := newHarness(t, Deps{Unicode: true, Player: testPlayer, Games: store})
	got := h.continues()
	if len(got) != 2 {
		t.Fatalf("Continues %q, want one per game in progress", got)
	}
	// Each is reachable: the second one opens the Relaxed game.
	want := "Relaxed · deal 5 · 2 moves"
	if got[0] == want {
		h.keys("enter")
	} else {
		h.keys("down", "enter")
	}
	h.wantScreen("Relaxed · deal 5", "welcome back")
	// Another rule set from the table leaves the game in progress.
	h.keys("q")
	if c := h.m.menu().items[h.m.menu().cur]; c.kind != itemContinue || c.index != 0 {
		t.Errorf("back from the table the cursor is on %q, want the first Continue", c.label)
	}
	for h.m.menu().items[h.m.menu().cur].kind != itemPreset || h.m.menu().items[h.m.menu().cur].preset != "one-pass" {
		h.keys("down")
	}
	h.keys("enter") // no question: One pass has no game in progress
	h.wantScreen("One pass · hidden deal")
	h.keys("d", "q")
	got = h.continues()
	if len(got) != 3 || !strings.HasPrefix(got[0], "One pass") {
		t.Errorf("Continues %q, want the table's One pass, then Relaxed and Classic", got)
	}
	if s := store.games["g2"].Status; s != StatusPlaying {
		t.Errorf("the Relaxed game left for One pass is %q, want playing", s)
	}
	// Its rule set asks before abandoning it.
	for h.m.menu().items[h.m.menu().cur].kind != itemPreset || h.m.menu().items[h.m.menu().cur].preset != "relaxed" {
		h.keys("down")
	}
	h.keys("enter")
	h.wantScreen("You have Relaxed deal 5 in progress (2 moves): abandon it?")
	// Keeping it plays it.
	h.keys("n")
	h.wantScreen("Relaxed · deal 5", "2 moves")
	if s := store.games["g2"].Status; s != StatusPlaying {
		t.Errorf("the kept Relaxed game is %q, want playing", s)
	}
}

func TestAnotherSessionsGameAsksOnSave(t *testing.T) {
	for _, yes := range []bool{false, true} {
		store := &fakeGames{}
		h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Player: testPlayer, Games: store})
		// Meanwhile another session of the account started a Classic game.
		other := storeWith(SavedGame{Record: engine.Record{Rules: "classic", Deal: 3, Moves: []string{"d", "d"}}, Chosen: true})
		store.games, store.nextID = other.games, other.nextID
		h.keys("d")
		h.wantScreen("You have Classic deal 3 in progress in another session (2 moves): abandon", "it?")
		if !yes {
			h.keys("n")
			h.wantScreen("Pyramid Solitaire", "kept your game in progress", "Classic · deal 3 · 2 moves")
			if h.m.playing || store.games["g1"].Status != StatusPlaying {
				t.Errorf("no: playing %v, other game %q", h.m.playing, store.games["g1"].Status)
			}
			continue
		}
		h.keys("y")
		h.wantScreen("Classic · deal 42", "1 move")
		if s := store.games["g1"].Status; s != StatusAbandoned {
			t.Errorf("yes: the other session's game is %q, want abandoned", s)
		}
		if sg, ok := store.games["g2"]; !ok || len(sg.Record.Moves) != 1 || sg.Replace != "g1" {
			t.Errorf("yes: the new game is stored as %+v, want its move, replacing g1", sg)
		}
	}
}

func TestGameTakenReason(t *testing.T) {
	store := storeWith(SavedGame{Record: engine.Record{Rules: "classic", Deal: 42, Moves: []string{"d"}}, Chosen: true})
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Player: testPlayer, Games: store})
	h.send(inboxMsg{GameTakenMsg{ID: "g1", Reason: "your game was abandoned from another session"}})
	h.wantScreen("your game was abandoned from another session")
	h.wantNotScreen("continues in another session", "Continue")
}
