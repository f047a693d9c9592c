package server

import (
	"bytes"
	"context"
	"errors"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/server/sshtest"
)

func TestShutdownNotifiesAndWaits(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.ShutdownGrace = 5 * time.Second
	app := &testApp{}
	srv, addr := startServer(t, cfg, app)
	var terms []*sshtest.Term
	for range 3 {
		client := sshtest.Dial(t, addr, sshtest.NewKey(t))
		term := sshtest.OpenTerm(t, client, sshtest.TermOptions{})
		term.WaitFor(t, "size:", 2*time.Second)
		terms = append(terms, term)
	}
	execClient := sshtest.Dial(t, addr, sshtest.NewKey(t))
	execDone := make(chan string, 1)
	go func() {
		out, _, status := sshtest.Exec(t, execClient, "sleep")
		execDone <- strings.TrimSpace(out) + " " + string(rune('0'+status))
	}()
	waitSessions(t, srv, 4, 2*time.Second)

	start := time.Now()
	err := srv.Shutdown(context.Background())
	elapsed := time.Since(start)
	if err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if elapsed > 3*time.Second {
		t.Errorf("Shutdown took %s although every model quits within 100ms", elapsed)
	}
	if got := app.shutdowns.Load(); got != 3 {
		t.Errorf("%d programs got ShutdownMsg, want 3", got)
	}
	// The message says how long the program has: the 5 s grace less the
	// second the server keeps to close what is left.
	if g := time.Duration(app.grace.Load()); g <= 3*time.Second || g > 4*time.Second {
		t.Errorf("ShutdownMsg.Grace = %s, want just under 4s", g)
	}
	for i, term := range terms {
		if got := term.ExitStatus(2 * time.Second); got != 0 {
			t.Errorf("session %d exit status %d, want 0", i, got)
		}
	}
	select {
	case got := <-execDone:
		if got != "cancelled 3" {
			t.Errorf("exec session: %q, want its context cancelled (\"cancelled 3\")", got)
		}
	case <-time.After(2 * time.Second):
		t.Error("exec session still running after Shutdown")
	}
	if _, err := gossh.Dial("tcp", addr, sshtest.ClientConfig("late", sshtest.NewKey(t))); err == nil {
		t.Error("a new connection was accepted after Shutdown")
	}
}

// openStuck opens a PTY session whose client never reads: after the SSH
// window (2 MiB) fills, every write of its program blocks.
func openStuck(t *testing.T, addr, command string) *gossh.Session {
	t.Helper()
	client := sshtest.Dial(t, addr, sshtest.NewKey(t))
	sess, err := client.NewSession()
	if err != nil {
		t.Fatalf("new session: %v", err)
	}
	if err := sess.RequestPty("xterm", 200, 500, nil); err != nil {
		t.Fatalf("pty: %v", err)
	}
	if _, err := sess.StdoutPipe(); err != nil { // never read
		t.Fatalf("stdout: %v", err)
	}
	if _, err := sess.StderrPipe(); err != nil { // never read
		t.Fatalf("stderr: %v", err)
	}
	if err := sess.Start(command); err != nil {
		t.Fatalf("start: %v", err)
	}
	return sess
}

// waitWriteBlocked waits until some goroutine of the process is blocked
// writing into an exhausted SSH channel window: the mark of a client that
// stopped reading. (Polling goroutine stacks is crude, but it observes the
// very condition under test, however slow the machine is.)
func waitWriteBlocked(t *testing.T, timeout time.Duration) {
	t.Helper()
	buf := make([]byte, 1<<22)
	seen := 0
	sshtest.Eventually(t, timeout, func() bool {
		n := runtime.Stack(buf, true)
		if bytes.Contains(buf[:n], []byte("x/crypto/ssh.(*window).reserve")) {
			seen++
		} else {
			seen = 0
		}
		return seen >= 10 // blocked for ~100 ms, not a passing wait
	}, "no write blocked on a full SSH window")
}

// A client that stops reading stalls only its own program: another player
// keeps playing, and Shutdown still returns within its grace period.
func TestStuckClientBlocksOnlyItself(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.ShutdownGrace = 1500 * time.Millisecond
	srv, addr := startServer(t, cfg, &testApp{})
	openStuck(t, addr, "flood")
	waitWriteBlocked(t, 30*time.Second)
	client := sshtest.Dial(t, addr, sshtest.NewKey(t))
	player := sshtest.OpenTerm(t, client, sshtest.TermOptions{})
	player.WaitFor(t, "size:", 2*time.Second)
	var worst time.Duration
	for i := range 30 {
		key := typingKeys[i%len(typingKeys)]
		start := time.Now()
		if err := player.Type(key); err != nil {
			t.Fatalf("type: %v", err)
		}
		player.WaitFor(t, "key: ["+key+"]", 2*time.Second)
		worst = max(worst, time.Since(start))
	}
	t.Logf("worst keystroke-to-screen latency next to a stuck client: %s", worst)
	if worst > time.Second {
		t.Errorf("worst latency %s, want < 1s", worst)
	}

	// Both models quit on ShutdownMsg; the flooding one cannot even take
	// the message (its event loop waits on a write), so exactly one session
	// is left to be closed at the deadline.
	start := time.Now()
	err := srv.Shutdown(context.Background())
	elapsed := time.Since(start)
	if !errors.Is(err, ErrForcedShutdown) || !strings.Contains(err.Error(), "(1 sessions)") {
		t.Errorf("Shutdown = %v, want ErrForcedShutdown for the one stuck session", err)
	}
	if elapsed > cfg.ShutdownGrace+300*time.Millisecond {
		t.Errorf("Shutdown took %s, grace is %s", elapsed, cfg.ShutdownGrace)
	}
	if got := player.ExitStatus(time.Second); got != 0 {
		t.Errorf("player's exit status %d, want 0", got)
	}
	waitSessions(t, srv, 0, 2*time.Second)
}

func TestShutdownHonoursContext(t *testing.T) {
	for _, tt := range []struct {
		name    string
		ctx     func() (context.Context, context.CancelFunc)
		want    error
		maxTime time.Duration
	}{
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 500*time.Millisecond)
		}, ErrForcedShutdown, 800 * time.Millisecond},
		{"cancelled", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, context.Canceled, 300 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _ := testConfig(t)
			cfg.ShutdownGrace = time.Minute
			srv, addr := startServer(t, cfg, &testApp{})
			client := sshtest.Dial(t, addr, sshtest.NewKey(t))
			sshtest.OpenTerm(t, client, sshtest.TermOptions{Command: "stubborn"}).WaitFor(t, "size:", 2*time.Second)
			ctx, cancel := tt.ctx()
			defer cancel()
			start := time.Now()
			if err := srv.Shutdown(ctx); !errors.Is(err, tt.want) {
				t.Errorf("Shutdown = %v, want %v", err, tt.want)
			}
			if elapsed := time.Since(start); elapsed > tt.maxTime {
				t.Errorf("Shutdown took %s, want at most %s", elapsed, tt.maxTime)
			}
		})
	}
}

func TestServeAfterShutdown(t *testing.T) {
	cfg, _ := testConfig(t)
	srv, err := New(cfg, &testApp{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown of an idle server: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	if err := srv.Serve(l); !errors.Is(err, ErrServerClosed) {
		t.Errorf("Serve after Shutdown = %v, want ErrServerClosed", err)
	}
}
