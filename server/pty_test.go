package server

import (
	"fmt"
	"io"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	gossh "golang.org/x/crypto/ssh"

	"pyramid/server/sshtest"
)

func TestSessionShowsKeysAndSize(t *testing.T) {
	cfg, _ := testConfig(t)
	app := &testApp{}
	_, addr := startServer(t, cfg, app)
	key := sshtest.NewKey(t)
	client := sshtest.Dial(t, addr, key)
	term := sshtest.OpenTerm(t, client, sshtest.TermOptions{Width: 100, Height: 30})

	term.WaitFor(t, "size: 100x30", 2*time.Second)
	term.WaitFor(t, "identity: "+gossh.FingerprintSHA256(key.PublicKey()), time.Second)
	for _, k := range []struct{ send, want string }{
		{"x", "key: [x]"},
		{sshtest.KeyUp, "key: [up]"},
		{sshtest.KeyEnter, "key: [enter]"},
	} {
		if err := term.Type(k.send); err != nil {
			t.Fatalf("type %q: %v", k.send, err)
		}
		term.WaitFor(t, k.want, 2*time.Second)
	}
	if err := term.Resize(120, 40); err != nil {
		t.Fatalf("resize: %v", err)
	}
	term.WaitFor(t, "size: 120x40", 2*time.Second)
	if err := term.Type("q"); err != nil {
		t.Fatalf("type q: %v", err)
	}
	if got := term.ExitStatus(5 * time.Second); got != 0 {
		t.Errorf("exit status after q = %d, want 0", got)
	}
}

// A client that never answers terminal queries must still get its first
// frame at once: wish's MakeRenderer would block on a background colour
// query until the client typed.
func TestFirstFrameWithoutQueryReplies(t *testing.T) {
	cfg, _ := testConfig(t)
	_, addr := startServer(t, cfg, &testApp{})
	client := sshtest.Dial(t, addr, sshtest.NewKey(t))
	start := time.Now()
	term := sshtest.OpenTerm(t, client, sshtest.TermOptions{NoReplies: true})
	term.WaitFor(t, "size: 80x24", time.Second)
	t.Logf("first frame after %s", time.Since(start))
}

func TestDeepLinkArgs(t *testing.T) {
	cfg, _ := testConfig(t)
	_, addr := startServer(t, cfg, &testApp{})
	client := sshtest.Dial(t, addr, sshtest.NewKey(t))
	term := sshtest.OpenTerm(t, client, sshtest.TermOptions{Command: "classic 42"})
	term.WaitFor(t, `args: ["classic" "42"]`, 2*time.Second)
}

func TestWindowSizesAreClamped(t *testing.T) {
	tests := []struct {
		name string
		w, h int
		want string
	}{
		{"zero", 0, 0, "size: 80x24"},
		{"zero width", 0, 50, "size: 80x50"},
		{"huge", 65535, 65535, "size: 500x200"},
		{"uint32 max", 4294967295, 4294967295, "size: 500x200"},
		{"small", 30, 6, "size: 30x6"},
	}
	cfg, _ := testConfig(t)
	_, addr := startServer(t, cfg, &testApp{})
	client := sshtest.Dial(t, addr, sshtest.NewKey(t))
	for _, tt := range tests {
		t.Run(tt.name+" at start", func(t *testing.T) {
			term := sshtest.OpenTerm(t, client, sshtest.TermOptions{Width: tt.w, Height: tt.h, RawSize: true})
			term.WaitFor(t, tt.want, 2*time.Second)
			_ = term.Close()
		})
		t.Run(tt.name+" on resize", func(t *testing.T) {
			term := sshtest.OpenTerm(t, client, sshtest.TermOptions{Width: 90, Height: 30})
			term.WaitFor(t, "size: 90x30", 2*time.Second)
			if err := term.Resize(tt.w, tt.h); err != nil {
				t.Fatalf("resize: %v", err)
			}
			term.WaitFor(t, tt.want, 2*time.Second)
			_ = term.Close()
		})
	}
}

// A storm of resizes reaches the program at most ~20 times a second, and the
// last size always arrives.
func TestResizesAreDebounced(t *testing.T) {
	cfg, _ := testConfig(t)
	_, addr := startServer(t, cfg, &testApp{})
	client := sshtest.Dial(t, addr, sshtest.NewKey(t))
	term := sshtest.OpenTerm(t, client, sshtest.TermOptions{Width: 80, Height: 24})
	term.WaitFor(t, "sizes: 1", 2*time.Second)

	start := time.Now()
	const n = 400
	for i := range n {
		if err := term.Session().WindowChange(20+i%50, 60+i%100); err != nil {
			t.Fatalf("window change %d: %v", i, err)
		}
	}
	if err := term.Session().WindowChange(33, 111); err != nil {
		t.Fatalf("final window change: %v", err)
	}
	screen := term.WaitFor(t, "size: 111x33", 3*time.Second)
	elapsed := time.Since(start)
	var sizes int
	for _, line := range strings.Split(screen, "\n") {
		if _, err := fmt.Sscanf(line, "sizes: %d", &sizes); err == nil {
			break
		}
	}
	// One initial size, then at most one per 50 ms, plus one for the edge.
	if limit := 2 + int(elapsed/resizeInterval); sizes > limit {
		t.Errorf("program got %d window sizes for %d resizes in %s, want at most %d", sizes, n+1, elapsed, limit)
	}
	t.Logf("%d resizes in %s reached the program as %d sizes", n+1, elapsed, sizes)
}

// When the client closes its channel but keeps the connection, the program
// must end instead of spinning on a closed window channel (wish's
// middleware sends WindowSizeMsg{0,0} in a loop then).
func TestClosedChannelEndsProgram(t *testing.T) {
	cfg, _ := testConfig(t)
	app := &testApp{}
	srv, addr := startServer(t, cfg, app)
	client := sshtest.Dial(t, addr, sshtest.NewKey(t))
	const n = DefaultSessionsPerConn
	terms := make([]*sshtest.Term, n)
	for i := range terms {
		terms[i] = sshtest.OpenTerm(t, client, sshtest.TermOptions{})
		terms[i].WaitFor(t, "sizes: 1", 2*time.Second)
	}
	_ = client // the connection stays open throughout
	waitSessions(t, srv, n, 2*time.Second)
	for _, term := range terms {
		_ = term.Session().Close()
	}
	waitSessions(t, srv, 0, 5*time.Second)
	if got := app.sizeMsgs.Load(); got != n {
		t.Errorf("programs received %d window sizes, want %d (one each)", got, n)
	}
	if conns, _ := srv.counts(); conns != 1 {
		t.Errorf("open connections = %d, want 1 (the client kept it)", conns)
	}
}

// Regression test for the window-change goroutine leak of charmbracelet/ssh:
// sessions that resize (before the shell starts, while running, and while
// quitting) must leave no goroutine behind.
func TestResizeGoroutineLeak(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.MaxConnsPerIP = 200
	cfg.MaxUnauthPerIP = 200
	cfg.Startups = Startups{Start: 100, Rate: 100, Full: 100}
	srv, addr := startServer(t, cfg, &testApp{})
	key := sshtest.NewKey(t)
	// Warm up once so lazily started runtime goroutines are in the baseline.
	warm := sshtest.Dial(t, addr, key)
	sshtest.OpenTerm(t, warm, sshtest.TermOptions{}).WaitFor(t, "size:", 2*time.Second)
	_ = warm.Close()
	waitSessions(t, srv, 0, 5*time.Second)
	baseline := runtime.NumGoroutine()

	const sessions, parallel = 100, 20
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	sem := make(chan struct{}, parallel)
	for i := range sessions {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs <- resizeAndLeave(addr, key, i)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	sshtest.Eventually(t, 10*time.Second, func() bool {
		_, s := srv.counts()
		return s == 0 && runtime.NumGoroutine() <= baseline+5
	}, "goroutines: %d, baseline %d", runtime.NumGoroutine(), baseline)
}

// resizeAndLeave runs one session of the leak test. Sessions differ by i:
// resize before the shell, resize while playing, or spam resizes while
// quitting.
func resizeAndLeave(addr string, key gossh.Signer, i int) error {
	client, err := gossh.Dial("tcp", addr, sshtest.ClientConfig("leak", key))
	if err != nil {
		return fmt.Errorf("session %d: dial: %w", i, err)
	}
	defer client.Close() //nolint:errcheck // test
	sess, err := client.NewSession()
	if err != nil {
		return fmt.Errorf("session %d: new session: %w", i, err)
	}
	if err := sess.RequestPty("xterm", 24, 80, nil); err != nil {
		return fmt.Errorf("session %d: pty: %w", i, err)
	}
	if i%3 == 0 { // the library's request loop used to block here for good
		for j := range 3 {
			_ = sess.WindowChange(30+j, 90)
		}
	}
	stdin, _ := sess.StdinPipe()
	stdout, _ := sess.StdoutPipe()
	if err := sess.Shell(); err != nil {
		return fmt.Errorf("session %d: shell: %w", i, err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	for j := range 5 {
		_ = sess.WindowChange(40+j, 100)
	}
	if i%3 == 2 {
		go func() {
			for j := range 200 {
				if sess.WindowChange(10+j%40, 10+j%90) != nil {
					return
				}
			}
		}()
	}
	_, _ = stdin.Write([]byte("q"))
	done := make(chan error, 1)
	go func() { done <- sess.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		return fmt.Errorf("session %d: did not end after q", i)
	}
	return nil
}

func TestSuspendIsFiltered(t *testing.T) {
	if got := filterProgramMsg(nil, tea.SuspendMsg{}); got != nil {
		t.Errorf("filterProgramMsg(SuspendMsg) = %v, want nil", got)
	}
	if got := filterProgramMsg(nil, tea.QuitMsg{}); got != (tea.QuitMsg{}) {
		t.Errorf("filterProgramMsg(QuitMsg) = %v, want it unchanged", got)
	}
}

// Session.After brings its message again and again, as tea.Tick does,
// but no goroutine waits in it meanwhile (a runtime timer sends it).
func TestSessionAfterKeepsNoGoroutine(t *testing.T) {
	checkNoGoroutineWaits(t, "after", "(*Session).After")
}

// TestSessionAwaitKeepsNoGoroutine: a session that waits for its inbox
// with Session.Await keeps no goroutine waiting between two messages;
// every message comes.
func TestSessionAwaitKeepsNoGoroutine(t *testing.T) {
	checkNoGoroutineWaits(t, "await", "(*Session).Await")
}

// checkNoGoroutineWaits runs the test model in mode command, which counts
// ticks brought by the function named frame, and checks that no goroutine
// waits in frame between two ticks while every tick still comes.
func checkNoGoroutineWaits(t *testing.T, command, frame string) {
	t.Helper()
	cfg, _ := testConfig(t)
	_, addr := startServer(t, cfg, &testApp{})
	client := sshtest.Dial(t, addr, sshtest.NewKey(t))
	term := sshtest.OpenTerm(t, client, sshtest.TermOptions{Command: command})
	term.WaitFor(t, "ticks: 5", 2*time.Second)
	// Look ten times: a goroutine that waits for the tick would show in
	// nearly every look; the send and the command that arms it show only
	// by chance, for a moment.
	seen := 0
	for range 10 {
		var b strings.Builder
		if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), frame) {
			seen++
		}
		time.Sleep(7 * time.Millisecond)
	}
	if seen > 5 {
		t.Fatalf("a goroutine was in %s in %d of 10 looks", frame, seen)
	}
	// Every tick still comes: ten more after the looks.
	after := ticksShown(term.Screen())
	term.WaitScreen(t, 2*time.Second, "ten more ticks", func(screen string) bool { return ticksShown(screen) >= after+10 })
}

// ticksShown reads the test model's tick count off its screen (-1 when
// it shows none).
func ticksShown(screen string) int {
	i := strings.Index(screen, "ticks: ")
	if i < 0 {
		return -1
	}
	n := 0
	if _, err := fmt.Sscanf(screen[i:], "ticks: %d", &n); err != nil {
		return -1
	}
	return n
}
