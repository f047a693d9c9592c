package storetest

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"
)

// Proxy is a TCP proxy in front of a database that a test cuts, as
// `pg_ctl -m immediate stop` does (every connection ends, new ones are
// refused), and restores: what runs behind it sees the database go and
// come back, while the database itself (shared with other tests) stays.
type Proxy struct {
	t        testing.TB
	addr     string // where the proxy listens
	upstream string

	mu    sync.Mutex
	ln    net.Listener // nil while cut
	conns map[net.Conn]bool
}

// The ports a Proxy may listen on: the first free one of these.
const proxyLow, proxyHigh = 25380, 25399

// NewProxy starts a proxy to upstream (host:port), cut when t ends; it
// skips t when no port of its range is free.
func NewProxy(t testing.TB, upstream string) *Proxy {
	t.Helper()
	p := &Proxy{t: t, upstream: upstream, conns: map[net.Conn]bool{}}
	for port := proxyLow; port <= proxyHigh; port++ {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			p.addr = ln.Addr().String()
			p.serve(ln)
			t.Cleanup(p.Cut)
			return p
		}
	}
	t.Skipf("no free port in %d–%d for the proxy", proxyLow, proxyHigh)
	return nil
}

func (p *Proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.pipe(c)
		}
	}()
}

func (p *Proxy) pipe(c net.Conn) {
	up, err := net.Dial("tcp", p.upstream)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil {
		p.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	p.conns[c], p.conns[up] = true, true
	p.mu.Unlock()
	done := func() {
		c.Close()
		up.Close()
		p.mu.Lock()
		delete(p.conns, c)
		delete(p.conns, up)
		p.mu.Unlock()
	}
	go func() { _, _ = io.Copy(up, c); done() }()
	_, _ = io.Copy(c, up)
	done()
}

// Cut ends every connection and refuses new ones.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// Restore listens again on the same address.
func (p *Proxy) Restore() {
	p.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ln, err := net.Listen("tcp", p.addr)
		if err == nil {
			p.serve(ln)
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("listen again on %s: %v", p.addr, err)
		}
		time.Sleep(50 * time.Millisecond) // the port may be held a moment: poll for it
	}
}

// Via is the database URL dbURL through the proxy, with a short connect
// timeout.
func (p *Proxy) Via(t testing.TB, dbURL string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = p.addr
	q := u.Query()
	q.Set("connect_timeout", "2")
	u.RawQuery = q.Encode()
	return u.String()
}
