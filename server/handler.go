package server

import (
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
)

// middleware is the whole session pipeline as one Wish middleware, in the
// order: recover ▸ logging ▸ limits ▸ identity ▸ PTY/resize ▸
// exec ▸ Bubble Tea. The stages share per-session state, which Wish's
// connection-wide context cannot carry, so they are steps of one handler
// rather than separate middlewares.
func (s *Server) middleware() wish.Middleware {
	return func(ssh.Handler) ssh.Handler { return s.handle }
}

// handle runs one session: shell or exec, with or without a PTY.
func (s *Server) handle(sess ssh.Session) {
	st := sessionOf(sess)
	if st == nil { // not opened through sessionChannel: cannot happen
		_ = sess.Exit(1)
		return
	}
	st.cs.sessionStarted()
	defer st.cs.sessionEnded()
	if !s.addSession(st) {
		writeLine(sess.Stderr(), shuttingDown.message(s.cfg))
		_ = sess.Exit(1)
		st.finish()
		return
	}
	// Deferred in this order so that they run: recover, stop the timers,
	// send the exit status, and only then let Shutdown see the session gone
	// (it closes the connection then, which would swallow the status).
	defer s.removeSession(st)
	status := 1
	defer func() { _ = sess.Exit(status) }() // exit-status, then close; the client may be gone
	defer st.releaseSlot()
	defer st.finish()
	defer s.recoverSession(sess, st, &status)
	st.startTimers()
	st.handlerStarted()

	info := newSession(sess, st)
	if info.Guest() && !s.cfg.Guests { // keyboard-interactive refuses guests; belt and braces
		writeLine(sess.Stderr(), s.refusal())
		return
	}
	if st.commandTooLong.Load() {
		// Refused like this with or without a PTY: a terminal deep link
		// (ssh -t host WORDS) over the cap must not open the menu as if
		// nothing had been asked.
		writeLine(sess.Stderr(), fmt.Sprintf("command too long: at most %d bytes", maxCommandLen))
		return
	}
	start := s.now()
	s.log.Info(fmt.Sprintf("session start user=%q client=%q term=%q args=%q", cut(info.User), cut(info.ClientVersion), cut(info.Term), cutAll(info.Args)),
		"session", st.id, "remote", st.cs.remote, "identity", identityForLog(info), "pty", info.PTY, "size", fmt.Sprintf("%dx%d", info.Width, info.Height))

	// The last word goes to stderr, but after a program to stdout: the
	// program's last frame and the restored terminal came on stdout, and
	// a client may write its stderr out of order with them (into the
	// alternate screen it is about to leave).
	lastWord := sess.Stderr()
	if info.PTY && !s.isCommand(info) {
		status = s.runProgram(sess, st, info)
		lastWord = sess
	} else {
		status = s.runExec(sess, st, info)
	}
	reason := st.endedBy()
	if msg := st.lastWords(reason); msg != "" && reason != clientClosed {
		writeLine(lastWord, msg)
	}
	s.log.Info("session end", "session", st.id, "remote", st.cs.remote, "status", status,
		"reason", reason.String(), "duration", s.now().Sub(start).Round(time.Millisecond))
}

// identityForLog is the identity as logged: the fingerprint, or "guest".
func identityForLog(s *Session) string {
	if s.Guest() {
		return "guest"
	}
	return s.Identity
}

// recoverSession turns a panic in the session (the App's Model or Exec, or
// our own code) into a logged error and exit status 1 instead of a crash of
// the whole server.
func (s *Server) recoverSession(sess ssh.Session, st *sessionState, status *int) {
	r := recover()
	if r == nil {
		return
	}
	s.log.Error("session panicked", "session", st.id, "remote", st.cs.remote, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	writeLine(sess.Stderr(), "Internal error; the session was closed. Sorry!")
	*status = 1
}

// recoverTo is deferred at the top of every callback and goroutine the
// server runs: a panic there is logged and then handled by onPanic (which
// may be nil) instead of killing the process.
func (s *Server) recoverTo(what string, onPanic func()) {
	r := recover()
	if r == nil {
		return
	}
	s.log.Error("recovered panic in "+what, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	if onPanic != nil {
		onPanic()
	}
}

// goSafe runs f in a goroutine guarded by recoverTo.
func (s *Server) goSafe(what string, f func()) {
	go func() {
		defer s.recoverTo(what, nil)
		f()
	}()
}

// writeLine writes msg on a line of its own. On a PTY session the library's
// emulated terminal turns "\n" into "\r\n". Errors are ignored: it is only
// ever a last word to a client that may be gone.
func writeLine(w io.Writer, msg string) {
	_, _ = io.WriteString(w, "\n"+msg+"\n")
}

// maxLogString bounds each client-given string in a log line.
const maxLogString = 64

// cut shortens a client-given string for a log line; %q escapes it.
func cut(s string) string {
	if len(s) <= maxLogString {
		return s
	}
	return s[:maxLogString] + "…"
}

// cutAll shortens client-given words for a log line.
func cutAll(words []string) []string {
	if len(words) > 8 {
		words = append(words[:8:8], "…")
	}
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = cut(w)
	}
	return out
}

// Commander is an App whose plain-text commands also run on a session
// with a terminal (ssh -t HOST help): IsCommand tells a command's words
// from a deep link.
type Commander interface {
	IsCommand(args []string) bool
}

// isCommand reports whether a session with a terminal asked for a
// plain-text command rather than the program.
func (s *Server) isCommand(info *Session) bool {
	c, ok := s.app.(Commander)
	return ok && c.IsCommand(info.Args)
}
