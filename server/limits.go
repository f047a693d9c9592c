package server

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sync"
	"time"
)

// Reasons a connection is closed for using too much.
var (
	errReadBudget    = errors.New("read budget exceeded")
	errNoConnState   = errors.New("connection was not admitted")
	errTooManyInConn = errors.New("too many sessions on this connection")
)

// Refusal kinds, as counted in Stats and named in log lines.
const (
	refusedServerFull   = "server_full"
	refusedAddressFull  = "address_full"
	refusedAddressLogin = "address_unauth_full"
	refusedStartupsFull = "startups_full"
	refusedStartupsDrop = "startups_drop"
	refusedPenalised    = "penalised"
	refusedShutdown     = "shutting_down"
	refusedProxy        = "proxy_header"
)

// refusalKinds lists the refusal kinds in the order Stats reports them.
var refusalKinds = [...]string{
	refusedServerFull, refusedAddressFull, refusedAddressLogin, refusedStartupsFull,
	refusedStartupsDrop, refusedPenalised, refusedShutdown, refusedProxy,
}

// refusal is why a connection was refused before its handshake: kind for
// counting and logs, msg for the client.
type refusal struct {
	kind string
	msg  string
}

// Error returns the message for the client.
func (r *refusal) Error() string { return r.kind + ": " + r.msg }

// limiter counts open connections overall and per client address, and
// those not yet authenticated, overall (the startups budget, OpenSSH's
// MaxStartups) and per address. It keeps the penalties of addresses whose
// connections time out or close before they log in (OpenSSH's
// PerSourcePenalties). It is consulted in the ConnCallback, before any key
// exchange work is done for a connection.
type limiter struct {
	maxTotal, maxPerIP, maxUnauthPerIP int
	startups                           Startups
	penalties                          Penalties
	now                                func() time.Time
	rand                               func() float64 // in [0, 1)

	mu          sync.Mutex
	total       int
	perIP       map[string]int
	unauth      map[string][]*connState // per address, oldest first
	unauthTotal int
	penalty     map[string]time.Time // when each address's penalty runs out
}

// maxPenalised bounds the penalty table; when it is full and nothing in it
// has expired, new penalties are not recorded (the other limits still hold).
const maxPenalised = 1 << 16

// staleLogin is the age after which a connection still logging in may be
// closed to make room for a connection from an address that has none, when
// the startups budget is full. An honest handshake takes well under a
// second.
const staleLogin = 2 * time.Second

// silentLogin is the age after which a connection that has sent no more
// than a version line counts as stale too: every client sends its key
// exchange offer one round trip after connecting, so one that has not is a
// half-open flood connection (or on a link far too slow to play on).
const (
	silentLogin    = 500 * time.Millisecond
	versionLineMax = 255 // RFC 4253 §4.2
)

// stale reports whether cs, still logging in, may make room for a newcomer.
func stale(cs *connState, now time.Time) bool {
	age := now.Sub(cs.started)
	if age >= staleLogin {
		return true
	}
	return age >= silentLogin && cs.conn != nil && cs.conn.bytesRead.Load() <= versionLineMax
}

func newLimiter(cfg Config, now func() time.Time, rand func() float64) *limiter {
	return &limiter{
		maxTotal:       cfg.MaxConns,
		maxPerIP:       cfg.MaxConnsPerIP,
		maxUnauthPerIP: cfg.MaxUnauthPerIP,
		startups:       cfg.Startups,
		penalties:      cfg.Penalties,
		now:            now,
		rand:           rand,
		perIP:          map[string]int{},
		unauth:         map[string][]*connState{},
		penalty:        map[string]time.Time{},
	}
}

// admit takes a slot for cs, a new, unauthenticated connection, or says why
// it cannot. From Startups.Start connections logging in from other
// addresses on, a second connection from an address is dropped at random
// (Startups.dropChance). When the startups budget is full, a connection from an address
// that has no connection logging in is still admitted if another address
// holds several (or one older than staleLogin): the oldest of those is
// returned as victim, already out of the unauthenticated counts, for the
// caller to close. So a flood from many addresses can hold at most one
// login slot each while newcomers arrive.
func (l *limiter) admit(cs *connState) (victim *connState, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := cs.key
	now := l.now()
	if wait := l.penaltyLeftLocked(key, now); wait > 0 {
		return nil, &refusal{refusedPenalised, fmt.Sprintf(
			"Too many connections from your address (%s) timed out or closed before logging in; try again in %s.",
			key, wait.Round(time.Second))}
	}
	mine := len(l.unauth[key])
	switch {
	case l.total >= l.maxTotal:
		return nil, &refusal{refusedServerFull, fmt.Sprintf(
			"The server is full: it has %d connections, its limit (--max-conns). Try again in a few minutes.", l.maxTotal)}
	case l.perIP[key] >= l.maxPerIP:
		return nil, &refusal{refusedAddressFull, fmt.Sprintf(
			"Too many connections from your address (%s): the limit is %d per address (--max-conns-per-ip). "+
				"Close one, or ask the server's operator to raise the limit.", key, l.maxPerIP)}
	case mine >= l.maxUnauthPerIP:
		return nil, &refusal{refusedAddressLogin, fmt.Sprintf(
			"Too many connections from your address (%s) are still logging in: the limit is %d (--max-unauth-per-ip). "+
				"Try again in a moment.", key, l.maxUnauthPerIP)}
	}
	busy := &refusal{refusedStartupsFull, fmt.Sprintf(
		"The server is busy with connections that have not logged in yet (limit %d, --max-startups %s). Try again in a moment.",
		l.startups.Full, l.startups)}
	if l.unauthTotal >= l.startups.Full {
		// Only an address with a clean record may take another's place:
		// one whose connections were evicted or timed out lately waits
		// for a free slot like everyone else.
		if until, ok := l.penalty[key]; !ok || !until.After(now) {
			victim = l.victimLocked(key, mine, now)
		}
		if victim == nil {
			return nil, busy
		}
		l.dropUnauthLocked(victim)
		victim.limEvicted = true
	} else if others := l.unauthTotal - mine; mine > 0 && others >= l.startups.Start && l.rand() < l.startups.dropChance(others) {
		// Random early drop, but only for addresses already logging in (a
		// first connection is never dropped before the budget is full),
		// and by the logins of the other addresses: an address's own,
		// within --max-unauth-per-ip, are its allowance (the per-address
		// limit's to bound), and never make a quiet server busy for it.
		busy.kind = refusedStartupsDrop
		busy.msg = fmt.Sprintf("The server is busy: %d connections from other addresses are logging in (--max-startups %s). Try again in a moment.",
			others, l.startups)
		return nil, busy
	}
	l.total++
	l.perIP[key]++
	l.unauth[key] = append(l.unauth[key], cs)
	l.unauthTotal++
	cs.limUnauth = true
	return victim, nil
}

// victimLocked picks the connection to close so that a connection from key,
// which has mine connections logging in, fits in a full startups budget: the
// oldest connection of an address with a penalty on record; else the oldest
// of the address holding the most, if it holds at least two more than key;
// else the oldest stale one (see stale). Nil means none.
func (l *limiter) victimLocked(key string, mine int, now time.Time) *connState {
	var penalised, heavy, oldest *connState
	most := 0
	for k, list := range l.unauth {
		if k == key || len(list) == 0 {
			continue
		}
		first := list[0]
		if until, ok := l.penalty[k]; ok && until.After(now) && (penalised == nil || first.started.Before(penalised.started)) {
			penalised = first
		}
		if len(list) > most || (len(list) == most && first.started.Before(heavy.started)) {
			most, heavy = len(list), first
		}
		if stale(first, now) && (oldest == nil || first.started.Before(oldest.started)) {
			oldest = first
		}
	}
	switch {
	case penalised != nil:
		return penalised
	case heavy != nil && most >= mine+2:
		return heavy
	case oldest != nil && mine == 0:
		return oldest
	}
	return nil
}

// dropUnauthLocked takes cs out of the unauthenticated counts.
func (l *limiter) dropUnauthLocked(cs *connState) {
	if !cs.limUnauth {
		return
	}
	cs.limUnauth = false
	l.unauthTotal--
	list := slices.DeleteFunc(l.unauth[cs.key], func(c *connState) bool { return c == cs })
	if len(list) == 0 {
		delete(l.unauth, cs.key)
		return
	}
	l.unauth[cs.key] = list
}

// authenticated moves cs out of the unauthenticated counts.
func (l *limiter) authenticated(cs *connState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dropUnauthLocked(cs)
}

// release frees the slots of a closed connection and, if it never logged
// in, adds to its address's penalty: timedOut says whether it was closed by
// the handshake deadline.
func (l *limiter) release(cs *connState, authed, timedOut bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total--
	decrement(l.perIP, cs.key)
	l.dropUnauthLocked(cs)
	switch {
	case authed:
	case timedOut || cs.limEvicted:
		// An evicted connection held a login slot too long while others
		// waited: as good as a timeout.
		l.punishLocked(cs.key, l.penalties.Timeout)
	default:
		l.punishLocked(cs.key, l.penalties.NoAuth)
	}
}

// punishLocked adds w to key's penalty, up to Penalties.Max.
func (l *limiter) punishLocked(key string, w time.Duration) {
	if w <= 0 || l.penalties.Off {
		return
	}
	now := l.now()
	until, ok := l.penalty[key]
	if !ok && len(l.penalty) >= maxPenalised {
		for k, u := range l.penalty {
			if !u.After(now) {
				delete(l.penalty, k)
			}
		}
		if len(l.penalty) >= maxPenalised {
			return
		}
	}
	if until.Before(now) {
		until = now
	}
	until = until.Add(w)
	if limit := now.Add(l.penalties.Max); until.After(limit) {
		until = limit
	}
	l.penalty[key] = until
}

// penaltyLeftLocked is how long key is still refused: its penalty beyond
// Penalties.Min, or 0.
func (l *limiter) penaltyLeftLocked(key string, now time.Time) time.Duration {
	until, ok := l.penalty[key]
	if !ok {
		return 0
	}
	if !until.After(now) {
		delete(l.penalty, key)
		return 0
	}
	return max(until.Sub(now)-l.penalties.Min, 0)
}

// unauthCount reports the connections still logging in, for tests and
// metrics.
func (l *limiter) unauthCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.unauthTotal
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
