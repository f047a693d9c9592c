package server

import (
	"context"
	"io"
	"net"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/ssh"
	"github.com/muesli/termenv"
	gossh "golang.org/x/crypto/ssh"
)

// App is what the server serves. Its methods are called from many sessions
// at once.
type App interface {
	// Model builds the Bubble Tea model for an interactive (PTY) session.
	// The server runs the program; the model receives a tea.WindowSizeMsg
	// first and ShutdownMsg when the server is going down.
	Model(s *Session) tea.Model
	// Exec runs the command of a session without a PTY (ssh host CMD),
	// writing plain text, and returns the exit status. ctx ends when the
	// client goes away, at the timeouts, and when the server starts
	// shutting down; Exec should return promptly then.
	Exec(ctx context.Context, s *Session, stdout, stderr io.Writer) int
}

// ShutdownMsg is sent to every running program when the server starts
// shutting down. The model should tell the player, make sure nothing is
// lost, and quit (tea.Quit) soon: sessions still running when the grace
// period ends are closed.
type ShutdownMsg struct {
	// Grace is how long the program has, from when the message was sent,
	// before its session is closed.
	Grace time.Duration
}

// Session is what an App sees of an SSH session. Everything in it that came
// from the client (User, ClientVersion, Args, Env, Term) is untrusted text:
// sanitize it before showing it to anyone else, and quote it (%q) in logs.
type Session struct {
	// Identity is the SHA256 fingerprint ("SHA256:...") of the public key
	// the client proved it holds, or "" for a guest.
	Identity string
	// PublicKey is that key, or nil for a guest.
	PublicKey gossh.PublicKey
	// User is the user name the client gave. Never authorize on it.
	User string
	// ClientVersion is the client's SSH version string.
	ClientVersion string
	// RemoteAddr is the client's address.
	RemoteAddr net.Addr
	// Args are the command words: `ssh -t host classic 42` gives
	// ["classic", "42"]; a plain `ssh host` gives none.
	Args []string
	// Env holds the terminal and locale variables the client sent: TERM,
	// COLORTERM, TERM_PROGRAM, NO_COLOR, LANG and LC_*.
	Env map[string]string
	// PTY reports whether the client asked for a terminal.
	PTY bool
	// Term is the terminal type (TERM) of a PTY session.
	Term string
	// Width and Height are the initial window size in cells, clamped to
	// 1..500 × 1..200 (80×24 when the client sent none).
	Width, Height int
	// UTF8 reports whether the client's locale is UTF-8. A client that sends
	// no locale at all is assumed to be UTF-8, as nearly all terminals are.
	UTF8 bool
	// ColorProfile is the colour support derived from TERM, COLORTERM and
	// NO_COLOR: Ascii (none), ANSI (16), ANSI256 or TrueColor.
	ColorProfile termenv.Profile
	// Renderer is this session's lipgloss renderer: build every style from
	// it. It has ColorProfile and assumes a dark background; it never
	// queries the terminal, so a client that does not answer queries still
	// gets its first frame at once.
	Renderer *lipgloss.Renderer

	ctx context.Context
	st  *sessionState // nil for a Session built by hand
}

// Guest reports whether the client logged in without a key.
func (s *Session) Guest() bool { return s.PublicKey == nil }

// AddrKey names the client's address as the server's per-address limits
// count it (the address a trusted balancer's PROXY header gave, an IPv6
// address's /64), for the App's own per-address limits; "" when the
// address is unknown.
func (s *Session) AddrKey() string {
	if s.RemoteAddr == nil {
		return ""
	}
	return ipKey(s.RemoteAddr)
}

// Context returns a context that ends with the session.
func (s *Session) Context() context.Context {
	if s.ctx == nil {
		return context.Background() // a Session built by hand, as in tests
	}
	return s.ctx
}

// After returns a command that brings read's message to the session's
// program once d has passed, read at that moment: tea.Tick's job without a
// goroutine waiting meanwhile (a runtime timer sends it; a clock that ticks
// every second in each of 1,000 sessions kept 1,000 goroutines and their
// stacks waiting). Nothing comes once the session has ended. A Session not
// run as a program waits in the command, as tea.Tick does.
func (s *Session) After(d time.Duration, read func() tea.Msg) tea.Cmd {
	return func() tea.Msg {
		var p *tea.Program
		if s.st != nil {
			p = s.st.currentProgram()
		}
		ctx := s.Context()
		if p == nil {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
				return read()
			case <-ctx.Done():
				return nil
			}
		}
		time.AfterFunc(d, func() {
			defer s.st.srv.recoverTo("session timer", nil)
			if ctx.Err() == nil {
				p.Send(read()) // returns at once if the program has ended meanwhile
			}
		})
		return nil
	}
}

// Await returns a command that brings read's message to the session's
// program once notify calls ready, or at once when notify says there is
// no need to wait: a session's inbox waited for without a goroutine
// waiting meanwhile (1,000 sessions kept 1,000 goroutines and their
// stacks waiting for their lobby queues). ready starts a goroutine that
// reads and sends, and ends. Nothing comes once the session has ended.
// A Session not run as a program waits in the command, in read.
func (s *Session) Await(notify func(ready func()) bool, read func() tea.Msg) tea.Cmd {
	return func() tea.Msg {
		var p *tea.Program
		if s.st != nil {
			p = s.st.currentProgram()
		}
		if p == nil {
			return read()
		}
		ctx := s.Context()
		if notify(func() {
			go func() {
				defer s.st.srv.recoverTo("session inbox", nil)
				if ctx.Err() == nil {
					p.Send(read()) // returns at once if the program has ended meanwhile
				}
			}()
		}) {
			return read()
		}
		return nil
	}
}

// End ends the session from outside its program or command, as the
// server's own timeouts do: their context is cancelled, text is the last
// line the player reads, and a session whose client stopped reading is
// closed a few seconds later all the same. An App uses it as the last
// resort after telling the session's program why (through the program's
// own queue), for a program that does not quit by itself. Ending a
// session twice, or one that has ended, does nothing.
func (s *Session) End(text string) {
	if s.st == nil {
		return // a Session built by hand, as in tests
	}
	s.st.endWith(appEnded, text)
}

// newSession describes sess for the App. It must run inside the session
// handler: the identity comes from sess.PublicKey(), which charmbracelet/ssh
// sets from the key that passed signature verification, never from anything
// an auth callback saw.
func newSession(sess ssh.Session, st *sessionState) *Session {
	ptyInfo, _, isPTY := sess.Pty()
	env := clientEnv(sess.Environ())
	out := &Session{
		User:          sess.User(),
		ClientVersion: sess.Context().ClientVersion(),
		RemoteAddr:    sess.RemoteAddr(),
		Args:          sess.Command(),
		Env:           env,
		PTY:           isPTY,
		UTF8:          isUTF8Locale(env),
		ctx:           st.ctx,
		st:            st,
	}
	if key := sess.PublicKey(); key != nil {
		out.PublicKey = key
		out.Identity = gossh.FingerprintSHA256(key)
	}
	if isPTY {
		out.Term = ptyInfo.Term
		env["TERM"] = ptyInfo.Term
		size := st.resize.get()
		out.Width, out.Height = size.Width, size.Height
	}
	out.ColorProfile = colorProfile(env, isPTY)
	out.Renderer = newRenderer(sess, out.ColorProfile)
	return out
}

// clientEnv turns the session's "KEY=value" list (already filtered to the
// allowed variables) into a map; the last value of a key wins.
func clientEnv(environ []string) map[string]string {
	env := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && allowedEnv(k) {
			env[k] = v
		}
	}
	return env
}

// envList turns env back into "KEY=value" form for tea.WithEnvironment.
func envList(env map[string]string) []string {
	list := make([]string, 0, len(env))
	for k, v := range env {
		list = append(list, k+"="+v)
	}
	return list
}

// isUTF8Locale applies the POSIX precedence LC_ALL > LC_CTYPE > LANG to find
// the character set of the client's locale.
func isUTF8Locale(env map[string]string) bool {
	for _, name := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		v := env[name]
		if v == "" {
			continue
		}
		v = strings.ToLower(v)
		return strings.Contains(v, "utf-8") || strings.Contains(v, "utf8")
	}
	return true
}

// colorProfile derives the colour support of a client's terminal from its
// environment, the way termenv does for a local terminal, without asking the
// terminal anything.
func colorProfile(env map[string]string, isPTY bool) termenv.Profile {
	term := strings.ToLower(env["TERM"])
	if !isPTY || env["NO_COLOR"] != "" || term == "" || term == "dumb" {
		return termenv.Ascii
	}
	switch strings.ToLower(env["COLORTERM"]) {
	case "truecolor", "24bit":
		return termenv.TrueColor
	}
	for _, name := range []string{"kitty", "wezterm", "alacritty", "ghostty", "contour", "foot", "rio", "direct", "truecolor", "24bit"} {
		if strings.Contains(term, name) {
			return termenv.TrueColor
		}
	}
	if strings.Contains(term, "256color") {
		return termenv.ANSI256
	}
	return termenv.ANSI
}

// newRenderer builds the session's lipgloss renderer with a fixed profile
// and a dark background. Setting both explicitly is what keeps lipgloss from
// querying the terminal (OSC 11), a read that blocks until the client types
// when the client does not answer.
func newRenderer(w io.Writer, profile termenv.Profile) *lipgloss.Renderer {
	r := lipgloss.NewRenderer(w, termenv.WithProfile(profile), termenv.WithColorCache(true))
	r.SetColorProfile(profile)
	r.SetHasDarkBackground(true)
	return r
}
