package server

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrForcedShutdown is returned by Shutdown when sessions were still running
// at the end of the grace period and had to be closed.
var ErrForcedShutdown = errors.New("server: sessions closed at the shutdown deadline")

// Shutdown stops the server gracefully: it stops accepting connections,
// refuses new sessions, sends ShutdownMsg to every running program (and ends
// exec sessions), then waits for the sessions to end. Sessions still running
// shortly before the deadline — the earlier of ctx's deadline and
// Config.ShutdownGrace from now — are closed, along with every connection,
// so Shutdown returns by the deadline even when clients are stuck. It
// returns nil if every session ended by itself and ErrForcedShutdown
// (wrapped) if some had to be closed. If ctx is cancelled before the
// deadline, the sessions are closed at once and ctx's error is returned.
func (s *Server) Shutdown(ctx context.Context) error {
	start := s.now()
	deadline := start.Add(s.cfg.ShutdownGrace)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	// Keep a little time to close what is left and let it unwind.
	reserve := min(time.Second, deadline.Sub(start)/5)
	sessions, drained := s.beginClose(deadline.Add(-reserve))
	s.log.Info("shutting down", "sessions", len(sessions), "grace", deadline.Sub(start).Round(time.Millisecond))
	for _, st := range sessions {
		st.notifyShutdown()
	}
	s.closeConns(func(cs *connState) bool { return cs.liveSessions() == 0 })

	force := time.NewTimer(time.Until(deadline.Add(-reserve)))
	defer force.Stop()
	select {
	case <-drained:
		s.closeConns(nil)
		s.log.Info("shutdown complete")
		return nil
	case <-force.C:
	case <-ctx.Done():
	}
	cancelled := ctx.Err() != nil && s.now().Before(deadline.Add(-reserve))

	left := s.runningSessions()
	s.log.Warn("closing sessions still running at the shutdown deadline", "sessions", len(left))
	for _, st := range left {
		st.end(shuttingDown)
	}
	s.closeConns(nil)
	wait := time.NewTimer(time.Until(deadline))
	defer wait.Stop()
	select {
	case <-drained:
	case <-wait.C:
	}
	if cancelled {
		return fmt.Errorf("server: shutdown: %w", ctx.Err())
	}
	return fmt.Errorf("%w (%d sessions)", ErrForcedShutdown, len(left))
}

// Close closes the listeners, every connection and so every session at
// once. Use Shutdown to let players know first.
func (s *Server) Close() error {
	s.beginClose(s.now())
	s.closeConns(nil)
	s.events.Stop()
	return nil
}

// beginClose marks the server as closing (new connections and sessions are
// refused), closes the listeners, and returns the running sessions and a
// channel closed once none is left.
func (s *Server) beginClose(closeBy time.Time) ([]*sessionState, <-chan struct{}) {
	s.mu.Lock()
	if !s.closing {
		s.closeBy = closeBy
	}
	s.closing = true
	if s.drained == nil {
		s.drained = make(chan struct{})
		if len(s.sessions) == 0 {
			close(s.drained)
		}
	}
	drained := s.drained
	listeners := s.listeners
	s.listeners = nil
	s.mu.Unlock()
	// Closing the listeners makes Serve return. The library's own Shutdown
	// is not used: it waits on a WaitGroup that connections finishing their
	// handshake still Add to, a data race.
	for _, l := range listeners {
		_ = l.Close()
	}
	sessions := s.runningSessions()
	return sessions, drained
}

// runningSessions lists the sessions whose handler runs.
func (s *Server) runningSessions() []*sessionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	sessions := make([]*sessionState, 0, len(s.sessions))
	for st := range s.sessions {
		sessions = append(sessions, st)
	}
	return sessions
}

// closeConns closes the tracked connections that match (all if match
// is nil). Closing a connection ends its sessions: their contexts are
// cancelled and every blocked read or write returns.
func (s *Server) closeConns(match func(*connState) bool) {
	s.mu.Lock()
	conns := make([]*connState, 0, len(s.conns))
	for cs := range s.conns {
		if match == nil || match(cs) {
			conns = append(conns, cs)
		}
	}
	s.mu.Unlock()
	for _, cs := range conns {
		_ = cs.conn.Close()
	}
}
