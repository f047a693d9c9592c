package server

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The PROXY protocol (HAProxy's proxy-protocol.txt, versions 1 and 2): a
// load balancer that passes TCP through sends one header with the client's
// address before the client's bytes.

// proxyV2Sig starts every version 2 header.
var proxyV2Sig = []byte("\r\n\r\n\x00\r\nQUIT\n")

// Limits of the format: a version 1 line is at most 107 bytes with its CRLF;
// a version 2 address block (with TLVs) may in principle be 64 KiB, but
// nothing we accept needs more than the largest address plus some TLVs.
const (
	maxProxyV1       = 107
	maxProxyV2Body   = 1024
	proxyReadTimeout = 10 * time.Second
)

// Errors of the PROXY header parser.
var (
	errProxyNotHeader = errors.New("proxy protocol: not a PROXY header")
	errProxyMalformed = errors.New("proxy protocol: malformed header")
	errProxyTooLong   = errors.New("proxy protocol: header too long")
	errProxyUntrusted = errors.New("proxy protocol: header from an untrusted address")
)

// proxyHeader is what a PROXY header says. Local is set for a connection
// the proxy makes on its own behalf (a v2 LOCAL command, a v1 UNKNOWN line,
// an address family other than TCP over IPv4 or IPv6): it carries no client
// address, and the proxy's own address stands.
type proxyHeader struct {
	Src, Dst netip.AddrPort
	Local    bool
}

// readProxyHeader reads exactly one PROXY header, version 1 or 2, from r and
// nothing after it (so r needs no buffering and the SSH stream that follows
// is untouched).
func readProxyHeader(r io.Reader) (proxyHeader, error) {
	var start [5]byte
	if _, err := io.ReadFull(r, start[:]); err != nil {
		return proxyHeader{}, fmt.Errorf("proxy protocol: read header: %w", err)
	}
	switch {
	case string(start[:]) == "PROXY":
		return readProxyV1(r)
	case bytes.Equal(start[:], proxyV2Sig[:5]):
		return readProxyV2(r)
	}
	return proxyHeader{}, errProxyNotHeader
}

// readProxyV1 reads the rest of a version 1 line after "PROXY":
// " TCP4 SRC DST SPORT DPORT\r\n", " TCP6 …" or " UNKNOWN…\r\n".
func readProxyV1(r io.Reader) (proxyHeader, error) {
	line := make([]byte, 0, maxProxyV1)
	var b [1]byte
	for {
		if len(line) >= maxProxyV1-5 {
			return proxyHeader{}, errProxyTooLong
		}
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return proxyHeader{}, fmt.Errorf("proxy protocol: read v1 line: %w", err)
		}
		line = append(line, b[0])
		if b[0] == '\n' {
			break
		}
	}
	text, ok := strings.CutSuffix(string(line), "\r\n")
	if !ok {
		return proxyHeader{}, errProxyMalformed
	}
	return parseProxyV1(text)
}

// parseProxyV1 parses a version 1 line after "PROXY", without its CRLF.
func parseProxyV1(text string) (proxyHeader, error) {
	if text == " UNKNOWN" || strings.HasPrefix(text, " UNKNOWN ") {
		return proxyHeader{Local: true}, nil
	}
	f := strings.Split(text, " ")
	if len(f) != 6 || f[0] != "" || (f[1] != "TCP4" && f[1] != "TCP6") {
		return proxyHeader{}, errProxyMalformed
	}
	src, err1 := netip.ParseAddr(f[2])
	dst, err2 := netip.ParseAddr(f[3])
	sport, err3 := parsePort(f[4])
	dport, err4 := parsePort(f[5])
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return proxyHeader{}, fmt.Errorf("%w: %w", errProxyMalformed, err)
	}
	want4 := f[1] == "TCP4"
	if src.Zone() != "" || dst.Zone() != "" || src.Is4() != want4 || dst.Is4() != want4 {
		return proxyHeader{}, errProxyMalformed
	}
	return proxyHeader{Src: netip.AddrPortFrom(src, sport), Dst: netip.AddrPortFrom(dst, dport)}, nil
}

// parsePort parses a decimal port without sign or leading zeros.
func parsePort(s string) (uint16, error) {
	if s == "" || (len(s) > 1 && s[0] == '0') || strings.ContainsAny(s, "+-") {
		return 0, fmt.Errorf("bad port %q", s)
	}
	n, err := strconv.ParseUint(s, 10, 16)
	if err != nil {
		return 0, fmt.Errorf("bad port %q", s)
	}
	return uint16(n), nil
}

// readProxyV2 reads the rest of a version 2 header after its first five
// bytes.
func readProxyV2(r io.Reader) (proxyHeader, error) {
	var head [11]byte // rest of the signature, version/command, family, length
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return proxyHeader{}, fmt.Errorf("proxy protocol: read v2 header: %w", err)
	}
	if !bytes.Equal(head[:7], proxyV2Sig[5:]) {
		return proxyHeader{}, errProxyNotHeader
	}
	verCmd, fam, size := head[7], head[8], int(binary.BigEndian.Uint16(head[9:]))
	if verCmd>>4 != 2 || verCmd&0xf > 1 {
		return proxyHeader{}, errProxyMalformed
	}
	if size > maxProxyV2Body {
		return proxyHeader{}, errProxyTooLong
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(r, body); err != nil {
		return proxyHeader{}, fmt.Errorf("proxy protocol: read v2 addresses: %w", err)
	}
	return parseProxyV2(verCmd&0xf, fam, body)
}

// parseProxyV2 decodes the addresses of a version 2 header: cmd 0 is LOCAL,
// 1 PROXY; fam is the address family and transport byte.
func parseProxyV2(cmd, fam byte, body []byte) (proxyHeader, error) {
	if cmd == 0 {
		return proxyHeader{Local: true}, nil
	}
	switch fam {
	case 0x11: // TCP over IPv4
		if len(body) < 12 {
			return proxyHeader{}, errProxyMalformed
		}
		src := netip.AddrFrom4([4]byte(body[0:4]))
		dst := netip.AddrFrom4([4]byte(body[4:8]))
		return proxyHeader{
			Src: netip.AddrPortFrom(src, binary.BigEndian.Uint16(body[8:])),
			Dst: netip.AddrPortFrom(dst, binary.BigEndian.Uint16(body[10:])),
		}, nil
	case 0x21: // TCP over IPv6
		if len(body) < 36 {
			return proxyHeader{}, errProxyMalformed
		}
		src := netip.AddrFrom16([16]byte(body[0:16]))
		dst := netip.AddrFrom16([16]byte(body[16:32]))
		return proxyHeader{
			Src: netip.AddrPortFrom(src, binary.BigEndian.Uint16(body[32:])),
			Dst: netip.AddrPortFrom(dst, binary.BigEndian.Uint16(body[34:])),
		}, nil
	}
	// UNSPEC, UDP, UNIX sockets: no TCP client address to use.
	return proxyHeader{Local: true}, nil
}

// appendProxyV1 and appendProxyV2 encode h; the tests, the fuzz target and
// loadgen's fake proxy use them.
func appendProxyV1(b []byte, h proxyHeader) []byte {
	if h.Local {
		return append(b, "PROXY UNKNOWN\r\n"...)
	}
	proto := "TCP6"
	if h.Src.Addr().Is4() {
		proto = "TCP4"
	}
	return fmt.Appendf(b, "PROXY %s %s %s %d %d\r\n", proto, h.Src.Addr(), h.Dst.Addr(), h.Src.Port(), h.Dst.Port())
}

func appendProxyV2(b []byte, h proxyHeader) []byte {
	b = append(b, proxyV2Sig...)
	if h.Local {
		return append(b, 0x20, 0x00, 0, 0)
	}
	if h.Src.Addr().Is4() {
		b = append(b, 0x21, 0x11, 0, 12)
		s, d := h.Src.Addr().As4(), h.Dst.Addr().As4()
		b = append(append(b, s[:]...), d[:]...)
	} else {
		b = append(b, 0x21, 0x21, 0, 36)
		s, d := h.Src.Addr().As16(), h.Dst.Addr().As16()
		b = append(append(b, s[:]...), d[:]...)
	}
	b = binary.BigEndian.AppendUint16(b, h.Src.Port())
	return binary.BigEndian.AppendUint16(b, h.Dst.Port())
}

// trustedProxy reports whether addr is one of Config.TrustedProxies.
func (s *Server) trustedProxy(addr net.Addr) bool {
	if len(s.cfg.TrustedProxies) == 0 {
		return false
	}
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return false
	}
	ip := ap.Addr().Unmap().WithZone("")
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// acceptProxy reads the PROXY header of a connection from a trusted proxy
// and returns the connection as coming from the client the header names.
// A connection from anyone else is returned guarded: if it starts with a
// PROXY header, its first read fails (x/crypto would otherwise skip the
// header as a line before the version and serve it under the proxy's
// address).
func (s *Server) acceptProxy(nc net.Conn) (net.Conn, error) {
	if !s.trustedProxy(nc.RemoteAddr()) {
		return &guardedConn{Conn: nc, srv: s}, nil
	}
	_ = nc.SetReadDeadline(s.now().Add(min(proxyReadTimeout, s.cfg.HandshakeTimeout)))
	h, err := readProxyHeader(nc)
	_ = nc.SetReadDeadline(time.Time{})
	if err != nil {
		s.stats.refusal(refusedProxy)
		s.events.Note(ipKey(nc.RemoteAddr()), "proxy_error", "closing a connection from a trusted proxy without a valid PROXY header",
			"remote", nc.RemoteAddr().String(), "err", err.Error())
		return nil, err
	}
	if h.Local {
		return nc, nil
	}
	src := h.Src
	if src.Addr().Is4In6() {
		src = netip.AddrPortFrom(src.Addr().Unmap(), src.Port())
	}
	return &proxiedConn{Conn: nc, remote: net.TCPAddrFromAddrPort(src)}, nil
}

// proxiedConn is a connection through a trusted proxy: its remote address
// is the client's, from the PROXY header.
type proxiedConn struct {
	net.Conn
	remote net.Addr
}

// RemoteAddr returns the client's address.
func (c *proxiedConn) RemoteAddr() net.Addr { return c.remote }

// CloseWrite half-closes the connection to the proxy, which passes it on.
func (c *proxiedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite() //nolint:wrapcheck // as net.TCPConn
	}
	return nil
}

// guardedConn is a connection that must not start with a PROXY header: its
// reads fail if the first bytes are one.
type guardedConn struct {
	net.Conn
	srv *Server

	mu      sync.Mutex
	seen    []byte // the first bytes read, until it is clear they are no header
	cleared bool
}

// Read reads from the client and fails if the stream starts with a PROXY
// header.
func (c *guardedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cleared || n == 0 {
		return n, err //nolint:wrapcheck // x/crypto inspects io.EOF
	}
	c.seen = append(c.seen, p[:min(n, 5-len(c.seen))]...)
	v1, v2 := bytes.HasPrefix([]byte("PROXY"), c.seen), bytes.HasPrefix(proxyV2Sig, c.seen)
	switch {
	case !v1 && !v2:
		c.cleared = true
	case len(c.seen) == 5:
		remote := c.Conn.RemoteAddr()
		c.srv.stats.refusal(refusedProxy)
		c.srv.events.Note(ipKey(remote), refusedProxy, "connection refused: a PROXY header from an address not in --proxy-protocol",
			"remote", remote.String())
		_ = c.Conn.Close()
		return 0, errProxyUntrusted
	}
	return n, err //nolint:wrapcheck // x/crypto inspects io.EOF
}

// CloseWrite half-closes the connection.
func (c *guardedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite() //nolint:wrapcheck // as net.TCPConn
	}
	return nil
}
