package arena

import (
	"errors"
	"testing"
	"time"
)

func TestEventPhasesAndNext(t *testing.T) {
	start := time.Date(2026, 12, 11, 19, 0, 0, 0, time.UTC)
	e := Event{ID: 7, Name: "Friday arena", RulesID: "classic", Start: start, Duration: 45 * time.Minute, Every: Weekly}
	for _, tt := range []struct {
		at   time.Time
		want Phase
	}{
		{start.Add(-time.Second), Upcoming}, {start, Running}, {start.Add(44 * time.Minute), Running}, {start.Add(45 * time.Minute), Finished},
	} {
		if got := e.PhaseAt(tt.at); got != tt.want {
			t.Errorf("phase at %v: %s, want %s", tt.at, got, tt.want)
		}
	}
	n, ok := e.Next()
	if !ok || !n.Start.Equal(start.AddDate(0, 0, 7)) || n.Series != 7 || n.ID != 0 || n.Name != e.Name {
		t.Errorf("next %+v %v", n, ok)
	}
	n.ID = 9
	if nn, _ := n.Next(); nn.Series != 7 {
		t.Errorf("series of the third: %d", nn.Series)
	}
	if _, ok := (Event{Every: Once}).Next(); ok {
		t.Error("a one-off has a next")
	}
	if got := e.TimeLimit(start.Add(43 * time.Minute)); got != 2*time.Minute {
		t.Errorf("time limit near the end %v", got)
	}
	if got := e.TimeLimit(start); got != DefaultGameTime {
		t.Errorf("time limit %v", got)
	}
	if got := e.TimeLimit(e.End()); got != 0 {
		t.Errorf("time limit at the end %v", got)
	}
}

func TestEventCheck(t *testing.T) {
	now := time.Date(2026, 12, 5, 20, 0, 0, 0, time.UTC)
	ok := Event{Name: "Friday arena", RulesID: "classic", Start: now.Add(time.Hour), Duration: 45 * time.Minute}
	if err := ok.Check(now); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		change func(*Event)
		want   error
	}{
		{"no name", func(e *Event) { e.Name = "  " }, ErrName},
		{"long name", func(e *Event) { e.Name = string(make([]rune, MaxNameLen+1)) }, ErrName},
		{"no rules", func(e *Event) { e.RulesID = "" }, ErrRules},
		{"too short", func(e *Event) { e.Duration = 4 * time.Minute }, ErrDuration},
		{"too long", func(e *Event) { e.Duration = 3*time.Hour + time.Minute }, ErrDuration},
		{"game too short", func(e *Event) { e.GameTime = 30 * time.Second }, ErrGameTime},
		{"in the past", func(e *Event) { e.Start = now.Add(-time.Hour) }, ErrStart},
	} {
		e := ok
		tt.change(&e)
		if err := e.Check(now); !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
	}
	for in, want := range map[string]Recurrence{"": Once, "week": Weekly, "Daily": Daily, "weekly": Weekly} {
		if got, err := ParseRecurrence(in); err != nil || got != want {
			t.Errorf("ParseRecurrence(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseRecurrence("monthly"); err == nil {
		t.Error("monthly accepted")
	}
}
