package server

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/ssh"
)

// connKey finds a connection's state in its ssh.Context.
type connKey struct{}

// connState is what the server keeps per TCP connection: its limiter slot,
// read budget, session counts and the timer that closes it while it runs no
// session.
type connState struct {
	srv     *Server
	conn    *trackedConn
	key     string // limiter key of the client address
	remote  string
	started time.Time

	mu       sync.Mutex
	authed   bool
	channels int         // open session channels
	live     int         // sessions whose handler runs
	linger   *time.Timer // armed while live == 0
	hardStop *time.Timer // closes the connection past MaxSessionTime
	closed   bool
	timedOut bool // closed by the handshake deadline before logging in

	// limUnauth and limEvicted are guarded by the limiter's lock: whether
	// the connection counts as logging in, and whether it was evicted to
	// make room for another.
	limUnauth, limEvicted bool
}

// trackedConn is the net.Conn the SSH layer sees: reads are charged to the
// connection's budget, and the first Close releases the limiter slot.
type trackedConn struct {
	net.Conn
	cs        *connState
	budget    *budget
	once      sync.Once
	bytesRead atomic.Int64
}

// Read reads from the client and closes the connection once the client has
// sent more than its budget allows.
func (c *trackedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.bytesRead.Add(int64(n))
	if n > 0 && !c.budget.take(n) {
		c.cs.srv.log.Warn("closing connection: "+errReadBudget.Error(), "remote", c.cs.remote)
		_ = c.Close()
		return 0, fmt.Errorf("read from %s: %w", c.cs.remote, errReadBudget)
	}
	return n, err //nolint:wrapcheck // x/crypto inspects io.EOF
}

// Close closes the connection and releases what it held.
func (c *trackedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.cs.release)
	return err //nolint:wrapcheck // callers only log it
}

// onConnect is the ConnCallback: it runs before the handshake and refuses
// connections over the limits, so a flood costs no key exchange.
func (s *Server) onConnect(ctx ssh.Context, nc net.Conn) (out net.Conn) {
	defer s.recoverTo("connect", func() { out = nil })
	nc, err := s.acceptProxy(nc)
	if err != nil {
		return nil
	}
	remote := nc.RemoteAddr().String()
	key := ipKey(nc.RemoteAddr())
	cs := &connState{srv: s, key: key, remote: remote, started: s.now()}
	cs.conn = &trackedConn{Conn: nc, cs: cs, budget: newBudget(s.cfg.ReadBudget, s.now)}
	victim, err := s.limits.admit(cs)
	if err != nil {
		r := &refusal{refusedServerFull, err.Error()}
		errors.As(err, &r)
		s.refuse(nc, key, remote, r)
		return nil
	}
	if victim != nil {
		s.stats.evicted.Add(1)
		s.events.Note(victim.key, "evicted", "closing a connection still logging in to make room for a newcomer", "remote", victim.remote)
		_ = victim.conn.Close()
	}
	if !s.trackConn(cs) {
		s.limits.release(cs, true, false)
		s.refuse(nc, key, remote, &refusal{refusedShutdown, shuttingDown.message(s.cfg)})
		return nil
	}
	ctx.SetValue(connKey{}, cs)
	cs.mu.Lock()
	if !cs.closed { // Shutdown may have closed it already
		cs.armLingerLocked()
		// Sessions are told to end at cs.deadline(); this is the backstop
		// for one that cannot be told because its client stopped reading.
		cs.hardStop = time.AfterFunc(s.cfg.MaxSessionTime+s.endGrace, func() {
			defer s.recoverTo("connection time limit", nil)
			s.log.Info("closing connection: session time limit", "remote", remote)
			_ = cs.conn.Close()
		})
	}
	cs.mu.Unlock()
	return cs.conn
}

// connStateOf returns the state of the connection ctx belongs to.
func connStateOf(ctx interface{ Value(any) any }) *connState {
	cs, _ := ctx.Value(connKey{}).(*connState)
	return cs
}

// armLingerLocked starts the timer that closes a connection running no
// session: it covers the handshake and a client that keeps a connection open
// after its sessions ended. cs.mu must be held.
func (cs *connState) armLingerLocked() {
	if cs.closed {
		return
	}
	if cs.linger == nil {
		cs.linger = time.AfterFunc(cs.srv.cfg.HandshakeTimeout, cs.lingerExpired)
		return
	}
	cs.linger.Reset(cs.srv.cfg.HandshakeTimeout)
}

// lingerExpired closes the connection unless a session started meanwhile.
func (cs *connState) lingerExpired() {
	defer cs.srv.recoverTo("handshake timer", nil)
	cs.mu.Lock()
	idle := cs.live == 0 && !cs.closed
	authed := cs.authed
	if idle && !authed {
		cs.timedOut = true
	}
	cs.mu.Unlock()
	if !idle {
		return
	}
	if authed {
		cs.srv.log.Info("closing connection without a session", "remote", cs.remote)
	} else {
		cs.srv.stats.loginTimeouts.Add(1)
		cs.srv.events.Note(cs.key, "login_timeout", "handshake timed out", "remote", cs.remote)
	}
	_ = cs.conn.Close()
}

// authenticate records that the client has authenticated (it opened a
// channel, which x/crypto only allows after authentication).
func (cs *connState) authenticate() {
	cs.mu.Lock()
	first := !cs.authed
	cs.authed = true
	cs.mu.Unlock()
	if first {
		cs.srv.limits.authenticated(cs)
	}
}

// openChannel takes a session channel slot, or reports that the connection
// has too many.
func (cs *connState) openChannel() bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.channels >= cs.srv.cfg.SessionsPerConn {
		return false
	}
	cs.channels++
	return true
}

// closeChannel frees a session channel slot.
func (cs *connState) closeChannel() {
	cs.mu.Lock()
	cs.channels--
	cs.mu.Unlock()
}

// sessionStarted stops the linger timer while a session runs.
func (cs *connState) sessionStarted() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.live++
	if cs.linger != nil {
		cs.linger.Stop()
	}
}

// sessionEnded re-arms the linger timer when the last session ends.
func (cs *connState) sessionEnded() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.live--
	if cs.live == 0 {
		cs.armLingerLocked()
	}
}

// liveSessions reports how many sessions run on the connection.
func (cs *connState) liveSessions() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.live
}

// release frees the connection's limiter slot and timers; it runs once, on
// the first Close of the connection.
func (cs *connState) release() {
	cs.mu.Lock()
	cs.closed = true
	if cs.linger != nil {
		cs.linger.Stop()
	}
	if cs.hardStop != nil {
		cs.hardStop.Stop()
	}
	authed, timedOut := cs.authed, cs.timedOut
	cs.mu.Unlock()
	cs.srv.limits.release(cs, authed, timedOut)
	cs.srv.untrackConn(cs)
}

// deadline is when the connection reaches MaxSessionTime.
func (cs *connState) deadline() time.Time {
	return cs.started.Add(cs.srv.cfg.MaxSessionTime)
}
