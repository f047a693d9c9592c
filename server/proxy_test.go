package server

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/server/sshtest"
)

func TestReadProxyHeader(t *testing.T) {
	v4 := proxyHeader{Src: netip.MustParseAddrPort("203.0.113.7:5555"), Dst: netip.MustParseAddrPort("192.0.2.1:22")}
	v6 := proxyHeader{Src: netip.MustParseAddrPort("[2001:db8::7]:5555"), Dst: netip.MustParseAddrPort("[2001:db8::1]:22")}
	tests := []struct {
		name string
		in   string
		want proxyHeader
		err  error
	}{
		{"v1 tcp4", "PROXY TCP4 203.0.113.7 192.0.2.1 5555 22\r\n", v4, nil},
		{"v1 tcp6", "PROXY TCP6 2001:db8::7 2001:db8::1 5555 22\r\n", v6, nil},
		{"v1 unknown", "PROXY UNKNOWN\r\n", proxyHeader{Local: true}, nil},
		{"v1 unknown with addresses", "PROXY UNKNOWN ffff::1 ffff::2 1 2\r\n", proxyHeader{Local: true}, nil},
		{"v2 tcp4", string(appendProxyV2(nil, v4)), v4, nil},
		{"v2 tcp6", string(appendProxyV2(nil, v6)), v6, nil},
		{"v2 local", string(appendProxyV2(nil, proxyHeader{Local: true})), proxyHeader{Local: true}, nil},
		{"v2 with a TLV", string(append(append(proxyV2Sig[:12:12], 0x21, 0x11, 0, 16, 203, 0, 113, 7, 192, 0, 2, 1, 0x15, 0xb3, 0, 22), 0x04, 0, 1, 'x')), v4, nil},
		{"v2 unix", string(append(proxyV2Sig[:12:12], 0x21, 0x31, 0, 0)), proxyHeader{Local: true}, nil},
		{"ssh instead", "SSH-2.0-OpenSSH_9.2\r\n", proxyHeader{}, errProxyNotHeader},
		{"v1 lf only", "PROXY TCP4 203.0.113.7 192.0.2.1 5555 22\n", proxyHeader{}, errProxyMalformed},
		{"v1 family mismatch", "PROXY TCP4 2001:db8::7 192.0.2.1 5555 22\r\n", proxyHeader{}, errProxyMalformed},
		{"v1 bad port", "PROXY TCP4 203.0.113.7 192.0.2.1 65536 22\r\n", proxyHeader{}, errProxyMalformed},
		{"v1 leading zero", "PROXY TCP4 203.0.113.7 192.0.2.1 05555 22\r\n", proxyHeader{}, errProxyMalformed},
		{"v1 extra field", "PROXY TCP4 203.0.113.7 192.0.2.1 5555 22 x\r\n", proxyHeader{}, errProxyMalformed},
		{"v1 too long", "PROXY TCP6 " + strings.Repeat("1", 120) + "\r\n", proxyHeader{}, errProxyTooLong},
		{"v2 version 1", string(append(proxyV2Sig[:12:12], 0x11, 0x11, 0, 0)), proxyHeader{}, errProxyMalformed},
		{"v2 short addresses", string(append(proxyV2Sig[:12:12], 0x21, 0x11, 0, 4, 1, 2, 3, 4)), proxyHeader{}, errProxyMalformed},
		{"v2 huge", string(append(proxyV2Sig[:12:12], 0x21, 0x11, 0xff, 0xff)), proxyHeader{}, errProxyTooLong},
		{"v2 bad signature", "\r\n\r\n\x00\r\nQUIZ\n\x21\x11\x00\x00", proxyHeader{}, errProxyNotHeader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := strings.NewReader(tt.in + "SSH-2.0-after")
			got, err := readProxyHeader(r)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("got %+v, %v; want %v", got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
			if rest, _ := io.ReadAll(r); string(rest) != "SSH-2.0-after" {
				t.Errorf("left %q after the header, want the SSH stream untouched", rest)
			}
		})
	}
}

// FuzzProxyHeader: the parser never panics, never reads past a header it
// accepts, and what it accepts encodes back to the same header.
func FuzzProxyHeader(f *testing.F) {
	f.Add([]byte("PROXY TCP4 203.0.113.7 192.0.2.1 5555 22\r\n"))
	f.Add([]byte("PROXY TCP6 2001:db8::7 2001:db8::1 5555 22\r\n"))
	f.Add([]byte("PROXY UNKNOWN\r\n"))
	f.Add(appendProxyV2(nil, proxyHeader{Src: netip.MustParseAddrPort("203.0.113.7:5555"), Dst: netip.MustParseAddrPort("192.0.2.1:22")}))
	f.Add(appendProxyV2(nil, proxyHeader{Src: netip.MustParseAddrPort("[2001:db8::7]:1"), Dst: netip.MustParseAddrPort("[::1]:2")}))
	f.Add([]byte("SSH-2.0-OpenSSH_9.2\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		h, err := readProxyHeader(r)
		if err != nil {
			return
		}
		used := len(data) - r.Len()
		if used > 16+maxProxyV2Body {
			t.Fatalf("read %d bytes for one header", used)
		}
		if h.Local {
			return
		}
		for _, enc := range [][]byte{appendProxyV1(nil, h), appendProxyV2(nil, h)} {
			if h.Src.Addr().Is4() != h.Dst.Addr().Is4() && enc[0] == 'P' {
				continue // v1 cannot mix families (v2 can't either, but decodes them)
			}
			back, err := readProxyHeader(bytes.NewReader(enc))
			if err != nil || back != h {
				t.Fatalf("%+v encoded as %q decodes as %+v, %v", h, enc, back, err)
			}
		}
	})
}

// dialProxied connects to addr as a proxy would: it sends header (nil for
// none) and then speaks SSH for the client over the same connection.
func dialProxied(t *testing.T, addr string, header []byte, key gossh.Signer) (*gossh.Client, error) {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	if header != nil {
		if _, err := nc.Write(header); err != nil {
			_ = nc.Close()
			return nil, err
		}
	}
	_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
	c, chans, reqs, err := gossh.NewClientConn(nc, addr, sshtest.ClientConfig("p", key))
	if err != nil {
		_ = nc.Close()
		return nil, err
	}
	_ = nc.SetDeadline(time.Time{})
	client := gossh.NewClient(c, chans, reqs)
	t.Cleanup(func() { _ = client.Close() })
	return client, nil
}

func v2From(src string) []byte {
	return appendProxyV2(nil, proxyHeader{Src: netip.MustParseAddrPort(src), Dst: netip.MustParseAddrPort("192.0.2.1:22")})
}

// Issue 10 item 6: behind a trusted proxy, sessions, per-address limits and
// logs see the client's address from the PROXY header.
func TestProxyProtocolTrusted(t *testing.T) {
	cfg, logs := testConfig(t)
	cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	cfg.MaxConnsPerIP = 1
	_, addr := startServer(t, cfg, &testApp{})
	key := sshtest.NewKey(t)

	a, err := dialProxied(t, addr, v2From("203.0.113.7:5555"), key)
	if err != nil {
		t.Fatalf("v2 client: %v", err)
	}
	if out, _, _ := sshtest.Exec(t, a, "remote"); strings.TrimSpace(out) != "203.0.113.7:5555" {
		t.Errorf("session sees %q, want the client's address", out)
	}
	hdr := appendProxyV1(nil, proxyHeader{Src: netip.MustParseAddrPort("[2001:db8::9]:4444"), Dst: netip.MustParseAddrPort("[2001:db8::1]:22")})
	b, err := dialProxied(t, addr, hdr, key)
	if err != nil {
		t.Fatalf("a second client through the same proxy: %v", err)
	}
	if out, _, _ := sshtest.Exec(t, b, "remote"); strings.TrimSpace(out) != "[2001:db8::9]:4444" {
		t.Errorf("v1 session sees %q, want the client's address", out)
	}
	_, err = dialProxied(t, addr, v2From("203.0.113.7:6666"), key)
	if err == nil || !strings.Contains(err.Error(), "(203.0.113.7)") {
		t.Fatalf("second connection of 203.0.113.7: %v, want refused naming that address", err)
	}
	if !strings.Contains(logs.String(), "remote=203.0.113.7:6666") {
		t.Error("the refusal is not logged with the client's address")
	}
	// The proxy's own checks (LOCAL) are served as the proxy.
	c, err := dialProxied(t, addr, appendProxyV2(nil, proxyHeader{Local: true}), key)
	if err != nil {
		t.Fatalf("LOCAL: %v", err)
	}
	if out, _, _ := sshtest.Exec(t, c, "remote"); !strings.HasPrefix(out, "127.0.0.1:") {
		t.Errorf("LOCAL session sees %q, want the proxy's address", out)
	}
	// A trusted proxy must send a header.
	if _, err := dialProxied(t, addr, nil, key); err == nil {
		t.Error("a connection from the trusted proxy without a header was served")
	}
}

// A PROXY header from an address that is not a trusted proxy is refused,
// with the flag set or not; plain SSH from it is served.
func TestProxyProtocolUntrusted(t *testing.T) {
	for _, tt := range []struct {
		name    string
		trusted []netip.Prefix
	}{
		{"no trusted proxies", nil},
		{"another proxy trusted", []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, logs := testConfig(t)
			cfg.TrustedProxies = tt.trusted
			srv, addr := startServer(t, cfg, &testApp{})
			key := sshtest.NewKey(t)
			for _, hdr := range [][]byte{v2From("203.0.113.7:5555"), []byte("PROXY TCP4 203.0.113.7 192.0.2.1 5555 22\r\n")} {
				if _, err := dialProxied(t, addr, hdr, key); err == nil {
					t.Errorf("header %q from an untrusted address was accepted", hdr[:5])
				}
			}
			if got := srv.Stats().Refused[refusedProxy]; got != 2 {
				t.Errorf("proxy refusals counted %d, want 2", got)
			}
			if !strings.Contains(logs.String(), "PROXY header from an address not in --proxy-protocol") {
				t.Error("the refusal is not logged")
			}
			client, err := dialProxied(t, addr, nil, key)
			if err != nil {
				t.Fatalf("plain SSH: %v", err)
			}
			if out, _, _ := sshtest.Exec(t, client, "remote"); !strings.HasPrefix(out, "127.0.0.1:") {
				t.Errorf("session sees %q", out)
			}
		})
	}
}

// TestProxyTrustingEveryAddressWarns: --proxy-protocol 0.0.0.0/0 was
// taken without a word, though it lets any client choose the address
// the per-address limits count. The server warns at start and says so
// in Stats (a gauge in /metrics); a balancer's own address does not.
func TestProxyTrustingEveryAddressWarns(t *testing.T) {
	for _, tt := range []struct {
		proxies string
		warn    bool
	}{
		{"0.0.0.0/0", true},
		{"10.0.0.5, ::/0", true},
		{"10.0.0.0/8, 2001:db8::/32", false},
	} {
		t.Run(tt.proxies, func(t *testing.T) {
			cfg, logs := testConfig(t)
			var err error
			if cfg.TrustedProxies, err = ParsePrefixes(tt.proxies); err != nil {
				t.Fatal(err)
			}
			srv, err := New(cfg, &testApp{})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			if got := strings.Contains(logs.String(), "trusts every address"); got != tt.warn {
				t.Errorf("warned %v, want %v; log:\n%s", got, tt.warn, logs)
			}
			if got := srv.Stats().ProxyTrustsEveryAddress; got != tt.warn {
				t.Errorf("Stats().ProxyTrustsEveryAddress = %v, want %v", got, tt.warn)
			}
		})
	}
}
