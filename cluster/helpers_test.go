package cluster

import (
	"testing"
	"time"
)

// eventually polls cond until it holds, for at most ten seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond) // polling a condition, not synchronising on time
	}
}
