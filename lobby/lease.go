package lobby

import (
	"context"
	"sync"
	"time"
)

// MemoryLease is a Lease kept in memory, on a Clock: for the servers of
// one process (tests), as the database keeps the lease of a cluster.
type MemoryLease struct {
	clock Clock

	mu     sync.Mutex
	leases map[string]memoryLease
}

type memoryLease struct {
	holder  string
	expires time.Time
}

// NewMemoryLease returns leases on clock (SystemClock() when nil).
func NewMemoryLease(clock Clock) *MemoryLease {
	if clock == nil {
		clock = SystemClock()
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
