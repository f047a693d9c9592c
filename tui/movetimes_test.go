package tui

import (
	"reflect"
	"slices"
	"testing"
	"time"
)

// TestSavesMoveTimes: every save carries when each move was made, by the
// played-time clock; undo drops the times of the moves it takes back, and
// a resumed game goes on from the stored times.
func TestSavesMoveTimes(t *testing.T) {
	store := &fakeGames{}
	h := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Player: testPlayer, Games: store})
	h.clock.advance(2 * time.Second)
	h.keys("d")
	h.clock.advance(1500 * time.Millisecond)
	h.keys("d")
	h.clock.advance(time.Second)
	h.keys("d")
	last := store.saves[len(store.saves)-1]
	want := []time.Duration{2 * time.Second, 3500 * time.Millisecond, 4500 * time.Millisecond}
	if !reflect.DeepEqual(last.MoveTimes, want) {
		t.Fatalf("saved move times %v, want %v", last.MoveTimes, want)
	}
	h.clock.advance(time.Second)
	h.keys("u")
	last = store.saves[len(store.saves)-1]
	if !reflect.DeepEqual(last.MoveTimes, want[:2]) || len(last.Record.Moves) != 2 {
		t.Fatalf("after undo: moves %v times %v, want 2 moves with times %v", last.Record.Moves, last.MoveTimes, want[:2])
	}
	h.clock.advance(time.Second)
	h.keys("r") // redo times the move anew
	last = store.saves[len(store.saves)-1]
	if got := last.MoveTimes; len(got) != 3 || got[2] != 6500*time.Millisecond {
		t.Fatalf("after redo: times %v, want the third at 6.5s", got)
	}

	// A game stored without times (before they were kept) stays without
	// them for its old moves, and so for the moves after them: a time is
	// only worth keeping after known ones.
	old := SavedGame{ID: "g9", Record: last.Record, Status: StatusPlaying, Played: time.Minute, MoveTimes: last.MoveTimes[:1]}
	old.Record.Redo = nil
	resumed := &fakeGames{games: map[string]SavedGame{"g9": old}}
	r := newHarness(t, Deps{Args: []string{"classic", "42"}, Unicode: true, Player: testPlayer, Games: resumed})
	if tb := r.m.table(); tb == nil || !slices.Equal(tb.times, []time.Duration{old.MoveTimes[0], timeUnknown, timeUnknown}) {
		t.Fatalf("resumed times %v, want the stored one then unknown", r.m.table().times)
	}
	r.keys("d")
	if got := resumed.saves[len(resumed.saves)-1].MoveTimes; !reflect.DeepEqual(got, old.MoveTimes) {
		t.Errorf("saved times after a resumed game without them %v, want %v", got, old.MoveTimes)
	}
}

func TestSentTimes(t *testing.T) {
	for _, tt := range []struct {
		name  string
		times []time.Duration
		want  []time.Duration
	}{
		{"none", nil, []time.Duration{}},
		{"known", []time.Duration{1, 2}, []time.Duration{1, 2}},
		{"pending get the reading", []time.Duration{1, timePending, timePending}, []time.Duration{1, 9, 9}},
		{"unknown ends the list", []time.Duration{1, timeUnknown, 3}, []time.Duration{1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := sentTimes(tt.times, 9); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("sentTimes(%v) = %v, want %v", tt.times, got, tt.want)
			}
		})
	}
}
