package server

import (
	"bufio"
	"errors"
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

func TestLimiter(t *testing.T) {
	l := newLimiter(Config{MaxConns: 3, MaxConnsPerIP: 2, MaxUnauthPerIP: 1})
	steps := []struct {
		name string
		do   func() error
		want error
	}{
		{"first from a", func() error { return l.admit("a") }, nil},
		{"second unauthenticated from a", func() error { return l.admit("a") }, errIPUnauthFull},
		{"a authenticates", func() error { l.authenticated("a"); return nil }, nil},
		{"second from a", func() error { return l.admit("a") }, nil},
		{"third from a", func() error { return l.admit("a") }, errIPFull},
		{"first from b", func() error { return l.admit("b") }, nil},
		{"first from c: server full", func() error { return l.admit("c") }, errServerFull},
		{"b leaves unauthenticated", func() error { l.release("b", false); return nil }, nil},
		{"c now fits", func() error { return l.admit("c") }, nil},
	}
	for _, s := range steps {
		if got := s.do(); !errors.Is(got, s.want) && got != s.want {
			t.Fatalf("%s: got %v, want %v", s.name, got, s.want)
		}
	}
	l.release("a", true)
	l.release("a", false)
	l.release("c", false)
	if l.total != 0 || len(l.perIP) != 0 || len(l.unauth) != 0 {
		t.Errorf("after releasing everything: total %d, perIP %v, unauth %v", l.total, l.perIP, l.unauth)
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
// the SSH protocol on it (sent its version line) rather than closing it.
func rawConnect(t *testing.T, addr string) (net.Conn, bool) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(conn).ReadString('\n')
	_ = conn.SetReadDeadline(time.Time{})
	return conn, err == nil && strings.HasPrefix(line, "SSH-2.0-")
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

// The env flood of ssh-hardening.md §1.4: 500 env requests of 100 KiB on one
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
	cfg.IdleTimeout = 400 * time.Millisecond
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
	ticking.WaitFor(t, "without input", 2*time.Second)
	if got := ticking.ExitStatus(2 * time.Second); got != 0 {
		t.Errorf("idle session exit status %d, want 0", got)
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
	if got := term.ExitStatus(2 * time.Second); got != 0 {
		t.Errorf("exit status %d, want 0", got)
	}
}
