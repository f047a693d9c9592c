package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/log"
	"go.uber.org/goleak"

	"pyramid/server/sshtest"
)

// TestMain fails the package if any goroutine outlives the tests: every
// server is closed and every client disconnected by then.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testApp is a tiny App: its model shows the last key, the window size and
// what it knows of the session; its commands are help, whoami, sleep and
// panic. The first command word selects a model mode:
//
//	stubborn     ignores ShutdownMsg (other modes quit 100 ms after it)
//	tick         redraws every 20 ms by itself (output without input)
//	flood        redraws the whole window with new text every frame
//	panic-model  Model panics
type testApp struct {
	models    atomic.Int64
	execs     atomic.Int64
	sizeMsgs  atomic.Int64
	shutdowns atomic.Int64
	grace     atomic.Int64 // the Grace of the last ShutdownMsg, in ns
	floods    atomic.Int64 // frames computed by flood models
}

func (a *testApp) Model(s *Session) tea.Model {
	a.models.Add(1)
	m := &testModel{app: a, s: s, w: s.Width, h: s.Height}
	if len(s.Args) > 0 {
		m.mode = s.Args[0]
	}
	if m.mode == "panic-model" {
		panic("test panic in Model")
	}
	return m
}

func (a *testApp) Exec(ctx context.Context, s *Session, stdout, stderr io.Writer) int {
	a.execs.Add(1)
	if len(s.Args) == 0 {
		fmt.Fprintln(stderr, "this needs a terminal: ssh -t")
		return 1
	}
	switch s.Args[0] {
	case "help":
		fmt.Fprintln(stdout, "usage: pyramid [help|whoami]")
		return 0
	case "whoami":
		id := s.Identity
		if s.Guest() {
			id = "guest"
		}
		fmt.Fprintf(stdout, "%s %q %q\n", id, s.User, s.Args)
		return 0
	case "env":
		keys := make([]string, 0, len(s.Env))
		for k := range s.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(stdout, "%s=%s\n", k, s.Env[k])
		}
		fmt.Fprintf(stdout, "utf8=%v profile=%d\n", s.UTF8, s.ColorProfile)
		return 0
	case "remote":
		fmt.Fprintln(stdout, s.RemoteAddr.String())
		return 0
	case "sleep":
		<-ctx.Done()
		fmt.Fprintln(stdout, "cancelled")
		return 3
	case "panic":
		panic("test panic in Exec")
	}
	fmt.Fprintf(stderr, "unknown command %q\n", s.Args[0])
	return 1
}

// typingKeys are keys the test model shows without acting on them (q quits,
// P panics).
var typingKeys = strings.Split("abcdefghijklmnoprstuvwxyz0123456789", "")

type tickMsg struct{}

func tick() tea.Cmd {
	return tea.Tick(20*time.Millisecond, func(time.Time) tea.Msg { return tickMsg{} })
}

type testModel struct {
	app      *testApp
	s        *Session
	mode     string
	key      string
	w, h     int
	sizes    int
	ticks    int
	shutdown bool
	bell     *bell // mode "await"'s inbox
}

// bell is an inbox of rings for the test model's mode "await": a timer
// rings it, Session.Await waits for it, and a ring reads as a tick.
type bell struct {
	rung  chan struct{} // a ring not read yet
	mu    sync.Mutex
	ready func()
}

// every rings the bell every d until ctx ends, from timers.
func (b *bell) every(ctx context.Context, d time.Duration) {
	time.AfterFunc(d, func() {
		if ctx.Err() == nil {
			b.ring()
			b.every(ctx, d)
		}
	})
}

func (b *bell) ring() {
	select {
	case b.rung <- struct{}{}:
	default:
	}
	b.mu.Lock()
	ready := b.ready
	b.ready = nil
	b.mu.Unlock()
	if ready != nil {
		ready()
	}
}

func (b *bell) notify(ready func()) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.rung) > 0 {
		return true
	}
	b.ready = ready
	return false
}

// read waits for a ring.
func (b *bell) read() tea.Msg {
	<-b.rung
	return tickMsg{}
}

func (m *testModel) Init() tea.Cmd {
	if m.mode == "tick" {
		return tick()
	}
	if m.mode == "after" {
		return m.after()
	}
	if m.mode == "await" {
		m.bell = &bell{rung: make(chan struct{}, 1)}
		m.bell.every(m.s.Context(), 20*time.Millisecond)
		return m.s.Await(m.bell.notify, m.bell.read)
	}
	if m.mode == "flood" {
		return tea.Tick(time.Millisecond, func(time.Time) tea.Msg { return tickMsg{} })
	}
	return nil
}

func (m *testModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		m.key = msg.String()
		switch m.key {
		case "q":
			return m, tea.Quit
		case "P":
			panic("test panic in Update")
		}
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.sizes++
		m.app.sizeMsgs.Add(1)
	case ShutdownMsg:
		m.shutdown = true
		m.app.shutdowns.Add(1)
		m.app.grace.Store(int64(msg.Grace))
		if m.mode != "stubborn" {
			return m, tea.Tick(100*time.Millisecond, func(time.Time) tea.Msg { return tea.Quit() })
		}
	case tickMsg:
		m.ticks++
		if m.mode == "flood" {
			m.app.floods.Add(1)
			return m, tea.Tick(time.Millisecond, func(time.Time) tea.Msg { return tickMsg{} })
		}
		if m.mode == "after" {
			return m, m.after()
		}
		if m.mode == "await" {
			return m, m.s.Await(m.bell.notify, m.bell.read)
		}
		return m, tick()
	}
	return m, nil
}

// after is tick by the session's own timer (Session.After).
func (m *testModel) after() tea.Cmd {
	return m.s.After(20*time.Millisecond, func() tea.Msg { return tickMsg{} })
}

func (m *testModel) View() string {
	if m.mode == "flood" {
		line := strings.Repeat(string(rune('a'+m.ticks%26)), max(m.w-1, 1))
		return strings.Repeat(line+"\n", max(m.h-1, 1))
	}
	id := m.s.Identity
	if m.s.Guest() {
		id = "guest"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "identity: %s\n", id)
	fmt.Fprintf(&b, "args: %q\n", m.s.Args)
	fmt.Fprintf(&b, "key: [%s]\n", m.key)
	fmt.Fprintf(&b, "size: %dx%d\n", m.w, m.h)
	fmt.Fprintf(&b, "sizes: %d\n", m.sizes)
	fmt.Fprintf(&b, "ticks: %d\n", m.ticks)
	if m.shutdown {
		b.WriteString("shutdown: received\n")
	}
	return b.String()
}

// syncBuffer is a goroutine-safe log sink; it outlives the test safely,
// unlike t.Log.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testConfig returns a configuration for tests: a host key in a temporary
// directory, guests allowed, and a log that is shown if the test fails.
func testConfig(t *testing.T) (Config, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	logger := log.NewWithOptions(logs, log.Options{Level: log.DebugLevel})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log:\n%s", logs.String())
		}
	})
	return Config{HostKeyPath: t.TempDir() + "/host_ed25519", Guests: true, Logger: logger}, logs
}

// startServer serves app with cfg on 127.0.0.1 and closes it when the test
// ends.
func startServer(t *testing.T, cfg Config, app App) (*Server, string) {
	t.Helper()
	srv, err := New(cfg, app)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	t.Cleanup(func() {
		_ = srv.Close()
		select {
		case err := <-served:
			if !errors.Is(err, ErrServerClosed) {
				t.Errorf("Serve returned %v, want ErrServerClosed", err)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("Serve did not return after Close")
		}
		sshtest.Eventually(t, 10*time.Second, func() bool {
			c, s := srv.counts()
			return c == 0 && s == 0
		}, "connections and sessions left after Close")
	})
	return srv, l.Addr().String()
}

// waitSessions waits until the server runs n sessions.
func waitSessions(t *testing.T, srv *Server, n int, timeout time.Duration) {
	t.Helper()
	sshtest.Eventually(t, timeout, func() bool {
		_, s := srv.counts()
		return s == n
	}, "want %d running sessions", n)
}
