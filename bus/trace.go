package bus

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// traceCap bounds the samples a Trace keeps per stage (the first ones).
const traceCap = 1 << 20

// Trace collects durations by stage along an event's way (publish,
// notification, read, fold), to find where the time goes under load. It
// is a debugging aid, off unless one is made: a nil *Trace takes nothing
// and costs a nil check, so callers that would read the clock only for
// it check Enabled first. It is safe for concurrent use.
type Trace struct {
	mu     sync.Mutex
	stages map[string][]time.Duration
	order  []string // the stages in the order first noted
	// lines is the stages with a timeline (Timeline): the window and
	// when each sample was noted.
	lines map[string]*timeline
}

// timeline is the times of one stage's samples, for its timeline.
type timeline struct {
	every time.Duration
	at    []time.Time // when each sample of the stage was noted, in order
}

// NewTrace returns an empty Trace.
func NewTrace() *Trace {
	return &Trace{stages: map[string][]time.Duration{}, lines: map[string]*timeline{}}
}

// Timeline asks for stage's samples by window of every, from its first
// on: String then adds a line per window (when it started, how many
// samples, their p50, p99 and maximum), to tell a steady tail from one
// that a periodic event makes (a checkpoint, a GC, a renewal). Only
// the samples noted from now on count.
func (t *Trace) Timeline(stage string, every time.Duration) {
	if t == nil || every <= 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lines[stage] == nil {
		t.lines[stage] = &timeline{every: every}
	}
}

// Enabled reports whether t takes samples (t is not nil).
func (t *Trace) Enabled() bool { return t != nil }

// Note adds one duration of stage.
func (t *Trace) Note(stage string, d time.Duration) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.stages[stage]
	if !ok {
		t.order = append(t.order, stage)
	}
	if len(s) < traceCap {
		t.stages[stage] = append(s, d)
		if tl := t.lines[stage]; tl != nil {
			tl.at = append(tl.at, time.Now())
		}
	}
}

// Since adds the time from from to now to stage.
func (t *Trace) Since(stage string, from time.Time) {
	if t == nil {
		return
	}
	t.Note(stage, time.Since(from))
}

// Stage is the summary of one stage's samples.
type Stage struct {
	Name               string
	N                  int
	P50, P90, P99, Max time.Duration
}

// Stages returns the summary of every stage, in the order first noted.
func (t *Trace) Stages() []Stage {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Stage, 0, len(t.order))
	for _, name := range t.order {
		out = append(out, summary(name, slices.Clone(t.stages[name])))
	}
	return out
}

// summary is the stage summary of samples s (sorted in place).
func summary(name string, s []time.Duration) Stage {
	slices.Sort(s)
	q := func(p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
	return Stage{Name: name, N: len(s), P50: q(0.5), P90: q(0.9), P99: q(0.99), Max: s[len(s)-1]}
}

// Window is the summary of a stage's samples noted in one window of its
// timeline, from Start.
type Window struct {
	Start time.Time
	Stage
}

// Windows returns the timeline of stage (Timeline): one summary per
// window from the first sample's to the last's, empty windows left out.
func (t *Trace) Windows(stage string) []Window {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	tl := t.lines[stage]
	if tl == nil || len(tl.at) == 0 {
		return nil
	}
	s := t.stages[stage]
	s = s[len(s)-len(tl.at):] // the samples noted since Timeline
	start := tl.at[0].Truncate(tl.every)
	var out []Window
	for i := 0; i < len(tl.at); {
		w := start.Add(tl.at[i].Sub(start) / tl.every * tl.every)
		j := i
		for j < len(tl.at) && tl.at[j].Before(w.Add(tl.every)) {
			j++
		}
		out = append(out, Window{Start: w, Stage: summary(stage, slices.Clone(s[i:j]))})
		i = j
	}
	return out
}

// String is one line per stage: its name, the number of samples and
// their p50, p90, p99 and maximum; then each timeline's windows.
func (t *Trace) String() string {
	var b strings.Builder
	r := func(d time.Duration) time.Duration { return d.Round(10 * time.Microsecond) }
	for _, s := range t.Stages() {
		fmt.Fprintf(&b, "trace %-40s n %7d  p50 %9s  p90 %9s  p99 %9s  max %9s\n", s.Name, s.N, r(s.P50), r(s.P90), r(s.P99), r(s.Max))
	}
	if t == nil {
		return ""
	}
	t.mu.Lock()
	var names []string
	for _, name := range t.order {
		if t.lines[name] != nil {
			names = append(names, name)
		}
	}
	t.mu.Unlock()
	for _, name := range names {
		for _, w := range t.Windows(name) {
			fmt.Fprintf(&b, "trace timeline %s %s n %5d  p50 %9s  p99 %9s  max %9s\n", name, w.Start.UTC().Format("15:04:05.0"),
				w.N, r(w.P50), r(w.P99), r(w.Max))
		}
	}
	return b.String()
}
