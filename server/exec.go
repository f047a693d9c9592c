package server

import (
	"github.com/charmbracelet/ssh"
)

// runExec runs a session without a PTY (`ssh host CMD`, or `ssh host` from a
// script): the App writes plain text and returns the exit status. No Bubble
// Tea program is started. Input is not read; the idle timer therefore ends a
// command that runs longer than IdleTimeout.
func (s *Server) runExec(sess ssh.Session, st *sessionState, info *Session) int {
	return s.app.Exec(st.ctx, info, &outputWriter{w: sess, st: st}, &outputWriter{w: sess.Stderr(), st: st})
}
