package server

import (
	"runtime/debug"
	"sync"
	"time"
)

// releaseEvery is the least time between two returns of memory to the OS.
const releaseEvery = 10 * time.Second

// memoryReleaser gives the memory of ended sessions back to the operating
// system once the load has fallen: when the running sessions drop to half of
// their peak since the last release (or to none), it runs a collection that
// returns freed pages at once (debug.FreeOSMemory) instead of leaving them
// to the runtime's background scavenger and two-minute forced collection.
type memoryReleaser struct {
	now func() time.Time
	run func(func()) // starts f in a goroutine

	mu      sync.Mutex
	peak    int
	last    time.Time
	running bool
}

// sessionsNow is told the number of running sessions after each change.
func (m *memoryReleaser) sessionsNow(n int) {
	m.mu.Lock()
	if n > m.peak {
		m.peak = n
	}
	if m.running || m.peak < 2 || n > m.peak/2 || m.now().Sub(m.last) < releaseEvery {
		m.mu.Unlock()
		return
	}
	m.running, m.peak = true, n
	m.mu.Unlock()
	m.run(func() {
		debug.FreeOSMemory()
		m.mu.Lock()
		m.running, m.last = false, m.now()
		m.mu.Unlock()
	})
}
