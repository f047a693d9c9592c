package server

import (
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/server/sshtest"
)

func TestExec(t *testing.T) {
	cfg, _ := testConfig(t)
	app := &testApp{}
	_, addr := startServer(t, cfg, app)
	client := sshtest.Dial(t, addr, sshtest.NewKey(t))
	tests := []struct {
		cmd        string
		stdout     string
		stderr     string
		wantStatus int
	}{
		{"help", "usage: pyramid [help|whoami]\n", "", 0},
		{"frobnicate now", "", "unknown command \"frobnicate\"\n", 1},
		{"", "", "this needs a terminal: ssh -t\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			stdout, stderr, status := sshtest.Exec(t, client, tt.cmd)
			if stdout != tt.stdout || stderr != tt.stderr || status != tt.wantStatus {
				t.Errorf("ssh host %q = (%q, %q, %d), want (%q, %q, %d)",
					tt.cmd, stdout, stderr, status, tt.stdout, tt.stderr, tt.wantStatus)
			}
		})
	}
	if got := app.models.Load(); got != 0 {
		t.Errorf("exec sessions built %d models, want none", got)
	}
	if got := app.execs.Load(); got != int64(len(tests)) {
		t.Errorf("App.Exec called %d times, want %d", got, len(tests))
	}
	stdout, stderr, status := sshtest.Exec(t, client, strings.Repeat("x", maxCommandLen+1))
	if stdout != "" || app.execs.Load() != int64(len(tests)) {
		t.Errorf("an oversized command reached the App (stdout %q)", stdout)
	}
	if status != 1 || !strings.Contains(stderr, "command too long") {
		t.Errorf("oversized command: exit %d, stderr %q; want 1 and why", status, stderr)
	}
	// Issue 12 item 6: the same with a terminal (a deep link) used to open
	// the menu without a word.
	term := sshtest.OpenTerm(t, client, sshtest.TermOptions{Command: "classic " + strings.Repeat("x", maxCommandLen)})
	term.WaitFor(t, "command too long", 2*time.Second)
	if got := term.ExitStatus(2 * time.Second); got != 1 {
		t.Errorf("oversized deep link: exit status %d, want 1", got)
	}
	if got := app.models.Load(); got != 0 {
		t.Errorf("an oversized deep link built %d models, want none", got)
	}
}

// A panicking App ends its session, never the server.
func TestPanicsAreContained(t *testing.T) {
	cfg, logs := testConfig(t)
	_, addr := startServer(t, cfg, &testApp{})
	client := sshtest.Dial(t, addr, sshtest.NewKey(t))

	t.Run("Exec", func(t *testing.T) {
		_, stderr, status := sshtest.Exec(t, client, "panic")
		if status != 1 || !strings.Contains(stderr, "Internal error") {
			t.Errorf("panicking exec: status %d, stderr %q; want 1 and an apology", status, stderr)
		}
	})
	t.Run("Model", func(t *testing.T) {
		term := sshtest.OpenTerm(t, client, sshtest.TermOptions{Command: "panic-model"})
		if got := term.ExitStatus(5 * time.Second); got != 1 {
			t.Errorf("exit status %d, want 1", got)
		}
		term.WaitFor(t, "Internal error", time.Second)
	})
	t.Run("Update", func(t *testing.T) {
		term := sshtest.OpenTerm(t, client, sshtest.TermOptions{})
		term.WaitFor(t, "size:", 2*time.Second)
		if err := term.Type("P"); err != nil {
			t.Fatalf("type: %v", err)
		}
		if got := term.ExitStatus(5 * time.Second); got != 1 {
			t.Errorf("exit status %d, want 1", got)
		}
	})
	// The server still serves.
	term := sshtest.OpenTerm(t, client, sshtest.TermOptions{})
	term.WaitFor(t, "size:", 2*time.Second)
	if !strings.Contains(logs.String(), "test panic in Exec") || !strings.Contains(logs.String(), "program panicked") {
		t.Errorf("panics were not logged:\n%s", logs.String())
	}
}

// Attacker-controlled strings reach the log quoted, never raw.
func TestLogQuotesClientText(t *testing.T) {
	cfg, logs := testConfig(t)
	_, addr := startServer(t, cfg, &testApp{})
	evil := "\x1b[2J\x1b]0;pwned\x07\nFAKE LOG LINE"
	client, err := gossh.Dial("tcp", addr, sshtest.ClientConfig(evil, sshtest.NewKey(t)))
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer client.Close() //nolint:errcheck // test
	term := sshtest.OpenTerm(t, client, sshtest.TermOptions{Term: "xterm\x1b[31m", Command: "play \x1b[5m"})
	term.WaitFor(t, "size:", 2*time.Second)
	got := logs.String()
	if strings.ContainsAny(got, "\x1b\x07") || strings.Contains(got, "\nFAKE LOG LINE") {
		t.Errorf("raw control characters reached the log:\n%q", got)
	}
	for _, want := range []string{`user="\x1b[2J\x1b]0;pwned\a\nFAKE LOG LINE"`, `term="xterm\x1b[31m"`, `args=["play" "\x1b[5m"]`} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %s:\n%s", want, got)
		}
	}
}

// Sessions opened one after another on one connection are never refused as
// too many: a session's slot is free before its client sees the exit
// status (OpenSSH ControlMaster clients do exactly this).
func TestSequentialSessionsOnOneConnection(t *testing.T) {
	cfg, _ := testConfig(t)
	_, addr := startServer(t, cfg, &testApp{})
	client := sshtest.Dial(t, addr, sshtest.NewKey(t))
	defer client.Close()
	for i := range 100 {
		sess, err := client.NewSession()
		if err != nil {
			t.Fatalf("session %d refused: %v", i+1, err)
		}
		if _, err := sess.Output("help"); err != nil {
			t.Fatalf("session %d: %v", i+1, err)
		}
		_ = sess.Close()
	}
}
