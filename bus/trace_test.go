package bus

import (
	"strings"
	"testing"
	"time"
)

func TestTrace(t *testing.T) {
	var off *Trace
	off.Note("a", time.Second) // a nil Trace takes nothing
	if off.Enabled() || off.Stages() != nil || off.String() != "" {
		t.Fatalf("a nil Trace: enabled %v, stages %v", off.Enabled(), off.Stages())
	}
	tr := NewTrace()
	for i := 1; i <= 100; i++ {
		tr.Note("b", time.Duration(i)*time.Millisecond)
	}
	tr.Note("a", time.Second)
	tests := []struct {
		name string
		got  Stage
		want Stage
	}{
		{"first noted first", tr.Stages()[0], Stage{Name: "b", N: 100, P50: 51 * time.Millisecond, P90: 91 * time.Millisecond, P99: 100 * time.Millisecond, Max: 100 * time.Millisecond}},
		{"one sample", tr.Stages()[1], Stage{Name: "a", N: 1, P50: time.Second, P90: time.Second, P99: time.Second, Max: time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %+v, want %+v", tt.got, tt.want)
			}
		})
	}
	if s := tr.String(); strings.Count(s, "\n") != 2 || !strings.HasPrefix(s, "trace b ") {
		t.Errorf("String() = %q", s)
	}
}

func TestTraceTimeline(t *testing.T) {
	tr := NewTrace()
	tr.Note("x", time.Hour) // before the timeline: not in it
	tr.Timeline("x", time.Hour)
	for i := 1; i <= 3; i++ {
		tr.Note("x", time.Duration(i)*time.Millisecond)
	}
	tr.Note("y", time.Second)
	tests := []struct {
		name    string
		stage   string
		windows int // at most
		samples int
		max     time.Duration
	}{
		{"the samples since Timeline", "x", 2, 3, 3 * time.Millisecond},
		{"a stage without one", "y", 0, 0, 0},
		{"an unknown stage", "z", 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := tr.Windows(tt.stage)
			n, most := 0, time.Duration(0)
			for _, w := range ws {
				n += w.N
				most = max(most, w.Max)
			}
			if len(ws) > tt.windows || n != tt.samples || most != tt.max {
				t.Errorf("Windows(%q) = %+v: %d samples, max %v; want %d in at most %d windows, max %v", tt.stage, ws, n, most, tt.samples, tt.windows, tt.max)
			}
		})
	}
	if s := tr.String(); !strings.Contains(s, "trace timeline x ") || strings.Contains(s, "timeline y") {
		t.Errorf("String() = %q", s)
	}
	var off *Trace
	off.Timeline("x", time.Second)
	if off.Windows("x") != nil {
		t.Error("a nil Trace has a timeline")
	}
}
