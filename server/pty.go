package server

import (
	"errors"
	"io"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/ssh"
)

// resizeInterval is the minimum time between two window sizes delivered to a
// program: at most 20 redraws a second for a client that resizes in a loop.
const resizeInterval = 50 * time.Millisecond

// runProgram runs the App's Bubble Tea program on a PTY session. This
// replaces wish's bubbletea middleware, whose resize goroutine leaks or spins
// (see filterRequests): sizes come from the session's resize box, clamped and
// debounced, by a goroutine that lives only while there is a size to hand
// over (resizeBox); the program ends when the session's context does
// (client gone, timeouts, forced shutdown); and nothing here ever waits on
// another session.
func (s *Server) runProgram(sess ssh.Session, st *sessionState, info *Session) int {
	model := s.app.Model(info)
	if model == nil {
		writeLine(sess.Stderr(), "Nothing to play here, sorry.")
		return 1
	}
	size := st.resize.get()
	var screen io.Writer = sess
	if st.channel != nil {
		screen = st.channel // frames have no bare "\n" for the library's writer to turn into "\r\n"
	}
	r := newFrameRenderer(&outputWriter{w: screen, st: st}, s.now, size.Width, size.Height)
	p := tea.NewProgram(&framedModel{model: model, r: r},
		tea.WithInput(&inputReader{r: sess, st: st}),
		tea.WithOutput(io.Discard), // the frame renderer writes to the session
		tea.WithoutRenderer(),
		tea.WithContext(st.ctx),
		tea.WithEnvironment(envList(info.Env)),
		tea.WithoutSignalHandler(), // signals belong to the server, not to a session
		tea.WithFilter(filterProgramMsg),
	)
	r.send = p.Send
	st.setProgram(p)
	st.resize.deliverTo(func(size windowSize) { p.Send(tea.WindowSizeMsg{Width: size.Width, Height: size.Height}) },
		s.now, func(f func()) { s.goSafe("window sizes", f) })

	final, err := p.Run()
	// The terminal is given back before anything else is written (the
	// handler's last word), however the program ended.
	r.finish(final, err != nil)
	switch {
	case err == nil:
		if f, ok := final.(*framedModel); ok {
			if es, ok := f.model.(ExitStatuser); ok {
				return es.ExitStatus()
			}
		}
		return 0
	case errors.Is(err, tea.ErrProgramPanic):
		s.log.Error("program panicked", "session", st.id, "remote", st.cs.remote, "err", err)
		writeLine(sess, "Internal error; the session was closed. Sorry!") // on stdout, after the restored terminal
		return 1
	case errors.Is(err, tea.ErrProgramKilled) && st.endedBy() == clientClosed:
		return 0 // the client went; the reason is logged by handle
	case errors.Is(err, tea.ErrProgramKilled) && st.endedBy() != notEnded:
		return 1 // ended by the server (a limit, a shutdown, the App's End); logged by handle
	default:
		s.log.Warn("program ended with an error", "session", st.id, "remote", st.cs.remote, "err", err)
		return 1
	}
}

// filterProgramMsg drops messages a session must never act on: tea.Suspend
// would stop the whole server process (SIGTSTP to its process group).
func filterProgramMsg(_ tea.Model, msg tea.Msg) tea.Msg {
	if _, ok := msg.(tea.SuspendMsg); ok {
		return nil
	}
	return msg
}
