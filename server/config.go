package server

import (
	"fmt"
	"os"
	"time"

	"github.com/charmbracelet/log"
	gossh "golang.org/x/crypto/ssh"
)

// Defaults of [Config]. A zero field in Config means the default below; the
// limits cannot be switched off, only moved.
const (
	DefaultListen           = ":23234"
	DefaultHostKeyFile      = "host_ed25519"
	DefaultHandshakeTimeout = 20 * time.Second
	DefaultMaxConns         = 500
	DefaultMaxConnsPerIP    = 8
	DefaultMaxUnauthPerIP   = 4
	DefaultSessionsPerConn  = 2
	DefaultReadBurst        = 1 << 20  // bytes a connection may send at once
	DefaultReadRate         = 32 << 10 // bytes per second after the burst
	DefaultIdleTimeout      = 15 * time.Minute
	DefaultMaxSessionTime   = 12 * time.Hour
	DefaultShutdownGrace    = 10 * time.Second
)

// DefaultHostKeyPath is where the host key lives when Config.HostKeyPath is
// empty: host_ed25519 in the default data directory ./data.
const DefaultHostKeyPath = "data/" + DefaultHostKeyFile

// Config holds the server's settings. The zero value of each field means its
// default (see the Default constants).
type Config struct {
	// Listen is the TCP address ListenAndServe listens on.
	Listen string
	// HostKeyPath is the ed25519 host key file. It is generated on first
	// start (directory 0700, file 0600) and reused afterwards; New fails if
	// it can be neither read nor created.
	HostKeyPath string
	// Guests lets clients without an SSH key in (through a keyboard-interactive
	// exchange that asks nothing). Their Session has no identity. When false,
	// such clients are refused with a message telling them how to make a key.
	Guests bool
	// AllowKey, when set, decides whether a public key may log in (an
	// allowlist or a ban list). It only says yes or no: the identity of a
	// session always comes from the key the client proved, read inside the
	// session. It must be quick and must not block.
	AllowKey func(key gossh.PublicKey) bool
	// Refusal is what a client is told when it offers no key the server
	// accepts and guests are not allowed. Empty means a message telling
	// them how to make a key; a club server with an allowlist says how to
	// get on it.
	Refusal string

	// HandshakeTimeout bounds the time from accepting a connection (or from
	// the end of its last session) to the start of a shell or command.
	HandshakeTimeout time.Duration
	// MaxConns caps open connections overall, checked before the handshake.
	MaxConns int
	// MaxConnsPerIP caps open connections per client address (IPv6 by /64).
	MaxConnsPerIP int
	// MaxUnauthPerIP caps connections per client address that have not yet
	// authenticated.
	MaxUnauthPerIP int
	// SessionsPerConn caps concurrent session channels on one connection.
	SessionsPerConn int
	// ReadBudget bounds the bytes a client may send; a connection that
	// overdraws it is closed.
	ReadBudget ReadBudget
	// IdleTimeout ends a session that has had no input (keystrokes, mouse,
	// paste) for this long. Output and SSH keepalives do not count.
	IdleTimeout time.Duration
	// MaxSessionTime bounds the life of a connection and of every session on
	// it, whatever the activity.
	MaxSessionTime time.Duration
	// ShutdownGrace is how long Shutdown waits for sessions to end by
	// themselves before it closes them.
	ShutdownGrace time.Duration

	// Logger receives connection and session events. Nil means a logger on
	// standard error.
	Logger *log.Logger
}

// ReadBudget is a token bucket over the bytes read from one connection: a
// client may send Burst bytes at once and PerSecond bytes each second after
// that. Playing needs a few bytes per key; anything near the budget is a
// flood.
type ReadBudget struct {
	// Burst is the bucket size in bytes.
	Burst int
	// PerSecond is the refill rate in bytes per second.
	PerSecond int
}

// withDefaults returns cfg with every zero field set to its default, or an
// error naming a field that makes no sense.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	if cfg.HostKeyPath == "" {
		cfg.HostKeyPath = DefaultHostKeyPath
	}
	durations := []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"HandshakeTimeout", &cfg.HandshakeTimeout, DefaultHandshakeTimeout},
		{"IdleTimeout", &cfg.IdleTimeout, DefaultIdleTimeout},
		{"MaxSessionTime", &cfg.MaxSessionTime, DefaultMaxSessionTime},
		{"ShutdownGrace", &cfg.ShutdownGrace, DefaultShutdownGrace},
	}
	for _, d := range durations {
		if *d.v < 0 {
			return cfg, fmt.Errorf("server config: %s is negative (%s)", d.name, *d.v)
		}
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	ints := []struct {
		name string
		v    *int
		def  int
	}{
		{"MaxConns", &cfg.MaxConns, DefaultMaxConns},
		{"MaxConnsPerIP", &cfg.MaxConnsPerIP, DefaultMaxConnsPerIP},
		{"MaxUnauthPerIP", &cfg.MaxUnauthPerIP, DefaultMaxUnauthPerIP},
		{"SessionsPerConn", &cfg.SessionsPerConn, DefaultSessionsPerConn},
		{"ReadBudget.Burst", &cfg.ReadBudget.Burst, DefaultReadBurst},
		{"ReadBudget.PerSecond", &cfg.ReadBudget.PerSecond, DefaultReadRate},
	}
	for _, n := range ints {
		if *n.v < 0 {
			return cfg, fmt.Errorf("server config: %s is negative (%d)", n.name, *n.v)
		}
		if *n.v == 0 {
			*n.v = n.def
		}
	}
	if cfg.Logger == nil {
		cfg.Logger = log.NewWithOptions(os.Stderr, log.Options{ReportTimestamp: true, Prefix: "ssh"})
	}
	return cfg, nil
}
