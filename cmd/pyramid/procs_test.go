package main

import (
	"runtime"
	"testing"
)

// TestRaiseProcs: a server on SQLite runs with at least minServeProcs
// Ps, never fewer than it has; one on PostgreSQL keeps Go's default; and
// GOMAXPROCS in the environment decides.
func TestRaiseProcs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	tests := []struct {
		name   string
		env    string
		shared bool
		have   int
		want   int
	}{
		{"one core", "", false, 1, minServeProcs},
		{"two cores", "", false, 2, minServeProcs},
		{"many cores", "", false, minServeProcs * 2, minServeProcs * 2},
		{"set in the environment", "2", false, 2, 2},
		{"on PostgreSQL", "", true, 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runtime.GOMAXPROCS(tt.have)
			raiseProcs(func(name string) string {
				if name == "GOMAXPROCS" {
					return tt.env
				}
				return ""
			}, tt.shared)
			if got := runtime.GOMAXPROCS(0); got != tt.want {
				t.Errorf("GOMAXPROCS %d with GOMAXPROCS=%q in the environment: got %d, want %d", tt.have, tt.env, got, tt.want)
			}
		})
	}
}
