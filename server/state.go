package server

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// endReason says why the server ended a session.
type endReason int

const (
	notEnded     endReason = iota
	clientClosed           // the client closed the channel or the connection
	idle                   // no input for IdleTimeout
	timeLimit              // MaxSessionTime reached
	shuttingDown           // the server is going down
	writeBlocked           // the client stopped reading for WriteTimeout
	appEnded               // the App ended it (Session.End), with words of its own
)

// String names the reason for logs.
func (r endReason) String() string {
	names := [...]string{"app finished", "client closed", "idle timeout", "session time limit", "server shutdown", "output blocked", "ended by the app"}
	if int(r) < len(names) {
		return names[r]
	}
	return fmt.Sprintf("endReason(%d)", int(r))
}

// message is what the player reads after the server ended the session.
func (r endReason) message(cfg Config) string {
	switch r {
	case idle:
		return fmt.Sprintf("Disconnected after %s without input.", cfg.IdleTimeout)
	case timeLimit:
		return fmt.Sprintf("Disconnected: sessions last at most %s.", cfg.MaxSessionTime)
	case shuttingDown:
		return "The server is restarting; please connect again in a minute."
	case writeBlocked:
		return fmt.Sprintf("Disconnected: your terminal read nothing for %s.", cfg.WriteTimeout)
	}
	return ""
}

// sessionState is the server's side of one session channel, from the channel
// open to its close.
type sessionState struct {
	srv    *Server
	cs     *connState
	id     uint64
	ctx    context.Context // ends when the session is ended or the connection closes
	cancel context.CancelFunc
	resize *resizeBox
	// channel is the session's SSH channel, set when it is accepted
	// (before the handler starts). The program's frames are written to it
	// directly: the library's session writer copies every write twice to
	// turn "\n" into "\r\n", and a frame has no bare "\n".
	channel gossh.Channel
	// releaseSlot gives the connection's session slot back, once: when the
	// handler ends (before the client sees the exit status, so a client
	// opening its next session at once is not refused) or when the channel
	// closes without a handler.
	releaseSlot func()
	// commandTooLong is set by the request filter for an exec command over
	// maxCommandLen bytes, which is then run as a refusal.
	commandTooLong atomic.Bool

	// lastInput is the time of the last byte of input, in UnixNano.
	lastInput atomic.Int64
	// writeStart is when the write to the client under way began, in
	// UnixNano, or 0 when no write is under way.
	writeStart atomic.Int64

	// Fields of the request filter goroutine only.
	pty      bool
	started  bool
	envCount int

	mu       sync.Mutex
	reason   endReason
	endText  string       // what the player reads after an appEnded end
	handling bool         // the handler has started
	closed   bool         // the client's request stream has ended (channelClosed)
	finished bool         // the handler has returned
	program  *tea.Program // nil for exec sessions and before the program exists
	notified bool         // ShutdownMsg handed to the program
	timers   []*time.Timer
}

func newSessionState(s *Server, cs *connState, parent context.Context) *sessionState {
	ctx, cancel := context.WithCancel(parent)
	st := &sessionState{
		srv:         s,
		cs:          cs,
		id:          s.nextID.Add(1),
		ctx:         ctx,
		cancel:      cancel,
		resize:      newResizeBox(),
		releaseSlot: func() {},
	}
	st.lastInput.Store(s.now().UnixNano())
	return st
}

// startTimers arms the idle timer, the session time limit and the check of
// blocked writes. They run until finish.
func (st *sessionState) startTimers() {
	cfg := st.srv.cfg
	st.mu.Lock()
	defer st.mu.Unlock()
	st.timers = append(st.timers,
		time.AfterFunc(cfg.IdleTimeout, st.checkIdle),
		time.AfterFunc(time.Until(st.cs.deadline()), func() { st.end(timeLimit) }), // end recovers
		time.AfterFunc(cfg.WriteTimeout/4, st.checkWrites),
	)
}

// channelClosed is the request filter's word that the client's request
// stream ended: the client closed the channel or the connection went away.
// A session whose handler runs is ended (clientClosed); one whose handler
// has not started yet is ended when it starts (handlerStarted). A channel
// closed before any shell or exec request never gets a handler, and its
// connection is left alone.
func (st *sessionState) channelClosed() {
	st.mu.Lock()
	st.closed = true
	handling := st.handling
	st.mu.Unlock()
	if handling {
		st.end(clientClosed)
	}
}

// handlerStarted marks the start of the session's handler, and ends the
// session at once if its channel is already closed.
func (st *sessionState) handlerStarted() {
	st.mu.Lock()
	st.handling = true
	closed := st.closed
	st.mu.Unlock()
	if closed {
		st.end(clientClosed)
	}
}

// checkIdle ends the session if no input came for IdleTimeout, and otherwise
// sleeps until the earliest moment that can be the case. One timer per
// session, re-armed at most once per IdleTimeout, however fast the player
// types.
func (st *sessionState) checkIdle() {
	defer st.srv.recoverTo("idle timer", nil)
	last := time.Unix(0, st.lastInput.Load())
	quiet := st.srv.now().Sub(last)
	if quiet >= st.srv.cfg.IdleTimeout {
		st.end(idle)
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.finished {
		st.timers[0].Reset(st.srv.cfg.IdleTimeout - quiet)
	}
}

// checkWrites ends the session if a write to the client has been blocked
// for WriteTimeout (the client stopped reading: its window is full, and a
// client that keeps typing would otherwise keep the session until
// MaxSessionTime). It re-arms itself at a quarter of WriteTimeout, so it
// notices within 1.25 × WriteTimeout.
func (st *sessionState) checkWrites() {
	defer st.srv.recoverTo("write timer", nil)
	limit := st.srv.cfg.WriteTimeout
	next := limit / 4
	if started := st.writeStart.Load(); started != 0 {
		blocked := st.srv.now().Sub(time.Unix(0, started))
		if blocked >= limit {
			st.srv.stats.writeTimeouts.Add(1)
			st.srv.log.Warn("closing session: its output has been blocked", "session", st.id, "remote", st.cs.remote, "blocked", blocked.Round(time.Millisecond))
			st.end(writeBlocked)
			return
		}
		next = min(next, limit-blocked)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.finished {
		st.timers[2].Reset(next)
	}
}

// end ends the session for reason: the program and Exec see their context
// cancelled. If the handler has not returned endGrace later (its client
// stopped reading, so even the goodbye cannot be written), the connection is
// closed, which unblocks every write.
func (st *sessionState) end(reason endReason) { st.endWith(reason, "") }

// endWith is end, with the words the player reads after an appEnded end.
func (st *sessionState) endWith(reason endReason, text string) {
	defer st.srv.recoverTo("end session", nil)
	st.mu.Lock()
	if st.reason != notEnded || st.finished {
		st.mu.Unlock()
		return
	}
	st.reason, st.endText = reason, text
	st.timers = append(st.timers, time.AfterFunc(st.srv.endGrace, func() {
		defer st.srv.recoverTo("session watchdog", nil)
		st.srv.log.Warn("closing stuck session's connection", "session", st.id, "remote", st.cs.remote, "reason", reason.String())
		_ = st.cs.conn.Close()
	}))
	st.mu.Unlock()
	st.cancel()
}

// lastWords is what the player reads after the server ended the
// session for reason.
func (st *sessionState) lastWords(reason endReason) string {
	if reason == appEnded {
		st.mu.Lock()
		defer st.mu.Unlock()
		return st.endText
	}
	return reason.message(st.srv.cfg)
}

// endedBy returns why the session was ended from outside, if it was: by the
// server, or by the client (its channel or connection closed, which cancels
// the session's context without a word).
func (st *sessionState) endedBy() endReason {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.reason == notEnded && st.ctx.Err() != nil {
		return clientClosed
	}
	return st.reason
}

// finish stops the session's timers once its handler returns.
func (st *sessionState) finish() {
	st.mu.Lock()
	st.finished = true
	timers := st.timers
	st.timers = nil
	st.mu.Unlock()
	for _, t := range timers {
		t.Stop()
	}
	st.cancel()
}

// setProgram records the session's program so Shutdown can reach it. If the
// server is already shutting down the program is told at once.
func (st *sessionState) setProgram(p *tea.Program) {
	st.mu.Lock()
	st.program = p
	st.mu.Unlock()
	if st.srv.isClosing() {
		st.notifyShutdown()
	}
}

// currentProgram is the session's program, or nil before it exists and
// for exec sessions.
func (st *sessionState) currentProgram() *tea.Program {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.program
}

// notifyShutdown tells the session the server is going down: a program gets
// ShutdownMsg (from its own goroutine: Send blocks while the program is busy
// or its client is stuck, and must never hold up the shutdown of the
// others); an exec session, or one whose program does not exist yet, is
// ended.
func (st *sessionState) notifyShutdown() {
	st.mu.Lock()
	p, already := st.program, st.notified
	st.notified = true
	st.mu.Unlock()
	if already {
		return
	}
	if p == nil {
		st.end(shuttingDown)
		return
	}
	msg := ShutdownMsg{Grace: max(time.Until(st.srv.closeDeadline()), 0)}
	st.srv.goSafe("shutdown notice", func() { p.Send(msg) })
}

// inputReader is the program's input: it marks the time of every read that
// returned bytes, which is what the idle timer measures.
type inputReader struct {
	r  io.Reader
	st *sessionState
}

// Read reads client input and records that there was some.
func (in *inputReader) Read(p []byte) (int, error) {
	n, err := in.r.Read(p)
	if n > 0 {
		in.st.lastInput.Store(in.st.srv.now().UnixNano())
	}
	return n, err //nolint:wrapcheck // Bubble Tea checks io.EOF
}

// outputWriter is the session's output: it marks when each write begins and
// ends, which is what checkWrites measures.
type outputWriter struct {
	w  io.Writer
	st *sessionState
}

// Write writes to the client and records that a write is under way.
func (o *outputWriter) Write(p []byte) (int, error) {
	o.st.writeStart.Store(o.st.srv.now().UnixNano())
	defer o.st.writeStart.Store(0)
	return o.w.Write(p) //nolint:wrapcheck // callers only see io errors
}

// sessionOf returns the session state of sess, or nil if the session did not
// come through sessionChannel.
func sessionOf(sess ssh.Session) *sessionState {
	return stateOf(sess.Context())
}
