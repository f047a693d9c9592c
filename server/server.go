package server

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"pyramid/floodlog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/log"
	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	gossh "golang.org/x/crypto/ssh"
)

// ErrServerClosed is returned by Serve and ListenAndServe after Shutdown or
// Close.
var ErrServerClosed = ssh.ErrServerClosed

// endGrace is how long a session the server ended gets to say goodbye before
// its connection is closed under it.
const endGrace = 5 * time.Second

// Server is the hardened SSH server. Create it with New.
type Server struct {
	cfg         Config
	app         App
	log         *log.Logger
	ssh         *ssh.Server
	signer      gossh.Signer
	fingerprint string
	limits      *limiter
	stats       counters
	events      *floodlog.Log
	refusing    chan struct{} // a slot per refusal explaining itself
	memory      *memoryReleaser
	now         func() time.Time
	endGrace    time.Duration
	nextID      atomic.Uint64

	mu        sync.Mutex
	closing   bool
	closeBy   time.Time // when closing: when sessions still running are closed
	listeners []net.Listener
	addr      net.Addr // of the first listener
	conns     map[*connState]struct{}
	sessions  map[*sessionState]struct{}
	drained   chan struct{} // closed when closing and no session is left
}

// New builds a server for app: it loads or creates the host key and sets up
// the SSH layer. It does not listen yet.
func New(cfg Config, app App) (*Server, error) {
	if app == nil {
		return nil, errors.New("server: nil App")
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	signer, err := loadOrCreateHostKey(cfg.HostKeyPath)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	s := &Server{
		cfg:         cfg,
		app:         app,
		log:         cfg.Logger,
		signer:      signer,
		fingerprint: gossh.FingerprintSHA256(signer.PublicKey()),
		limits:      newLimiter(cfg, time.Now, rand.Float64),
		events:      floodlog.New(cfg.Logger, cfg.LogInterval, "connection events"),
		refusing:    make(chan struct{}, maxRefusing),
		now:         time.Now,
		endGrace:    endGrace,
		conns:       map[*connState]struct{}{},
		sessions:    map[*sessionState]struct{}{},
	}
	if !cfg.KeepMemory {
		s.memory = &memoryReleaser{now: s.now, run: func(f func()) { s.goSafe("memory release", f) }}
	}
	if cfg.trustsEveryAddress() {
		s.log.Warn("--proxy-protocol trusts every address: anyone can send a PROXY header and choose the address "+
			"the per-address limits and budgets count; list only the load balancers' addresses", "proxies", cfg.TrustedProxies)
	}
	if fi, err := os.Stat(cfg.HostKeyPath); err == nil && fi.Mode().Perm()&0o077 != 0 {
		s.log.Warn("host key is readable by others; chmod 600 it", "path", cfg.HostKeyPath, "mode", fi.Mode().Perm())
	}
	s.ssh, err = wish.NewServer(
		wish.WithAddress(cfg.Listen),
		func(srv *ssh.Server) error { srv.AddHostKey(signer); return nil },
		wish.WithPublicKeyAuth(s.publicKeyAuth),
		wish.WithKeyboardInteractiveAuth(s.keyboardInteractiveAuth),
		wish.WithMiddleware(s.middleware()),
		func(srv *ssh.Server) error {
			srv.ServerConfigCallback = s.serverConfig
			srv.ConnCallback = s.onConnect
			srv.ConnectionFailedCallback = s.connectionFailed
			// Only session channels; no port forwarding (direct-tcpip and
			// tcpip-forward are refused when absent), no global requests,
			// no subsystems (sftp). Agent and X11 requests are refused by
			// the request filter.
			srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": s.sessionChannel}
			srv.RequestHandlers = map[string]ssh.RequestHandler{}
			srv.SubsystemHandlers = map[string]ssh.SubsystemHandler{}
			srv.LocalPortForwardingCallback = nil
			srv.ReversePortForwardingCallback = nil
			return nil
		},
	)
	if err != nil {
		return nil, fmt.Errorf("server: build ssh server: %w", err)
	}
	return s, nil
}

// Fingerprint returns the SHA256 fingerprint of the host key, for players to
// check on first connect.
func (s *Server) Fingerprint() string { return s.fingerprint }

// ListenAndServe listens on Config.Listen and serves until Shutdown or Close.
func (s *Server) ListenAndServe() error {
	l, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("server: listen on %s: %w", s.cfg.Listen, err)
	}
	return s.Serve(l)
}

// Serve accepts connections on l until Shutdown or Close, then returns
// ErrServerClosed. It closes l.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		_ = l.Close()
		return ErrServerClosed
	}
	s.listeners = append(s.listeners, l)
	if s.addr == nil {
		s.addr = l.Addr()
	}
	s.mu.Unlock()
	s.log.Info("listening", "addr", l.Addr().String(), "host_key", s.fingerprint)
	err := s.ssh.Serve(l)
	if errors.Is(err, ssh.ErrServerClosed) || s.isClosing() {
		return ErrServerClosed
	}
	return fmt.Errorf("server: serve %s: %w", l.Addr(), err)
}

// Addr returns the address of the first listener Serve was given, or nil
// before that.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// connectionFailed logs a failed handshake. The client version is the
// client's own text, hence %q.
func (s *Server) connectionFailed(conn net.Conn, err error) {
	s.log.Debug(fmt.Sprintf("handshake failed: %q", err.Error()), "remote", conn.RemoteAddr().String())
}

// isClosing reports whether Shutdown or Close has begun.
func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// closeDeadline is when sessions still running at a shutdown are closed
// (zero before a shutdown).
func (s *Server) closeDeadline() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closeBy
}

// trackConn registers a new connection, unless the server is closing.
func (s *Server) trackConn(cs *connState) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.conns[cs] = struct{}{}
	return true
}

// untrackConn forgets a closed connection.
func (s *Server) untrackConn(cs *connState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, cs)
}

// addSession registers a starting session, unless the server is closing.
func (s *Server) addSession(st *sessionState) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.sessions[st] = struct{}{}
	if s.memory != nil {
		s.memory.sessionsNow(len(s.sessions))
	}
	return true
}

// removeSession forgets an ended session.
func (s *Server) removeSession(st *sessionState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, st)
	if s.memory != nil {
		s.memory.sessionsNow(len(s.sessions))
	}
	if s.closing && len(s.sessions) == 0 && s.drained != nil {
		select {
		case <-s.drained:
		default:
			close(s.drained)
		}
	}
}

// counts reports the open connections and running sessions.
func (s *Server) counts() (conns, sessions int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns), len(s.sessions)
}

// Counts reports the open connections and running sessions, for metrics.
func (s *Server) Counts() (conns, sessions int) { return s.counts() }
