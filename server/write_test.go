package server

import (
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/server/sshtest"
)

// Issue 12 item 5: a client that stops reading but keeps typing used to
// keep its session until MaxSessionTime. Once its output has been blocked
// for WriteTimeout the session is ended (the App sees its context end, as
// when a client leaves) and its connection closed.
func TestBlockedOutputEndsSession(t *testing.T) {
	cfg, logs := testConfig(t)
	cfg.WriteTimeout = 400 * time.Millisecond
	srv, addr := startServer(t, cfg, &testApp{})
	client := sshtest.Dial(t, addr, sshtest.NewKey(t))
	sess, err := client.NewSession()
	if err != nil {
		t.Fatalf("new session: %v", err)
	}
	if err := sess.RequestPty("xterm", 200, 500, gossh.TerminalModes{}); err != nil {
		t.Fatalf("pty: %v", err)
	}
	if _, err := sess.StdoutPipe(); err != nil { // never read: the window fills
		t.Fatalf("stdout: %v", err)
	}
	stdin, err := sess.StdinPipe()
	if err != nil {
		t.Fatalf("stdin: %v", err)
	}
	if err := sess.Start("flood"); err != nil {
		t.Fatalf("start: %v", err)
	}
	waitSessions(t, srv, 1, 2*time.Second)
	done := make(chan error, 1)
	go func() { done <- client.Wait() }()
	typing := time.NewTicker(50 * time.Millisecond)
	defer typing.Stop()
	deadline := time.After(30 * time.Second) // the window must fill, then endGrace
	for open := true; open; {
		select {
		case <-done:
			open = false
		case <-typing.C:
			_, _ = stdin.Write([]byte("k")) // keeps typing; errors once closed
		case <-deadline:
			t.Fatal("session with blocked output still open after 30s")
		}
	}
	waitSessions(t, srv, 0, 2*time.Second)
	if got := srv.Stats().WriteTimeouts; got != 1 {
		t.Errorf("WriteTimeouts = %d, want 1", got)
	}
	if !strings.Contains(logs.String(), "its output has been blocked") || !strings.Contains(logs.String(), `reason="output blocked"`) {
		t.Errorf("log does not say why the session was closed")
	}
}
