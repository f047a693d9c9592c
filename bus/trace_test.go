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
