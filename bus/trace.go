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
}

// NewTrace returns an empty Trace.
func NewTrace() *Trace { return &Trace{stages: map[string][]time.Duration{}} }

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
		s := slices.Clone(t.stages[name])
		slices.Sort(s)
		q := func(p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
		out = append(out, Stage{Name: name, N: len(s), P50: q(0.5), P90: q(0.9), P99: q(0.99), Max: s[len(s)-1]})
	}
	return out
}

// String is one line per stage: its name, the number of samples and
// their p50, p90, p99 and maximum.
func (t *Trace) String() string {
	var b strings.Builder
	for _, s := range t.Stages() {
		fmt.Fprintf(&b, "trace %-40s n %7d  p50 %9s  p90 %9s  p99 %9s  max %9s\n", s.Name, s.N,
			s.P50.Round(10*time.Microsecond), s.P90.Round(10*time.Microsecond), s.P99.Round(10*time.Microsecond), s.Max.Round(10*time.Microsecond))
	}
	return b.String()
}
