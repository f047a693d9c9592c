package keys

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// testKey returns a deterministic ed25519 public key for seed byte n.
func testKey(t *testing.T, n byte) ssh.PublicKey {
	t.Helper()
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{n}, ed25519.SeedSize))
	pub, err := ssh.NewPublicKey(priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	return pub
}

// authorizedLine returns pub as an authorized_keys line with a comment.
func authorizedLine(pub ssh.PublicKey, comment string) string {
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pub))) + " " + comment
}

func TestFingerprint(t *testing.T) {
	pub := testKey(t, 1)
	got := Fingerprint(pub)
	if !strings.HasPrefix(got, "SHA256:") || got != ssh.FingerprintSHA256(pub) {
		t.Errorf("got %q, want %q", got, ssh.FingerprintSHA256(pub))
	}
	if !validFingerprint(got) {
		t.Errorf("validFingerprint(%q) = false", got)
	}
	if got := Fingerprint(nil); got != "" {
		t.Errorf("Fingerprint(nil) = %q, want empty", got)
	}
}

// fakeClock is a clock that moves only when told to.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestAllowlist(t *testing.T) {
	alice, bob, carol := testKey(t, 1), testKey(t, 2), testKey(t, 3)
	path := filepath.Join(t.TempDir(), "authorized_keys")
	content := strings.Join([]string{
		"# club members",
		authorizedLine(alice, "alice@home"),
		"",
		"this is not a key",
		`restrict,from="10.0.0.0/8" ` + authorizedLine(bob, "bob"),
		"ssh-ed25519 AAAAbroken",
	}, "\n")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{now: time.Unix(1000, 0)}
	var logged []string
	a, err := LoadAllowlist(path, AllowlistOptions{
		RecheckInterval: time.Second,
		Now:             clock.Now,
		Logf:            func(f string, args ...any) { logged = append(logged, f) },
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		key  ssh.PublicKey
		want bool
	}{
		{"alice", alice, true},
		{"bob with options", bob, true},
		{"carol not listed", carol, false},
		{"no key", nil, false},
	}
	for _, tt := range tests {
		if got := a.Allowed(tt.key); got != tt.want {
			t.Errorf("Allowed(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
	problems := a.Problems()
	if len(problems) != 2 || problems[0].Line != 4 || problems[1].Line != 6 {
		t.Fatalf("got problems %v, want lines 4 and 6", problems)
	}
	if !strings.Contains(problems[0].Error(), "authorized_keys:4:") {
		t.Errorf("problem %q does not name file and line", problems[0].Error())
	}
	if len(logged) != 2 {
		t.Errorf("got %d log lines, want 2", len(logged))
	}

	// Replace the file (as an editor does, by rename): carol in, alice out.
	tmp := path + ".new"
	if err := os.WriteFile(tmp, []byte(authorizedLine(carol, "carol")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if !a.Allowed(alice) {
		t.Errorf("the change was seen before the recheck interval passed")
	}
	clock.Advance(time.Second)
	if a.Allowed(alice) || !a.Allowed(carol) {
		t.Errorf("after the change: alice %v carol %v, want false true", a.Allowed(alice), a.Allowed(carol))
	}
	if n := len(a.Problems()); n != 0 {
		t.Errorf("got %d problems after reload, want 0", n)
	}

	// A file that disappears keeps the last good set.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	if !a.Allowed(carol) {
		t.Errorf("carol locked out when the file vanished")
	}
	if err := a.Reload(); err == nil {
		t.Errorf("Reload of a missing file succeeded")
	}
}

func TestAllowlistEveryone(t *testing.T) {
	a, err := LoadAllowlist("", AllowlistOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var nilList *Allowlist
	for _, al := range []*Allowlist{a, nilList} {
		if !al.Allowed(testKey(t, 9)) {
			t.Errorf("allowlist without a file refused a key")
		}
	}
}

func TestAllowlistMissingFile(t *testing.T) {
	_, err := LoadAllowlist(filepath.Join(t.TempDir(), "nope"), AllowlistOptions{})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v, want a not-exist error", err)
	}
}

func TestParseAdmins(t *testing.T) {
	alice, bob, carol := testKey(t, 1), testKey(t, 2), testKey(t, 3)
	spec := Fingerprint(alice) + ", " + Fingerprint(bob) + "\n" +
		"# the treasurer\n" +
		"  " + authorizedLine(carol, "carol@club") + "\n"
	a, err := ParseAdmins(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []ssh.PublicKey{alice, bob, carol} {
		if !a.IsAdmin(Fingerprint(k)) {
			t.Errorf("IsAdmin(%s) = false", Fingerprint(k))
		}
	}
	if a.IsAdmin(Fingerprint(testKey(t, 4))) || a.Len() != 3 {
		t.Errorf("got %d admins, want 3", a.Len())
	}

	empty, err := ParseAdmins("")
	if err != nil || empty.Len() != 0 {
		t.Errorf("ParseAdmins(\"\") = %v admins, %v", empty.Len(), err)
	}
	var none *Admins
	if none.IsAdmin(Fingerprint(alice)) {
		t.Errorf("nil Admins has an admin")
	}

	for _, bad := range []string{"SHA256:short", "MD5:aa:bb", "ssh-ed25519 AAAAbroken", Fingerprint(alice) + " nonsense"} {
		if _, err := ParseAdmins(bad); err == nil {
			t.Errorf("ParseAdmins(%q) succeeded", bad)
		}
	}
}

func TestLinkCode(t *testing.T) {
	code := NewLinkCode(bytes.NewReader([]byte{0, 1, 2, 31, 32, 255, 8, 18}))
	if want := "012Z0Z8J"; code != want {
		t.Errorf("got %q, want %q", code, want)
	}
	// A failing reader still yields a well-formed code.
	if c := NewLinkCode(bytes.NewReader(nil)); len(c) != LinkCodeLength {
		t.Errorf("got %q from an empty reader", c)
	}
	seen := map[string]bool{}
	for range 100 {
		c := NewLinkCode(nil)
		if _, ok := NormalizeLinkCode(c); !ok || seen[c] {
			t.Fatalf("bad or repeated code %q", c)
		}
		seen[c] = true
	}

	tests := []struct {
		in     string
		want   string
		wantOK bool
	}{
		{"012Z0Z8J", "012Z0Z8J", true},
		{"012z-0z8j", "012Z0Z8J", true},
		{" o1lz 0Z8J ", "011Z0Z8J", true},
		{"abcd-efgh", "ABCDEFGH", true},
		{"012Z0Z8", "", false},
		{"012Z0Z8JK", "", false},
		{"012U0Z8J", "", false},
		{"012Z0Z8!", "", false},
		{"０12Z0Z8J", "", false},
		{strings.Repeat("-", 1000), "", false},
	}
	for _, tt := range tests {
		got, ok := NormalizeLinkCode(tt.in)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("NormalizeLinkCode(%q) = %q, %v, want %q, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
	if got, want := FormatLinkCode("012Z0Z8J"), "012Z-0Z8J"; got != want {
		t.Errorf("FormatLinkCode = %q, want %q", got, want)
	}
}
