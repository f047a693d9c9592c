package sshtest

import (
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	gossh "golang.org/x/crypto/ssh"
)

// TermOptions describe the terminal of a PTY session.
type TermOptions struct {
	// Width and Height are the window size; zero means 80×24 unless RawSize
	// is set.
	Width, Height int
	// RawSize sends Width×Height to the server exactly as given (even 0×0
	// or 65535×65535) while the emulator stays 80×24.
	RawSize bool
	// Term is the TERM name; empty means xterm-256color.
	Term string
	// Env is sent with env requests before the shell starts.
	Env map[string]string
	// Command, when set, is run with a PTY (like ssh -t host Command)
	// instead of a shell.
	Command string
	// NoReplies makes the terminal ignore queries (device attributes,
	// background colour, ...) instead of answering them like a real
	// terminal does.
	NoReplies bool
}

// Term is a PTY session rendered through a terminal emulator.
type Term struct {
	sess  *gossh.Session
	stdin io.WriteCloser

	mu  sync.Mutex // guards emu
	emu *vt.Emulator

	bytesIn  atomic.Int64 // bytes received from the server
	lastRead atomic.Int64 // when output last arrived, in UnixNano
	done     chan struct{}
	waitErr  error
	once     sync.Once
}

// OpenTerm opens a PTY session on client and starts its shell (or command).
// The session is closed when the test ends.
func OpenTerm(tb testing.TB, client *gossh.Client, opts TermOptions) *Term {
	tb.Helper()
	t, err := StartTerm(client, opts)
	if err != nil {
		tb.Fatalf("open terminal: %v", err)
	}
	tb.Cleanup(func() { _ = t.Close() })
	return t
}

// StartTerm is OpenTerm for code without a testing.TB (load tools); the
// caller closes the Term.
func StartTerm(client *gossh.Client, opts TermOptions) (*Term, error) {
	w, h := opts.Width, opts.Height
	if !opts.RawSize && (w <= 0 || h <= 0) {
		w, h = 80, 24
	}
	ew, eh := w, h
	if opts.RawSize || !saneSize(w, h) {
		ew, eh = 80, 24
	}
	term := opts.Term
	if term == "" {
		term = "xterm-256color"
	}
	sess, err := client.NewSession()
	if err != nil {
		return nil, err //nolint:wrapcheck // test helper
	}
	t := &Term{sess: sess, emu: vt.NewEmulator(ew, eh), done: make(chan struct{})}
	fail := func(err error) (*Term, error) {
		_ = sess.Close()
		return nil, err
	}
	for k, v := range opts.Env {
		if err := sess.Setenv(k, v); err != nil {
			return fail(err)
		}
	}
	if err := sess.RequestPty(term, h, w, gossh.TerminalModes{gossh.ECHO: 0}); err != nil {
		return fail(err)
	}
	if t.stdin, err = sess.StdinPipe(); err != nil {
		return fail(err)
	}
	stdout, err := sess.StdoutPipe()
	if err != nil {
		return fail(err)
	}
	sess.Stderr = emuWriter{t}
	if opts.Command != "" {
		err = sess.Start(opts.Command)
	} else {
		err = sess.Shell()
	}
	if err != nil {
		return fail(err)
	}
	pumped := make(chan struct{})
	go func() {
		defer close(pumped)
		_, _ = io.Copy(emuWriter{t}, stdout)
	}()
	go t.answerQueries(!opts.NoReplies)
	go func() {
		err := sess.Wait()
		<-pumped
		t.waitErr = err
		close(t.done)
		t.closeInput()
	}()
	return t, nil
}

// emuWriter feeds server output into the emulator.
type emuWriter struct{ t *Term }

func (w emuWriter) Write(p []byte) (int, error) {
	w.t.bytesIn.Add(int64(len(p)))
	w.t.lastRead.Store(time.Now().UnixNano())
	w.t.mu.Lock()
	defer w.t.mu.Unlock()
	return w.t.emu.Write(p) //nolint:wrapcheck // test helper
}

// answerQueries drains the emulator's replies to terminal queries (the
// emulator blocks until they are read) and forwards them to the server if
// forward is set.
func (t *Term) answerQueries(forward bool) {
	buf := make([]byte, 256)
	for {
		n, err := t.emu.Read(buf)
		if n > 0 && forward {
			_, _ = t.stdin.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// Type sends s as typed input: plain text or the Key constants.
func (t *Term) Type(s string) error {
	_, err := io.WriteString(t.stdin, s)
	return err //nolint:wrapcheck // test helper
}

// saneSize reports whether the emulator can take w×h and still show a few
// words: at least 20×5, at most 1000×1000.
func saneSize(w, h int) bool {
	return w >= 20 && h >= 5 && w <= 1000 && h <= 1000
}

// Resize changes the window size on the server, exactly as given, and in the
// emulator if the size is sane (see saneSize); otherwise the emulator keeps
// its size so the screen stays readable.
func (t *Term) Resize(w, h int) error {
	if saneSize(w, h) {
		t.mu.Lock()
		t.emu.Resize(w, h)
		t.mu.Unlock()
	}
	return t.sess.WindowChange(h, w) //nolint:wrapcheck // test helper
}

// Session returns the underlying SSH session, to send raw requests.
func (t *Term) Session() *gossh.Session { return t.sess }

// Screen returns the visible screen as text, trailing spaces trimmed.
func (t *Term) Screen() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.emu.String()
}

// BytesReceived returns the number of bytes the server has sent so far.
func (t *Term) BytesReceived() int64 { return t.bytesIn.Load() }

// WaitFor waits until the screen contains want and returns the screen; it
// fails the test with the last screen if that does not happen in timeout.
func (t *Term) WaitFor(tb testing.TB, want string, timeout time.Duration) string {
	tb.Helper()
	return t.WaitScreen(tb, timeout, want, func(s string) bool { return strings.Contains(s, want) })
}

// settleTime is how long output must have paused before a screen counts
// as drawn: the server sends a large frame (a new screen) in several
// writes, and a screen read between two of them is half old, half new.
const settleTime = 15 * time.Millisecond

// WaitScreen waits until cond holds for the screen, once the output has
// paused for settleTime (a frame is whole), and returns the screen; it
// fails the test, naming what and showing the last screen, if that does
// not happen in timeout.
func (t *Term) WaitScreen(tb testing.TB, timeout time.Duration, what string, cond func(screen string) bool) string {
	tb.Helper()
	var screen string
	settled := func() bool {
		return time.Since(time.Unix(0, t.lastRead.Load())) >= settleTime
	}
	if !Poll(timeout, func() bool { screen = t.Screen(); return settled() && cond(screen) }) {
		tb.Fatalf("screen did not show %q within %s; screen:\n%s", what, timeout, screen)
	}
	return screen
}

// Done is closed when the session has ended and all its output is on the
// screen.
func (t *Term) Done() <-chan struct{} { return t.done }

// ExitStatus waits up to timeout for the session to end and returns its exit
// status: -1 if it ended without one, -2 if it did not end in time.
func (t *Term) ExitStatus(timeout time.Duration) int {
	select {
	case <-t.done:
	case <-time.After(timeout):
		return -2
	}
	var exit *gossh.ExitError
	switch {
	case t.waitErr == nil:
		return 0
	case errors.As(t.waitErr, &exit):
		return exit.ExitStatus()
	default:
		return -1
	}
}

// closeInput ends answerQueries. Emulator.Close would race with its Read,
// so this closes the emulator's input pipe underneath instead.
func (t *Term) closeInput() {
	if pw, ok := t.emu.InputPipe().(*io.PipeWriter); ok {
		_ = pw.CloseWithError(io.EOF)
	}
}

// Close closes the session.
func (t *Term) Close() error {
	var err error
	t.once.Do(func() {
		err = t.sess.Close()
		t.closeInput()
	})
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return err //nolint:wrapcheck // test helper
}
