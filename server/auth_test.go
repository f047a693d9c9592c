package server

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/binary"
	"io"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/server/sshtest"
)

// readKexInit reads the server's plaintext KEXINIT and returns its first
// eight name-lists: kex, host key, ciphers c→s and s→c, MACs c→s and s→c,
// compression c→s and s→c.
func readKexInit(t *testing.T, addr string) [][]string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer conn.Close() //nolint:errcheck // test
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(conn, "SSH-2.0-kexinit-probe\r\n"); err != nil {
		t.Fatalf("send version: %v", err)
	}
	r := bufio.NewReader(conn)
	version, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(version, "SSH-2.0-") {
		t.Fatalf("server version line %q: %v", version, err)
	}
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		t.Fatalf("read packet header: %v", err)
	}
	length, padding := binary.BigEndian.Uint32(hdr[:4]), int(hdr[4])
	if length < 1 || length > 35000 {
		t.Fatalf("implausible packet length %d", length)
	}
	body := make([]byte, length-1)
	if _, err := io.ReadFull(r, body); err != nil {
		t.Fatalf("read packet: %v", err)
	}
	payload := body[:len(body)-padding]
	const msgKexInit = 20
	if payload[0] != msgKexInit {
		t.Fatalf("first packet is message %d, want KEXINIT (20)", payload[0])
	}
	p := payload[1+16:] // message number, cookie
	var lists [][]string
	for range 8 {
		n := binary.BigEndian.Uint32(p)
		lists = append(lists, strings.Split(string(p[4:4+n]), ","))
		p = p[4+n:]
	}
	return lists
}

func TestKexInitAlgorithms(t *testing.T) {
	cfg, _ := testConfig(t)
	_, addr := startServer(t, cfg, &testApp{})
	lists := readKexInit(t, addr)
	names := []string{"kex", "host key", "cipher c2s", "cipher s2c", "mac c2s", "mac s2c"}
	for i, name := range names {
		for _, alg := range lists[i] {
			if strings.Contains(alg, "sha1") || strings.Contains(alg, "cbc") || strings.HasPrefix(alg, "hmac-sha1") ||
				alg == "ssh-rsa" || alg == "ssh-dss" || strings.Contains(alg, "arcfour") || strings.Contains(alg, "3des") {
				t.Errorf("%s list offers weak %q: %v", name, alg, lists[i])
			}
		}
	}
	if !slices.Contains(lists[0], "kex-strict-s-v00@openssh.com") {
		t.Errorf("kex list lacks the strict KEX marker: %v", lists[0])
	}
	// x/crypto also lists the libssh.org name of curve25519-sha256.
	wantKex := append(kexAlgorithms(), "curve25519-sha256@libssh.org", "kex-strict-s-v00@openssh.com")
	for _, k := range lists[0] {
		if !slices.Contains(wantKex, k) && k != "ext-info-s" {
			t.Errorf("unexpected kex %q in %v", k, lists[0])
		}
	}
	if !slices.Equal(lists[2], cipherAlgorithms()) || !slices.Equal(lists[3], cipherAlgorithms()) {
		t.Errorf("ciphers = %v / %v, want %v", lists[2], lists[3], cipherAlgorithms())
	}
	if !slices.Equal(lists[4], macAlgorithms()) || !slices.Equal(lists[5], macAlgorithms()) {
		t.Errorf("MACs = %v / %v, want %v", lists[4], lists[5], macAlgorithms())
	}
}

func TestServerConfig(t *testing.T) {
	s := &Server{}
	cfg := s.serverConfig(nil)
	for _, alg := range cfg.PublicKeyAuthAlgorithms {
		//lint:ignore SA1019 the deprecated DSA name is what must be absent
		if alg == gossh.KeyAlgoRSA || alg == gossh.KeyAlgoDSA {
			t.Errorf("public key algorithms include %q", alg)
		}
	}
	if cfg.PasswordCallback != nil || cfg.NoClientAuth {
		t.Error("password or no-auth enabled")
	}
	if cfg.MaxAuthTries < 1 || cfg.MaxAuthTries > 6 {
		t.Errorf("MaxAuthTries = %d, want 1..6", cfg.MaxAuthTries)
	}
}

// Clients that only speak weak algorithms cannot connect.
func TestWeakClientsRefused(t *testing.T) {
	cfg, _ := testConfig(t)
	_, addr := startServer(t, cfg, &testApp{})
	key := sshtest.NewKey(t)
	tests := []struct {
		name   string
		config gossh.Config
	}{
		{"cbc cipher", gossh.Config{Ciphers: []string{gossh.InsecureCipherAES128CBC}}},
		{"sha1 mac", gossh.Config{Ciphers: []string{gossh.CipherAES128CTR}, MACs: []string{gossh.HMACSHA1}}},
		{"non-etm mac", gossh.Config{Ciphers: []string{gossh.CipherAES128CTR}, MACs: []string{gossh.HMACSHA256}}},
		{"sha1 kex", gossh.Config{KeyExchanges: []string{gossh.InsecureKeyExchangeDH14SHA1}}},
		{"nist kex", gossh.Config{KeyExchanges: []string{gossh.KeyExchangeECDHP256}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc := sshtest.ClientConfig("weak", key)
			cc.Config = tt.config
			if c, err := gossh.Dial("tcp", addr, cc); err == nil {
				_ = c.Close()
				t.Fatal("connected; want the handshake to fail")
			}
		})
	}
}

func TestPasswordRefused(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.Guests = false
	_, addr := startServer(t, cfg, &testApp{})
	cc := sshtest.ClientConfig("player", nil)
	cc.Auth = []gossh.AuthMethod{gossh.Password("hunter2")}
	if c, err := gossh.Dial("tcp", addr, cc); err == nil {
		_ = c.Close()
		t.Fatal("password login succeeded")
	}
}

func TestGuests(t *testing.T) {
	t.Run("allowed", func(t *testing.T) {
		cfg, _ := testConfig(t)
		cfg.Guests = true
		_, addr := startServer(t, cfg, &testApp{})
		client := sshtest.Dial(t, addr, nil)
		out, _, status := sshtest.Exec(t, client, "whoami")
		if status != 0 || !strings.HasPrefix(out, "guest ") {
			t.Errorf("whoami = %q (status %d), want a guest", out, status)
		}
		term := sshtest.OpenTerm(t, client, sshtest.TermOptions{})
		term.WaitFor(t, "identity: guest", 2*time.Second)
	})
	t.Run("refused with a message", func(t *testing.T) {
		cfg, _ := testConfig(t)
		cfg.Guests = false
		_, addr := startServer(t, cfg, &testApp{})
		var shown strings.Builder
		cc := sshtest.ClientConfig("player", nil)
		cc.Auth = []gossh.AuthMethod{gossh.KeyboardInteractive(func(_, instruction string, questions []string, _ []bool) ([]string, error) {
			shown.WriteString(instruction)
			return make([]string, len(questions)), nil
		})}
		c, err := gossh.Dial("tcp", addr, cc)
		if err == nil {
			_ = c.Close()
			t.Fatal("keyless login succeeded with Guests off")
		}
		if !strings.Contains(shown.String(), "ssh-keygen") {
			t.Errorf("client was shown %q, want advice to make a key", shown.String())
		}
	})
}

// lyingSigner claims one public key but signs with another key.
type lyingSigner struct {
	claim gossh.PublicKey
	real  gossh.Signer
}

func (l lyingSigner) PublicKey() gossh.PublicKey { return l.claim }

func (l lyingSigner) Sign(rand io.Reader, data []byte) (*gossh.Signature, error) {
	return l.real.Sign(rand, data) //nolint:wrapcheck // test
}

// CVE-2024-45337 pattern: the attacker offers the victim's public key (the
// server's auth callback sees and accepts it) but cannot sign for it, then
// logs in with its own key. The session must be the attacker's, whatever
// the user name says. (The attacker's key is ECDSA so that its signature
// under the victim's ed25519 key is refused as the wrong format, which
// x/crypto treats as a failed attempt rather than a fatal error.)
func TestIdentityIsTheProvenKey(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.Guests = false
	victim := sshtest.NewKey(t)
	var victimOffered atomic.Bool
	cfg.AllowKey = func(k gossh.PublicKey) bool {
		if gossh.FingerprintSHA256(k) == gossh.FingerprintSHA256(victim.PublicKey()) {
			victimOffered.Store(true)
		}
		return true
	}
	_, addr := startServer(t, cfg, &testApp{})
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("generate key: %v", err)
	}
	attacker, err := gossh.NewSignerFromKey(ecKey)
	if err != nil {
		t.Fatalf("signer: %v", err)
	}
	cc := sshtest.ClientConfig(gossh.FingerprintSHA256(victim.PublicKey()), nil)
	cc.Auth = []gossh.AuthMethod{gossh.PublicKeys(lyingSigner{claim: victim.PublicKey(), real: attacker}, attacker)}
	client, err := gossh.Dial("tcp", addr, cc)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer client.Close() //nolint:errcheck // test
	if !victimOffered.Load() {
		t.Fatal("the victim's key never reached the auth callback; the test proves nothing")
	}
	out, _, status := sshtest.Exec(t, client, "whoami")
	want := gossh.FingerprintSHA256(attacker.PublicKey()) + " "
	if status != 0 || !strings.HasPrefix(out, want) {
		t.Errorf("whoami = %q (status %d), want identity %s", out, status, want)
	}
}

func TestAllowKey(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.Guests = false
	allowed, banned, panicky := sshtest.NewKey(t), sshtest.NewKey(t), sshtest.NewKey(t)
	cfg.AllowKey = func(k gossh.PublicKey) bool {
		switch gossh.FingerprintSHA256(k) {
		case gossh.FingerprintSHA256(panicky.PublicKey()):
			panic("AllowKey exploded")
		case gossh.FingerprintSHA256(allowed.PublicKey()):
			return true
		}
		return false
	}
	_, addr := startServer(t, cfg, &testApp{})
	for _, k := range []gossh.Signer{banned, panicky} {
		if c, err := gossh.Dial("tcp", addr, sshtest.ClientConfig("p", k)); err == nil {
			_ = c.Close()
			t.Errorf("key %s logged in; want refused", gossh.FingerprintSHA256(k.PublicKey()))
		}
	}
	client := sshtest.Dial(t, addr, allowed)
	if out, _, status := sshtest.Exec(t, client, "help"); status != 0 {
		t.Errorf("allowed key: help = %q, status %d", out, status)
	}
}

func TestForwardingAndSubsystemsRefused(t *testing.T) {
	cfg, _ := testConfig(t)
	_, addr := startServer(t, cfg, &testApp{})
	client := sshtest.Dial(t, addr, sshtest.NewKey(t))

	target, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	defer target.Close() //nolint:errcheck // test
	if c, err := client.Dial("tcp", target.Addr().String()); err == nil {
		_ = c.Close()
		t.Error("local port forwarding (direct-tcpip) was allowed")
	}
	if l, err := client.Listen("tcp", "127.0.0.1:0"); err == nil {
		_ = l.Close()
		t.Error("remote port forwarding (tcpip-forward) was allowed")
	}
	for _, req := range []struct {
		name    string
		payload []byte
	}{
		{"subsystem", gossh.Marshal(struct{ Name string }{"sftp"})},
		{"auth-agent-req@openssh.com", nil},
		{"x11-req", gossh.Marshal(struct {
			Single        bool
			Proto, Cookie string
			Screen        uint32
		}{false, "MIT-MAGIC-COOKIE-1", "00", 0})},
		{"env", gossh.Marshal(struct{ Name, Value string }{"LD_PRELOAD", "/tmp/x.so"})},
	} {
		// The server frees a closed session's slot (two per connection)
		// when the close reaches it: the previous ones may still be on
		// their way.
		var sess *gossh.Session
		sshtest.Eventually(t, 5*time.Second, func() bool {
			s, err := client.NewSession()
			sess = s
			return err == nil
		}, "a new session on the connection")
		ok, err := sess.SendRequest(req.name, true, req.payload)
		if err != nil || ok {
			t.Errorf("%s request: ok=%v err=%v, want refused", req.name, ok, err)
		}
		_ = sess.Close()
	}
}

func TestEnvIsFiltered(t *testing.T) {
	cfg, _ := testConfig(t)
	_, addr := startServer(t, cfg, &testApp{})
	client := sshtest.Dial(t, addr, sshtest.NewKey(t))
	sess, err := client.NewSession()
	if err != nil {
		t.Fatalf("new session: %v", err)
	}
	defer sess.Close() //nolint:errcheck // test
	for k, v := range map[string]string{"LANG": "de_DE.ISO-8859-1", "LC_ALL": "C.UTF-8", "PATH": "/evil", "COLORTERM": "truecolor"} {
		_ = sess.Setenv(k, v) // refusals are errors; we check the result below
	}
	out, err := sess.Output("env")
	if err != nil {
		t.Fatalf("env: %v", err)
	}
	want := "COLORTERM=truecolor\nLANG=de_DE.ISO-8859-1\nLC_ALL=C.UTF-8\nutf8=true profile=3\n"
	if string(out) != want {
		t.Errorf("env output:\n%s\nwant:\n%s", out, want)
	}
	if strings.Contains(string(out), "PATH") {
		t.Error("PATH reached the session")
	}
}
