package server

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/server/sshtest"
)

func TestIPKey(t *testing.T) {
	tests := []struct{ addr, want string }{
		{"192.0.2.7:22", "192.0.2.7"},
		{"[::ffff:192.0.2.7]:22", "192.0.2.7"},
		{"[2001:db8:1:2:3:4:5:6]:22", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff:ffff:ffff:ffff]:9", "2001:db8:1:2::/64"},
		{"[fe80::1%eth0]:22", "fe80::/64"},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			addr, err := net.ResolveTCPAddr("tcp", tt.addr)
			if err != nil {
				t.Fatalf("resolve: %v", err)
			}
			if got := ipKey(addr); got != tt.want {
				t.Errorf("ipKey(%s) = %q, want %q", tt.addr, got, tt.want)
			}
		})
	}
}

// fakeConns makes connection states for limiter tests, started one
// millisecond apart on a fake clock.
type fakeConns struct {
	now time.Time
}

func (f *fakeConns) conn(key string) *connState {
	f.now = f.now.Add(time.Millisecond)
	return &connState{key: key, started: f.now}
}

func refusalKind(err error) string {
	var r *refusal
	if errors.As(err, &r) {
		return r.kind
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

func TestLimiter(t *testing.T) {
	f := &fakeConns{now: time.Unix(1000, 0)}
	l := newLimiter(Config{MaxConns: 3, MaxConnsPerIP: 2, MaxUnauthPerIP: 1, Startups: Startups{3, 100, 3}, Penalties: Penalties{Off: true}},
		func() time.Time { return f.now }, func() float64 { return 0.5 })
	a1, a2, a3, b1, c1 := f.conn("a"), f.conn("a"), f.conn("a"), f.conn("b"), f.conn("c")
	admit := func(cs *connState) func() error {
		return func() error { _, err := l.admit(cs); return err }
	}
	steps := []struct {
		name string
		do   func() error
		want string
	}{
		{"first from a", admit(a1), ""},
		{"second unauthenticated from a", admit(f.conn("a")), refusedAddressLogin},
		{"a authenticates", func() error { l.authenticated(a1); return nil }, ""},
		{"second from a", admit(a2), ""},
		{"a authenticates again", func() error { l.authenticated(a2); return nil }, ""},
		{"third from a", admit(a3), refusedAddressFull},
		{"first from b", admit(b1), ""},
		{"first from c: server full", admit(c1), refusedServerFull},
		{"b leaves unauthenticated", func() error { l.release(b1, false, false); return nil }, ""},
		{"c now fits", admit(c1), ""},
	}
	for _, s := range steps {
		if got := refusalKind(s.do()); got != s.want {
			t.Fatalf("%s: got %q, want %q", s.name, got, s.want)
		}
	}
	l.release(a1, true, false)
	l.release(a2, true, false)
	l.release(c1, false, false)
	if l.total != 0 || len(l.perIP) != 0 || len(l.unauth) != 0 || l.unauthTotal != 0 {
		t.Errorf("after releasing everything: total %d, perIP %v, unauth %v (%d)", l.total, l.perIP, l.unauth, l.unauthTotal)
	}
}

// The startups budget: random early drop between start and full for
// addresses already logging in, none for a first connection; at full a
// newcomer takes the place of the oldest connection of the address holding
// the most, or of a stale one.
func TestLimiterStartups(t *testing.T) {
	f := &fakeConns{now: time.Unix(1000, 0)}
	chance := 0.0
	l := newLimiter(Config{MaxConns: 100, MaxConnsPerIP: 10, MaxUnauthPerIP: 10, Startups: Startups{Start: 2, Rate: 50, Full: 4}, Penalties: Penalties{Off: true}},
		func() time.Time { return f.now }, func() float64 { return chance })
	flood1, flood2 := f.conn("flood"), f.conn("flood")
	for _, cs := range []*connState{flood1, flood2} {
		if _, err := l.admit(cs); err != nil {
			t.Fatalf("below start: %v", err)
		}
	}
	if got := l.startups.dropChance(2); got != 0.5 {
		t.Errorf("drop chance at start = %v, want 0.5", got)
	}
	if got := l.startups.dropChance(3); got != 0.75 {
		t.Errorf("drop chance halfway = %v, want 0.75", got)
	}
	chance = 0 // always under: but an address's own logins are its allowance, not the server's load
	flood3 := f.conn("flood")
	if _, err := l.admit(flood3); err != nil {
		t.Fatalf("a third login of one address with nobody else logging in: %v", err)
	}
	// (The drop itself: TestEarlyDropCountsOtherAddresses.) A first
	// connection is never dropped either.
	first := f.conn("newcomer")
	if _, err := l.admit(first); err != nil {
		t.Fatalf("first connection of an address dropped early: %v", err)
	}
	// Full now (3 flood + 1 newcomer). Another newcomer evicts the oldest
	// flood connection.
	second := f.conn("other")
	victim, err := l.admit(second)
	if err != nil || victim != flood1 {
		t.Fatalf("newcomer at full: victim %v, err %v; want the oldest flood connection", victim, err)
	}
	if got := len(l.unauth["flood"]); got != 2 {
		t.Errorf("flood holds %d login slots after eviction, want 2", got)
	}
	l.release(flood1, false, false)
	// flood 2, newcomer 1, other 1: a third newcomer evicts flood again (2 ≥ 0+2).
	if victim, err := l.admit(f.conn("third")); err != nil || victim != flood2 {
		t.Fatalf("third newcomer: victim %v, err %v; want flood's oldest", victim, err)
	}
	l.release(flood2, false, false)
	// Everyone holds one now, none stale: a fourth newcomer is refused...
	if _, err := l.admit(f.conn("fourth")); refusalKind(err) != refusedStartupsFull {
		t.Fatalf("fourth newcomer with no stale connection: %v, want startups_full", err)
	}
	// ...and an address that already holds one is refused too.
	if _, err := l.admit(f.conn("newcomer")); refusalKind(err) != refusedStartupsFull {
		t.Fatalf("second connection of an address at full: %v, want startups_full", err)
	}
	// Once the oldest is stale, a newcomer takes its place.
	f.now = f.now.Add(staleLogin)
	if victim, err := l.admit(f.conn("fifth")); err != nil || victim != flood3 {
		t.Fatalf("fifth newcomer: victim %v, err %v; want the stale flood3", victim, err)
	}
}

func TestLimiterPenalties(t *testing.T) {
	f := &fakeConns{now: time.Unix(1000, 0)}
	l := newLimiter(Config{MaxConns: 100, MaxConnsPerIP: 10, MaxUnauthPerIP: 10, Startups: Startups{100, 100, 100},
		Penalties: Penalties{Timeout: 10 * time.Second, NoAuth: time.Second, Min: 15 * time.Second, Max: time.Minute}},
		func() time.Time { return f.now }, func() float64 { return 1 })
	open := func(key string) *connState {
		t.Helper()
		cs := f.conn(key)
		if _, err := l.admit(cs); err != nil {
			t.Fatalf("admit %s: %v", key, err)
		}
		return cs
	}
	// One timeout and a few quick closes cost nothing yet.
	l.release(open("slow"), false, true)
	for range 4 {
		l.release(open("slow"), false, false)
	}
	open("slow") // 14 s of penalty: under the 15 s minimum
	l.release(open("slow"), false, true)
	_, err := l.admit(f.conn("slow"))
	var r *refusal
	if !errors.As(err, &r) || r.kind != refusedPenalised || !strings.Contains(r.msg, "try again in 9s") {
		t.Fatalf("after two timeouts: %v, want a penalty with 9s left", err)
	}
	// Logged-in connections and other addresses are not penalised.
	ok := open("fine")
	l.authenticated(ok)
	l.release(ok, true, false)
	open("fine")
	// The penalty runs down in real time.
	f.now = f.now.Add(9 * time.Second)
	open("slow")
	// And is capped at Max.
	var capped []*connState
	for range 10 {
		capped = append(capped, open("capped"))
	}
	for _, cs := range capped {
		l.release(cs, false, true)
	}
	f.now = f.now.Add(time.Minute - 15*time.Second)
	open("capped")
	if len(l.penalty) > 3 {
		t.Errorf("penalty table %v", l.penalty)
	}
}

func TestParseStartupsAndPenalties(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Startups
		err  bool
	}{
		{"", Startups{}, false},
		{"10:30:100", Startups{10, 30, 100}, false},
		{"50", Startups{50, 100, 50}, false},
		{"10:30", Startups{}, true},
		{"a:30:100", Startups{}, true},
		{"0:30:100", Startups{}, true},
	} {
		got, err := ParseStartups(tt.in)
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("ParseStartups(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
	for _, tt := range []struct {
		in   string
		want Penalties
		err  bool
	}{
		{"", Penalties{}, false},
		{"off", Penalties{Off: true}, false},
		{"10s:1s:15s:10m", DefaultPenalties, false},
		{"10s:1s:15s", Penalties{}, true},
		{"10s:1s:15s:5s", Penalties{}, true},
		{"x:1s:15s:10m", Penalties{}, true},
	} {
		got, err := ParsePenalties(tt.in)
		if (err != nil) != tt.err || (!tt.err && got != tt.want) {
			t.Errorf("ParsePenalties(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
	if _, err := (Config{MaxConns: 50, Startups: Startups{10, 30, 100}}).withDefaults(); err == nil {
		t.Error("startups full above MaxConns accepted")
	}
	cfg, err := Config{MaxConns: 200}.withDefaults()
	if err != nil || cfg.Startups != (Startups{4, 30, 40}) || cfg.Penalties != DefaultPenalties {
		t.Errorf("defaults for MaxConns 200: %v %v, %v", cfg.Startups, cfg.Penalties, err)
	}
}

func TestBudget(t *testing.T) {
	now := time.Unix(1000, 0)
	b := newBudget(ReadBudget{Burst: 1000, PerSecond: 100}, func() time.Time { return now })
	if !b.take(1000) {
		t.Fatal("the burst should cover 1000 bytes")
	}
	if b.take(1) {
		t.Fatal("1 byte over an empty bucket should overdraw it")
	}
	b = newBudget(ReadBudget{Burst: 1000, PerSecond: 100}, func() time.Time { return now })
	b.take(1000)
	now = now.Add(2 * time.Second)
	if !b.take(200) {
		t.Fatal("2 s at 100 B/s should refill 200 bytes")
	}
	now = now.Add(time.Hour)
	if !b.take(1000) || b.take(1) {
		t.Fatal("the bucket should refill to the burst and no further")
	}
}

// rawConnect opens a TCP connection and reports whether the server started
// the SSH key exchange on it rather than refusing it.
func rawConnect(t *testing.T, addr string) (net.Conn, bool) {
	t.Helper()
	conn, msg := rawConnectMsg(t, addr)
	return conn, msg == ""
}

// rawConnectMsg opens a TCP connection and returns the disconnect message
// the server refused it with: "" if the server started the key exchange
// instead, "(closed)" if it closed the connection without a word.
func rawConnectMsg(t *testing.T, addr string) (net.Conn, string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	if _, err := io.WriteString(conn, "SSH-2.0-rawtest\r\n"); err != nil {
		return conn, "(closed)"
	}
	return conn, readGreeting(conn)
}

// readGreeting reads the server's version line and first packet: "" for a
// key exchange, the message of a disconnect, or "(closed)".
func readGreeting(conn net.Conn) string {
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	defer func() { _ = conn.SetReadDeadline(time.Time{}) }()
	br := bufio.NewReader(conn)
	line, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "SSH-2.0-") {
		return "(closed)"
	}
	var head [6]byte
	if _, err := io.ReadFull(br, head[:]); err != nil {
		return "(closed)"
	}
	size := int(binary.BigEndian.Uint32(head[:4]))
	if size > 1<<16 {
		return "(closed)"
	}
	body := make([]byte, size-2)
	if _, err := io.ReadFull(br, body); err != nil {
		return "(closed)"
	}
	switch head[5] {
	case 20: // SSH_MSG_KEXINIT
		return ""
	case 1: // SSH_MSG_DISCONNECT: code, string
		n := binary.BigEndian.Uint32(body[4:8])
		return string(body[8 : 8+n])
	}
	return fmt.Sprintf("(message %d)", head[5])
}

// waitClosed waits for the server to close conn and returns how long it took.
func waitClosed(t *testing.T, conn net.Conn, timeout time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	_ = conn.SetReadDeadline(start.Add(timeout))
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("connection still open after %s", timeout)
	}
	return time.Since(start)
}

func TestHandshakeTimeout(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.HandshakeTimeout = 300 * time.Millisecond
	_, addr := startServer(t, cfg, &testApp{})

	t.Run("silent client", func(t *testing.T) {
		conn, ok := rawConnect(t, addr)
		if !ok {
			t.Fatal("server did not greet")
		}
		if d := waitClosed(t, conn, 3*time.Second); d > 2*time.Second {
			t.Errorf("closed after %s, want about 300ms", d)
		}
	})
	t.Run("authenticated without a session", func(t *testing.T) {
		client, err := gossh.Dial("tcp", addr, sshtest.ClientConfig("idle", sshtest.NewKey(t)))
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		defer client.Close() //nolint:errcheck // test
		done := make(chan error, 1)
		go func() { done <- client.Wait() }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			t.Fatal("connection without a session still open after 3s")
		}
	})
	t.Run("a running session is not cut", func(t *testing.T) {
		client := sshtest.Dial(t, addr, sshtest.NewKey(t))
		term := sshtest.OpenTerm(t, client, sshtest.TermOptions{})
		term.WaitFor(t, "size:", 2*time.Second)
		select {
		case <-term.Done():
			t.Fatal("session ended by the handshake timeout")
		case <-time.After(4 * cfg.HandshakeTimeout):
		}
		if err := term.Type("k"); err != nil {
			t.Fatalf("type: %v", err)
		}
		term.WaitFor(t, "key: [k]", 2*time.Second)
	})
}

func TestConnectionCaps(t *testing.T) {
	t.Run("per address", func(t *testing.T) {
		cfg, _ := testConfig(t)
		cfg.MaxConnsPerIP, cfg.MaxUnauthPerIP = 2, 2
		_, addr := startServer(t, cfg, &testApp{})
		first, ok1 := rawConnect(t, addr)
		_, ok2 := rawConnect(t, addr)
		third, ok3 := rawConnect(t, addr)
		if !ok1 || !ok2 || ok3 {
			t.Fatalf("greeted: %v %v %v, want true true false", ok1, ok2, ok3)
		}
		waitClosed(t, third, time.Second)
		_ = first.Close()
		sshtest.Eventually(t, 2*time.Second, func() bool {
			c, ok := rawConnect(t, addr)
			_ = c.Close()
			return ok
		}, "a slot should free up when a connection closes")
	})
	t.Run("unauthenticated per address", func(t *testing.T) {
		cfg, _ := testConfig(t)
		cfg.MaxConnsPerIP, cfg.MaxUnauthPerIP = 4, 1
		_, addr := startServer(t, cfg, &testApp{})
		key := sshtest.NewKey(t)
		client := sshtest.Dial(t, addr, key) // authenticated: holds no unauth slot once it has a session
		if _, _, status := sshtest.Exec(t, client, "help"); status != 0 {
			t.Fatalf("help status %d", status)
		}
		stalled, ok := rawConnect(t, addr)
		if !ok {
			t.Fatal("first unauthenticated connection refused")
		}
		if _, ok := rawConnect(t, addr); ok {
			t.Fatal("second unauthenticated connection from the same address accepted")
		}
		_ = stalled.Close()
		sshtest.Eventually(t, 2*time.Second, func() bool {
			c, err := gossh.Dial("tcp", addr, sshtest.ClientConfig("p", key))
			if err == nil {
				_ = c.Close()
			}
			return err == nil
		}, "login should work again once the stalled connection is gone")
	})
	t.Run("overall", func(t *testing.T) {
		cfg, _ := testConfig(t)
		cfg.MaxConns = 1
		_, addr := startServer(t, cfg, &testApp{})
		if _, ok := rawConnect(t, addr); !ok {
			t.Fatal("first connection refused")
		}
		if _, ok := rawConnect(t, addr); ok {
			t.Fatal("second connection accepted over MaxConns = 1")
		}
	})
}

func TestSessionsPerConnection(t *testing.T) {
	cfg, _ := testConfig(t)
	srv, addr := startServer(t, cfg, &testApp{})
	client := sshtest.Dial(t, addr, sshtest.NewKey(t))
	a := sshtest.OpenTerm(t, client, sshtest.TermOptions{})
	sshtest.OpenTerm(t, client, sshtest.TermOptions{}).WaitFor(t, "size:", 2*time.Second)
	_, err := client.NewSession()
	var open *gossh.OpenChannelError
	if !errors.As(err, &open) || open.Reason != gossh.ResourceShortage {
		t.Fatalf("third session: %v, want a resource-shortage rejection", err)
	}
	_ = a.Close()
	waitSessions(t, srv, 1, 2*time.Second)
	sshtest.Eventually(t, 2*time.Second, func() bool {
		s, err := client.NewSession()
		if err == nil {
			_ = s.Close()
		}
		return err == nil
	}, "a session slot should free up when a session closes")
}

// An env flood (a problem of the SSH library reproduced upstream): 500 env requests of 100 KiB on one
// connection. The read budget cuts the connection off and the server's
// memory does not follow the flood.
func TestEnvFloodIsCutOff(t *testing.T) {
	cfg, logs := testConfig(t)
	_, addr := startServer(t, cfg, &testApp{})
	client := sshtest.Dial(t, addr, sshtest.NewKey(t))
	sess, err := client.NewSession()
	if err != nil {
		t.Fatalf("new session: %v", err)
	}

	var peak uint64
	base := heapInUse()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			if h := heapInUse(); h > peak {
				peak = h
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()

	payload := gossh.Marshal(struct{ Name, Value string }{"LC_FLOOD", strings.Repeat("x", 100<<10)})
	sent := 0
	for ; sent < 500; sent++ {
		if _, err := sess.SendRequest("env", false, payload); err != nil {
			break
		}
	}
	done := make(chan error, 1)
	go func() { done <- client.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("connection still open after the flood")
	}
	close(stop)
	wg.Wait()
	growth := int64(peak) - int64(base)
	t.Logf("sent %d of 500 requests before the cut; heap peak growth %d KiB", sent, growth>>10)
	if growth > 16<<20 {
		t.Errorf("heap grew by %d MiB during the flood, want < 16 MiB", growth>>20)
	}
	if !strings.Contains(logs.String(), errReadBudget.Error()) {
		t.Error("log does not say the read budget was exceeded")
	}
}

func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func TestIdleTimeoutIsDrivenByInput(t *testing.T) {
	cfg, _ := testConfig(t)
	// Long enough that a key's round trip on a loaded machine stays well
	// inside it: the typing session presses a key every quarter of it.
	cfg.IdleTimeout = time.Second
	_, addr := startServer(t, cfg, &testApp{})
	client := sshtest.Dial(t, addr, sshtest.NewKey(t))

	// A program that redraws by itself produces output but no input.
	ticking := sshtest.OpenTerm(t, client, sshtest.TermOptions{Command: "tick"})
	ticking.WaitFor(t, "ticks: 2", 2*time.Second)
	typing := sshtest.OpenTerm(t, client, sshtest.TermOptions{})
	typing.WaitFor(t, "size:", 2*time.Second)

	deadline := time.Now().Add(3 * cfg.IdleTimeout)
	for i := 0; time.Now().Before(deadline); i++ {
		key := typingKeys[i%len(typingKeys)]
		if err := typing.Type(key); err != nil {
			t.Fatalf("typing session ended early: %v", err)
		}
		typing.WaitFor(t, "key: ["+key+"]", time.Second)
		select {
		case <-typing.Done():
			t.Fatal("the typing session was ended as idle")
		case <-time.After(cfg.IdleTimeout / 4):
		}
	}
	ticking.WaitFor(t, "without input", 3*time.Second)
	if got := ticking.ExitStatus(2 * time.Second); got != 1 {
		t.Errorf("idle session exit status %d, want 1: the server ended it", got)
	}
	select {
	case <-typing.Done():
		t.Fatal("the typing session ended")
	default:
	}
}

func TestMaxSessionTime(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.MaxSessionTime = 600 * time.Millisecond
	_, addr := startServer(t, cfg, &testApp{})
	client := sshtest.Dial(t, addr, sshtest.NewKey(t))
	term := sshtest.OpenTerm(t, client, sshtest.TermOptions{})
	term.WaitFor(t, "size:", 2*time.Second)
	term.WaitFor(t, "sessions last at most", 3*time.Second)
	if got := term.ExitStatus(2 * time.Second); got != 1 {
		t.Errorf("exit status %d, want 1: the server ended it", got)
	}
}

// Issue 12 item 3: a refused client is told which limit it hit, in an SSH
// disconnect message, instead of a bare close.
func TestRefusalsSayWhy(t *testing.T) {
	tests := []struct {
		name  string
		setup func(*Config)
		want  string
	}{
		{"per address", func(c *Config) { c.MaxConnsPerIP, c.MaxUnauthPerIP = 1, 1 }, "--max-conns-per-ip"},
		{"logging in per address", func(c *Config) { c.MaxUnauthPerIP = 1 }, "--max-unauth-per-ip"},
		{"overall", func(c *Config) { c.MaxConns = 1 }, "--max-conns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _ := testConfig(t)
			tt.setup(&cfg)
			_, addr := startServer(t, cfg, &testApp{})
			if _, ok := rawConnect(t, addr); !ok {
				t.Fatal("first connection refused")
			}
			_, err := gossh.Dial("tcp", addr, sshtest.ClientConfig("p", sshtest.NewKey(t)))
			if err == nil || !strings.Contains(err.Error(), "disconnect, reason 12") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("second connection: %v, want a disconnect naming %s", err, tt.want)
			}
		})
	}
}

// Issue 12 item 4: refusals from one address write a line, then one summary
// line per interval, however many there are; Stats counts every one.
func TestRefusalLogIsBounded(t *testing.T) {
	cfg, logs := testConfig(t)
	cfg.MaxConnsPerIP, cfg.MaxUnauthPerIP = 1, 1
	cfg.LogInterval = 2 * time.Second
	srv, addr := startServer(t, cfg, &testApp{})
	if _, ok := rawConnect(t, addr); !ok {
		t.Fatal("first connection refused")
	}
	const refusals = 200
	for range refusals {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		_, _ = io.Copy(io.Discard, c) // the server refuses and closes
		_ = c.Close()
	}
	sshtest.Eventually(t, 5*time.Second, func() bool {
		return strings.Contains(logs.String(), "more connection events")
	}, "no summary line")
	text := logs.String()
	if n := strings.Count(text, "connection refused"); n != 1 {
		t.Errorf("%d 'connection refused' lines, want 1", n)
	}
	if !strings.Contains(text, fmt.Sprintf("events=\"%s=%d\"", refusedAddressFull, refusals-1)) {
		t.Errorf("summary does not count %d more refusals:\n%s", refusals-1, text)
	}
	if got := srv.Stats().Refused[refusedAddressFull]; got != refusals {
		t.Errorf("Stats counts %d refusals, want %d", got, refusals)
	}
}

// A connection that has sent nothing past its version line for silentLogin
// is stale; one that has started its key exchange is not, until staleLogin.
func TestStaleLogins(t *testing.T) {
	now := time.Unix(1000, 0)
	conn := func(age time.Duration, sent int64) *connState {
		cs := &connState{started: now.Add(-age)}
		cs.conn = &trackedConn{cs: cs}
		cs.conn.bytesRead.Store(sent)
		return cs
	}
	for _, tt := range []struct {
		name string
		cs   *connState
		want bool
	}{
		{"new and silent", conn(100*time.Millisecond, 15), false},
		{"silent for a round trip too long", conn(silentLogin, 15), true},
		{"exchanging keys", conn(silentLogin, 1500), false},
		{"exchanging keys for too long", conn(staleLogin, 1500), true},
	} {
		if got := stale(tt.cs, now); got != tt.want {
			t.Errorf("%s: stale = %v, want %v", tt.name, got, tt.want)
		}
	}
}
