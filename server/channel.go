package server

import (
	"context"
	"sync"
	"time"

	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// sessionChannel replaces the "session" channel handler of charmbracelet/ssh.
// It caps the sessions of a connection, gives each session a context of its
// own, and puts a request filter between the client and the library's
// session code (see filterRequests).
func (s *Server) sessionChannel(srv *ssh.Server, conn *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
	defer s.recoverTo("session channel", nil)
	cs := connStateOf(ctx)
	if cs == nil {
		_ = nc.Reject(gossh.Prohibited, errNoConnState.Error())
		return
	}
	cs.authenticate()
	if !cs.openChannel() {
		s.log.Warn("session refused: "+errTooManyInConn.Error(), "remote", cs.remote)
		_ = nc.Reject(gossh.ResourceShortage, errTooManyInConn.Error())
		return
	}
	release := sync.OnceFunc(cs.closeChannel)
	defer release()

	st := newSessionState(s, cs, ctx)
	st.releaseSlot = release
	defer st.cancel()
	sctx := &sessionContext{Context: ctx, ctx: st.ctx, values: map[any]any{stateKey{}: st}}
	ssh.DefaultSessionHandler(srv, conn, &filteredChannel{NewChannel: nc, st: st}, sctx)
}

// filteredChannel hands the library the session's requests after
// filterRequests has seen them.
type filteredChannel struct {
	gossh.NewChannel
	st *sessionState
}

// Accept accepts the channel and starts the request filter.
func (c *filteredChannel) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, reqs, err := c.NewChannel.Accept()
	if err != nil {
		return nil, nil, err //nolint:wrapcheck // the library drops it
	}
	c.st.channel = ch
	out := make(chan *gossh.Request)
	c.st.srv.goSafe("request filter", func() { c.st.filterRequests(reqs, out) })
	return ch, out, nil
}

// stateKey finds a session's state in its sessionContext.
type stateKey struct{}

// sessionContext is the ssh.Context of one session. The library shares one
// context between all sessions of a connection; this one keeps its own
// values (so the library's per-session values do not leak between sessions)
// and its own cancellation, and falls back to the connection's context for
// the rest (user, keys, permissions).
type sessionContext struct {
	ssh.Context
	ctx context.Context

	mu     sync.Mutex
	values map[any]any
}

// Deadline implements context.Context.
func (c *sessionContext) Deadline() (time.Time, bool) { return c.ctx.Deadline() }

// Done implements context.Context: it is closed when the session ends or its
// connection closes.
func (c *sessionContext) Done() <-chan struct{} { return c.ctx.Done() }

// Err implements context.Context.
func (c *sessionContext) Err() error { return c.ctx.Err() }

// Value returns the session's own value for key, or the connection's.
func (c *sessionContext) Value(key any) any {
	c.mu.Lock()
	v, ok := c.values[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	return c.Context.Value(key)
}

// SetValue sets a value for this session only.
func (c *sessionContext) SetValue(key, value any) {
	c.mu.Lock()
	c.values[key] = value
	c.mu.Unlock()
}

// stateOf returns the state of the session ctx belongs to.
func stateOf(ctx interface{ Value(any) any }) *sessionState {
	st, _ := ctx.Value(stateKey{}).(*sessionState)
	return st
}
