package cluster

import (
	"context"
	"sync"
	"time"

	"pyramid/lobby"
)

// Lease is a named lease with an expiry, kept where every server of a
// cluster sees it (the database: pgbus.Lease).
type Lease interface {
	// Hold takes the lease name for holder, or keeps it, until ttl from
	// now: it reports whether holder holds it, and, when holder took it
	// over from another holder whose lease had run out, who that was.
	Hold(ctx context.Context, name, holder string, ttl time.Duration) (held bool, prev string, err error)
}

// MemoryLease is a Lease kept in memory, on a Clock: a server alone's,
// and the servers' of one process (tests), as the database keeps the
// lease of a cluster.
type MemoryLease struct {
	clock lobby.Clock

	mu     sync.Mutex
	leases map[string]memoryLease
}

type memoryLease struct {
	holder  string
	expires time.Time
}

// NewMemoryLease returns leases on clock (lobby.SystemClock() when nil).
func NewMemoryLease(clock lobby.Clock) *MemoryLease {
	if clock == nil {
		clock = lobby.SystemClock()
	}
	return &MemoryLease{clock: clock, leases: map[string]memoryLease{}}
}

// Hold implements Lease.
func (l *MemoryLease) Hold(_ context.Context, name, holder string, ttl time.Duration) (bool, string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	cur, ok := l.leases[name]
	switch {
	case ok && cur.holder == holder:
		l.leases[name] = memoryLease{holder: holder, expires: now.Add(ttl)}
		return true, "", nil
	case ok && now.Before(cur.expires):
		return false, "", nil
	}
	l.leases[name] = memoryLease{holder: holder, expires: now.Add(ttl)}
	return true, cur.holder, nil
}

// Expire ends the lease name at once, as if its holder had died long ago.
func (l *MemoryLease) Expire(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if cur, ok := l.leases[name]; ok {
		cur.expires = time.Time{}
		l.leases[name] = cur
	}
}
