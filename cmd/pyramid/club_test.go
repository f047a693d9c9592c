package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/server/sshtest"
)

// TestE2EClubAllowlist: on a club server only keys on the allowlist play;
// another key is refused with a message saying why, once, with the
// fingerprint to send the admins, and no guest
// gets in; the list is read again when it changes.
func TestE2EClubAllowlist(t *testing.T) {
	member, stranger := sshtest.NewKey(t), sshtest.NewKey(t)
	list := filepath.Join(t.TempDir(), "authorized_keys")
	write := func(keys ...gossh.Signer) {
		var b strings.Builder
		b.WriteString("# club members\n")
		for _, k := range keys {
			b.Write(gossh.MarshalAuthorizedKey(k.PublicKey()))
		}
		if err := os.WriteFile(list, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(member)
	ts := startServer(t, "", "--allowlist", list)

	if out, _, status := ts.user(member).exec(t, "whoami"); status != 0 || !strings.Contains(out, "name") {
		t.Fatalf("member: exit %d, %q", status, out)
	}
	// A stranger offers its key, then tries keyboard-interactive as OpenSSH
	// does: it is told why, once, and refused.
	var mu sync.Mutex
	var told []string
	cfg := sshtest.ClientConfig("stranger", stranger)
	cfg.Auth = append(cfg.Auth, gossh.RetryableAuthMethod(gossh.KeyboardInteractive(
		func(name, instruction string, questions []string, echos []bool) ([]string, error) {
			mu.Lock()
			defer mu.Unlock()
			told = append(told, instruction)
			return nil, nil
		}), 3))
	if c, err := gossh.Dial("tcp", ts.addr, cfg); err == nil {
		c.Close()
		t.Fatal("a key off the allowlist got in")
	}
	mu.Lock()
	if len(told) != 1 || !strings.Contains(told[0], "allowlist") ||
		!strings.Contains(told[0], "Send your key's fingerprint to the admins: "+gossh.FingerprintSHA256(stranger.PublicKey())) {
		t.Fatalf("the stranger was told %q; want the allowlist message once, with the key's fingerprint to send", told)
	}
	mu.Unlock()
	// A guest without a key does not get in on a club server either.
	guest := &gossh.ClientConfig{User: "guest", HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second,
		Auth: []gossh.AuthMethod{gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) { return nil, nil })}}
	if c, err := gossh.Dial("tcp", ts.addr, guest); err == nil {
		c.Close()
		t.Fatal("a guest got into a club server")
	}
	// The admin adds the stranger: it plays without a restart.
	write(member, stranger)
	sshtest.Eventually(t, 10*time.Second, func() bool {
		c, err := gossh.Dial("tcp", ts.addr, sshtest.ClientConfig("stranger", stranger))
		if err == nil {
			c.Close()
		}
		return err == nil
	}, "the allowlist was not read again after it changed")
}
