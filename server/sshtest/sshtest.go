// Package sshtest drives an SSH server from tests the way a player does: a
// real golang.org/x/crypto/ssh client with generated ed25519 keys, PTY
// sessions whose output is fed through a terminal emulator
// (github.com/charmbracelet/x/vt) so tests read the screen as text, and
// polling helpers with deadlines instead of sleeps.
//
//	key := sshtest.NewKey(t)
//	client := sshtest.Dial(t, addr, key)
//	term := sshtest.OpenTerm(t, client, sshtest.TermOptions{Width: 100, Height: 30})
//	term.WaitFor(t, "deal 42", time.Second)
//	term.Type(sshtest.KeyDown + "d")
//	term.WaitFor(t, "1 moves", time.Second)
//
// It does not depend on package server, so it works against any address.
package sshtest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// Keys as a terminal sends them (normal cursor mode).
const (
	KeyUp        = "\x1b[A"
	KeyDown      = "\x1b[B"
	KeyRight     = "\x1b[C"
	KeyLeft      = "\x1b[D"
	KeyEnter     = "\r"
	KeyEsc       = "\x1b"
	KeyTab       = "\t"
	KeyBackspace = "\x7f"
	KeyCtrlC     = "\x03"
)

// NewKey returns a fresh ed25519 key pair as an SSH signer.
func NewKey(tb testing.TB) gossh.Signer {
	tb.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		tb.Fatalf("generate key: %v", err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		tb.Fatalf("signer: %v", err)
	}
	return signer
}

// ClientConfig returns a client configuration for user that authenticates
// with key, or, when key is nil, as a keyless guest through a
// keyboard-interactive exchange that answers nothing. The host key is not
// checked.
func ClientConfig(user string, key gossh.Signer) *gossh.ClientConfig {
	cfg := &gossh.ClientConfig{
		User:            user,
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), //nolint:gosec // test servers have throwaway keys
		Timeout:         10 * time.Second,
	}
	if key != nil {
		cfg.Auth = []gossh.AuthMethod{gossh.PublicKeys(key)}
	} else {
		cfg.Auth = []gossh.AuthMethod{gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) {
			return nil, nil
		})}
	}
	return cfg
}

// Dial connects to addr as user "player" with key (nil: as a guest) and
// closes the client when the test ends.
func Dial(tb testing.TB, addr string, key gossh.Signer) *gossh.Client {
	tb.Helper()
	client, err := gossh.Dial("tcp", addr, ClientConfig("player", key))
	if err != nil {
		tb.Fatalf("dial %s: %v", addr, err)
	}
	tb.Cleanup(func() { _ = client.Close() })
	return client
}

// DialFrom connects to addr from the local IP address from (any address of
// 127.0.0.0/8 works on Linux, so one machine can play many clients), as
// user "player" with key (nil: as a guest). The client is closed when the
// test ends.
func DialFrom(tb testing.TB, addr, from string, key gossh.Signer) (*gossh.Client, error) {
	tb.Helper()
	client, err := DialFromConfig(addr, from, ClientConfig("player", key))
	if err == nil {
		tb.Cleanup(func() { _ = client.Close() })
	}
	return client, err
}

// DialFromConfig connects to addr from the local IP address from with cfg.
func DialFromConfig(addr, from string, cfg *gossh.ClientConfig) (*gossh.Client, error) {
	d := net.Dialer{Timeout: cfg.Timeout, LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s from %s: %w", addr, from, err)
	}
	_ = nc.SetDeadline(time.Now().Add(cfg.Timeout))
	c, chans, reqs, err := gossh.NewClientConn(nc, addr, cfg)
	if err != nil {
		_ = nc.Close()
		return nil, fmt.Errorf("ssh from %s: %w", from, err)
	}
	_ = nc.SetDeadline(time.Time{})
	return gossh.NewClient(c, chans, reqs), nil
}

// Exec runs cmd in a session without a PTY and returns what it wrote and its
// exit status (-1 if the server sent none).
func Exec(tb testing.TB, client *gossh.Client, cmd string) (stdout, stderr string, status int) {
	tb.Helper()
	sess, err := client.NewSession()
	if err != nil {
		tb.Fatalf("new session: %v", err)
	}
	defer sess.Close() //nolint:errcheck // already finished
	var out, errOut bytes.Buffer
	sess.Stdout, sess.Stderr = &out, &errOut
	err = sess.Run(cmd)
	var exit *gossh.ExitError
	switch {
	case err == nil:
		status = 0
	case errors.As(err, &exit):
		status = exit.ExitStatus()
	default:
		status = -1
	}
	return out.String(), errOut.String(), status
}

// Eventually polls cond every 10 ms until it holds, and fails the test with
// the formatted message if it does not within timeout.
func Eventually(tb testing.TB, timeout time.Duration, cond func() bool, format string, args ...any) {
	tb.Helper()
	if !Poll(timeout, cond) {
		tb.Fatalf("after %s: %s", timeout, fmt.Sprintf(format, args...))
	}
}

// Poll polls cond every 10 ms until it holds or timeout passes, and reports
// whether it held.
func Poll(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
}
