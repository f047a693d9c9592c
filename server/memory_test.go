package server

import (
	"testing"
	"time"
)

func TestMemoryReleaser(t *testing.T) {
	now := time.Unix(1000, 0)
	runs := 0
	m := &memoryReleaser{now: func() time.Time { return now }, run: func(f func()) { runs++; f() }}
	steps := []struct {
		sessions int
		advance  time.Duration
		want     int // releases so far
	}{
		{1, 0, 0}, {10, 0, 0}, {500, 0, 0}, // rising: nothing
		{300, 0, 0},            // above half the peak
		{250, 0, 1},            // half: release
		{120, 0, 1},            // half again, but within releaseEvery
		{100, releaseEvery, 2}, // later: release (peak was 250)
		{0, releaseEvery, 3},   // none left
		{0, releaseEvery, 3},   // nothing new
	}
	for i, s := range steps {
		now = now.Add(s.advance)
		m.sessionsNow(s.sessions)
		if runs != s.want {
			t.Fatalf("step %d (%d sessions): %d releases, want %d", i, s.sessions, runs, s.want)
		}
	}
}
