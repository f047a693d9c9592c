package server

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"time"
)

// Reasons a connection is refused before its handshake.
var (
	errServerFull    = errors.New("server connection limit reached")
	errIPFull        = errors.New("connection limit for this address reached")
	errIPUnauthFull  = errors.New("unauthenticated connection limit for this address reached")
	errShuttingDown  = errors.New("server is shutting down")
	errReadBudget    = errors.New("read budget exceeded")
	errNoConnState   = errors.New("connection was not admitted")
	errTooManyInConn = errors.New("too many sessions on this connection")
)

// limiter counts open connections overall, per client address and, per
// address, those not yet authenticated. It is consulted in the ConnCallback,
// before any key exchange work is done for a connection.
type limiter struct {
	maxTotal, maxPerIP, maxUnauth int

	mu     sync.Mutex
	total  int
	perIP  map[string]int
	unauth map[string]int
}

func newLimiter(cfg Config) *limiter {
	return &limiter{
		maxTotal:  cfg.MaxConns,
		maxPerIP:  cfg.MaxConnsPerIP,
		maxUnauth: cfg.MaxUnauthPerIP,
		perIP:     map[string]int{},
		unauth:    map[string]int{},
	}
}

// admit takes a slot for a new, unauthenticated connection from key, or says
// why it cannot.
func (l *limiter) admit(key string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.total >= l.maxTotal:
		return errServerFull
	case l.perIP[key] >= l.maxPerIP:
		return errIPFull
	case l.unauth[key] >= l.maxUnauth:
		return errIPUnauthFull
	}
	l.total++
	l.perIP[key]++
	l.unauth[key]++
	return nil
}

// authenticated moves a connection of key out of the unauthenticated count.
func (l *limiter) authenticated(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	decrement(l.unauth, key)
}

// release frees the slots of a closed connection.
func (l *limiter) release(key string, wasAuthenticated bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total--
	decrement(l.perIP, key)
	if !wasAuthenticated {
		decrement(l.unauth, key)
	}
}

// decrement lowers m[key] and drops the entry at zero, so the maps only hold
// addresses that have connections open.
func decrement(m map[string]int, key string) {
	if m[key] <= 1 {
		delete(m, key)
		return
	}
	m[key]--
}

// ipKey names the client of addr for the per-address limits: the IPv4
// address, or the /64 prefix of an IPv6 address (one customer usually gets a
// whole /64, so counting single IPv6 addresses would be no limit at all).
func ipKey(addr net.Addr) string {
	var ap netip.AddrPort
	switch a := addr.(type) {
	case *net.TCPAddr:
		ap = a.AddrPort()
	default:
		parsed, err := netip.ParseAddrPort(addr.String())
		if err != nil {
			return addr.String()
		}
		ap = parsed
	}
	ip := ap.Addr().Unmap()
	if ip.Is4() {
		return ip.String()
	}
	prefix, err := ip.WithZone("").Prefix(64)
	if err != nil {
		return ip.String()
	}
	return prefix.String()
}

// budget is a token bucket over bytes read from a connection. It needs no
// goroutine: tokens are refilled lazily on each take.
type budget struct {
	burst, rate float64
	now         func() time.Time

	mu     sync.Mutex
	tokens float64
	last   time.Time
}

func newBudget(b ReadBudget, now func() time.Time) *budget {
	return &budget{
		burst:  float64(b.Burst),
		rate:   float64(b.PerSecond),
		now:    now,
		tokens: float64(b.Burst),
		last:   now(),
	}
}

// take spends n bytes and reports whether the budget still covers them.
func (b *budget) take(n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.now()
	if elapsed := t.Sub(b.last).Seconds(); elapsed > 0 {
		b.tokens = min(b.burst, b.tokens+elapsed*b.rate)
	}
	b.last = t
	b.tokens -= float64(n)
	return b.tokens >= 0
}
