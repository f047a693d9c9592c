package server

import (
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
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
	DefaultWriteTimeout     = time.Minute
	DefaultLogInterval      = 10 * time.Second
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
	// Startups is the budget of connections that have not yet
	// authenticated, overall (OpenSSH's MaxStartups): the zero value means
	// 10:30:100 scaled to MaxConns (Full = MaxConns/5).
	Startups Startups
	// Penalties make addresses whose connections time out or close before
	// they log in wait before they are served again (OpenSSH's
	// PerSourcePenalties). The zero value means DefaultPenalties.
	Penalties Penalties
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
	// WriteTimeout ends a session whose output has been blocked this long
	// (its client stopped reading; its window is full).
	WriteTimeout time.Duration
	// LogInterval is how often refusals and failed logins are summed up in
	// the log: the first of an address in an interval gets a line at once,
	// the rest one summary line at the end of the interval.
	LogInterval time.Duration
	// TrustedProxies lists the addresses of load balancers that send a
	// PROXY protocol (v1 or v2) header before the SSH stream: connections
	// from them must start with one, and the address it carries is the
	// client's for the limits and logs. A PROXY header from any other
	// address is refused. Empty means no PROXY header is accepted.
	TrustedProxies []netip.Prefix
	// KeepMemory leaves the memory of ended sessions to the Go runtime. By
	// default it is returned to the operating system as soon as the load
	// has halved (debug.FreeOSMemory, at most every 10 s): after 500
	// sessions ended the process went from 119 MiB to 56 MiB within a
	// second this way, and stayed at 119 MiB for minutes without it.
	KeepMemory bool
	// ShutdownGrace is how long Shutdown waits for sessions to end by
	// themselves before it closes them.
	ShutdownGrace time.Duration

	// Logger receives connection and session events. Nil means a logger on
	// standard error.
	Logger *log.Logger
}

// trustsEveryAddress reports whether TrustedProxies holds a prefix of
// length 0 (0.0.0.0/0 or ::/0): every client may then say which address
// it is.
func (cfg Config) trustsEveryAddress() bool {
	for _, p := range cfg.TrustedProxies {
		if p.Bits() == 0 {
			return true
		}
	}
	return false
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
		{"WriteTimeout", &cfg.WriteTimeout, DefaultWriteTimeout},
		{"LogInterval", &cfg.LogInterval, DefaultLogInterval},
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
	if err := cfg.Startups.check(cfg.MaxConns); err != nil {
		return cfg, err
	}
	if cfg.Startups == (Startups{}) {
		full := max(cfg.MaxConns/5, 1)
		cfg.Startups = Startups{Start: max(full/10, 1), Rate: 30, Full: full}
	}
	if err := cfg.Penalties.check(); err != nil {
		return cfg, err
	}
	if cfg.Penalties == (Penalties{}) {
		cfg.Penalties = DefaultPenalties
	}
	if cfg.Logger == nil {
		cfg.Logger = log.NewWithOptions(os.Stderr, log.Options{ReportTimestamp: true, Prefix: "ssh"})
	}
	return cfg, nil
}

// Startups is the budget of connections that have not authenticated yet, in
// the form of OpenSSH's MaxStartups start:rate:full. Below Start every
// connection is admitted; from Start on, a connection from an address that
// already has one logging in is dropped with a chance rising linearly from
// Rate % to 100 % at Full; at Full none is admitted, except that a first
// connection from an address takes the place of the oldest of an address
// holding several (or of a stale one), so newcomers get in during a flood.
type Startups struct {
	Start, Rate, Full int
}

// String formats s as start:rate:full.
func (s Startups) String() string { return fmt.Sprintf("%d:%d:%d", s.Start, s.Rate, s.Full) }

// ParseStartups parses "start:rate:full" (or a single number, the full
// mark, as OpenSSH allows). An empty string gives the zero value: the
// default.
func ParseStartups(text string) (Startups, error) {
	if text == "" {
		return Startups{}, nil
	}
	parts := strings.Split(text, ":")
	if len(parts) != 1 && len(parts) != 3 {
		return Startups{}, fmt.Errorf("startups %q: want start:rate:full, e.g. 10:30:100", text)
	}
	nums := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 {
			return Startups{}, fmt.Errorf("startups %q: %q is not a positive number", text, p)
		}
		nums[i] = n
	}
	if len(nums) == 1 {
		return Startups{Start: nums[0], Rate: 100, Full: nums[0]}, nil
	}
	return Startups{Start: nums[0], Rate: nums[1], Full: nums[2]}, nil
}

// check reports a budget that makes no sense for maxConns (0: the default).
func (s Startups) check(maxConns int) error {
	if s == (Startups{}) {
		return nil
	}
	switch {
	case s.Start <= 0 || s.Full <= 0 || s.Rate <= 0:
		return fmt.Errorf("server config: Startups %s: every field must be positive", s)
	case s.Start > s.Full:
		return fmt.Errorf("server config: Startups %s: start is above full", s)
	case s.Rate > 100:
		return fmt.Errorf("server config: Startups %s: rate is a percentage", s)
	case maxConns > 0 && s.Full > maxConns:
		return fmt.Errorf("server config: Startups %s: full is above MaxConns (%d)", s, maxConns)
	}
	return nil
}

// dropChance is the chance that a connection arriving with n connections
// logging in is dropped, between Start and Full.
func (s Startups) dropChance(n int) float64 {
	if s.Full <= s.Start {
		return 1
	}
	r := float64(s.Rate) + float64(100-s.Rate)*float64(n-s.Start)/float64(s.Full-s.Start)
	return min(r, 100) / 100
}

// Penalties are the waits imposed on an address whose connections do not
// log in: each one that hits the handshake deadline adds Timeout to the
// address's penalty, each one that closes before authenticating adds NoAuth;
// the penalty runs down in real time, up to Max, and the address is refused
// while its penalty is above Min. So one slow login costs nothing, and an
// address that keeps connections half-open is shut out for longer and
// longer.
type Penalties struct {
	Timeout, NoAuth, Min, Max time.Duration
	// Off switches penalties off.
	Off bool
}

// DefaultPenalties are the penalties of a zero Config.
var DefaultPenalties = Penalties{Timeout: 10 * time.Second, NoAuth: time.Second, Min: 15 * time.Second, Max: 10 * time.Minute}

// String formats p as timeout:noauth:min:max, or "off".
func (p Penalties) String() string {
	if p.Off {
		return "off"
	}
	return fmt.Sprintf("%s:%s:%s:%s", p.Timeout, p.NoAuth, p.Min, p.Max)
}

// ParsePenalties parses "timeout:noauth:min:max" (durations such as 10s) or
// "off". An empty string gives the zero value: the default.
func ParsePenalties(text string) (Penalties, error) {
	switch text {
	case "":
		return Penalties{}, nil
	case "off":
		return Penalties{Off: true}, nil
	}
	parts := strings.Split(text, ":")
	if len(parts) != 4 {
		return Penalties{}, fmt.Errorf("penalties %q: want timeout:noauth:min:max, e.g. 10s:1s:15s:10m, or off", text)
	}
	var d [4]time.Duration
	for i, part := range parts {
		v, err := time.ParseDuration(part)
		if err != nil || v < 0 {
			return Penalties{}, fmt.Errorf("penalties %q: %q is not a duration", text, part)
		}
		d[i] = v
	}
	p := Penalties{Timeout: d[0], NoAuth: d[1], Min: d[2], Max: d[3]}
	return p, p.check()
}

// check reports penalties that make no sense.
func (p Penalties) check() error {
	if p.Off || p == (Penalties{}) {
		return nil
	}
	if p.Timeout < 0 || p.NoAuth < 0 || p.Min < 0 || p.Max <= p.Min {
		return fmt.Errorf("server config: Penalties %s: want non-negative waits and max above min", p)
	}
	return nil
}

// ParsePrefixes parses a comma-separated list of IP addresses and CIDR
// prefixes ("10.0.0.5, 192.168.1.0/24, ::1"); a bare address is a prefix of
// its full length. An empty string gives none.
func ParsePrefixes(text string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range strings.Split(text, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if strings.Contains(item, "/") {
			p, err := netip.ParsePrefix(item)
			if err != nil {
				return nil, fmt.Errorf("address list: %w", err)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(item)
		if err != nil {
			return nil, fmt.Errorf("address list: %w", err)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
