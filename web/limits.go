package web

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
)

// gate holds the site's limits on open requests, live streams included:
// overall and per client address, as the SSH side limits connections.
type gate struct {
	max, perIP int

	mu     sync.Mutex
	open   int
	byAddr map[string]int
}

func newGate(max, perIP int) *gate {
	return &gate{max: max, perIP: perIP, byAddr: map[string]int{}}
}

// enter takes a place for a request of addr; it says why not when the
// site is full or addr has its most open.
func (g *gate) enter(addr string) (ok bool, why string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.open >= g.max:
		return false, "The page is full: too many viewers at once. Try again in a minute."
	case g.byAddr[addr] >= g.perIP:
		return false, fmt.Sprintf("Too many connections from your address (%s): close a few tabs and try again.", addr)
	}
	g.open++
	g.byAddr[addr]++
	return true, ""
}

// leave gives a place back.
func (g *gate) leave(addr string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open--
	if g.byAddr[addr] <= 1 {
		delete(g.byAddr, addr)
	} else {
		g.byAddr[addr]--
	}
}

// wrap serves h within the limits, and sets the headers every answer
// carries: no framing by other sites, no guessing of types, no referrer.
func (g *gate) wrap(trusted []netip.Prefix, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		addr := addrKey(clientAddr(r, trusted))
		hdr := w.Header()
		hdr.Set("X-Content-Type-Options", "nosniff")
		hdr.Set("X-Frame-Options", "DENY")
		hdr.Set("Referrer-Policy", "no-referrer")
		hdr.Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
		ok, why := g.enter(addr)
		if !ok {
			hdr.Set("Retry-After", "60")
			http.Error(w, why, http.StatusTooManyRequests)
			return
		}
		defer g.leave(addr)
		h.ServeHTTP(w, r)
	})
}

// clientAddr is the address of the client of r: the connection's peer,
// or, when the peer is one of the trusted balancers, the last address of
// X-Forwarded-For (the one the balancer appended: what the client wrote
// before it is the client's to choose).
func clientAddr(r *http.Request, trusted []netip.Prefix) netip.Addr {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		a, _ := netip.ParseAddr(host)
		return a.Unmap()
	}
	ip := peer.Addr().Unmap()
	if !trustedAddr(ip, trusted) {
		return ip
	}
	values := r.Header.Values("X-Forwarded-For")
	if len(values) == 0 {
		return ip
	}
	parts := strings.Split(values[len(values)-1], ",")
	fwd, err := netip.ParseAddr(strings.TrimSpace(parts[len(parts)-1]))
	if err != nil {
		return ip
	}
	return fwd.Unmap()
}

// trustedAddr reports whether ip is one of the balancers.
func trustedAddr(ip netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// addrKey names a client for the per-address limit as the SSH side
// does: an IPv4 address, or an IPv6 address's /64 (one customer usually
// gets a whole /64).
func addrKey(ip netip.Addr) string {
	if !ip.IsValid() {
		return "unknown"
	}
	if ip.Is4() {
		return ip.String()
	}
	p, err := ip.WithZone("").Prefix(64)
	if err != nil {
		return ip.String()
	}
	return p.String()
}
