package arcade

import (
	"bytes"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/log"

	"pyramid/server"
	"pyramid/server/sshtest"
)

// TestCommandWordsWithATerminal: ssh -t HOST help runs the command (playtest
// F2), over a real SSH session with a PTY, and ends with its status.
func TestCommandWordsWithATerminal(t *testing.T) {
	f := newFixture(t)
	srv, err := server.New(server.Config{HostKeyPath: t.TempDir() + "/host_ed25519", Logger: log.New(&bytes.Buffer{})}, f.app)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	t.Cleanup(func() {
		_ = srv.Close()
		<-served
	})
	term := sshtest.OpenTerm(t, sshtest.Dial(t, l.Addr().String(), sshtest.NewKey(t)), sshtest.TermOptions{Command: "help"})
	term.WaitFor(t, "watch NAME", 5*time.Second) // the last line: help is longer than the screen
	if s := term.Screen(); strings.Contains(s, "unknown rule set") || !strings.Contains(s, "audit [NAME]") {
		t.Errorf("ssh -t HOST help shows:\n%s", s)
	}
	if got := term.ExitStatus(5 * time.Second); got != 0 {
		t.Errorf("exit status %d, want 0", got)
	}
}
