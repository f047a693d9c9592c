package server

import (
	"encoding/binary"
	"io"
	"net"
	"slices"
	"sync/atomic"
	"time"
)

// SSH disconnect reason codes (RFC 4253 §11.1).
const (
	disconnectHostNotAllowed     = 1
	disconnectByApplication      = 11
	disconnectTooManyConnections = 12
)

// maxRefusing bounds the refused connections that wait for their client to
// hang up after being told why; beyond it they are closed at once, so a
// flood of refusals holds a bounded number of goroutines.
const maxRefusing = 64

// refuseTimeout bounds the time spent telling a refused client why.
const refuseTimeout = 2 * time.Second

// serverVersion is the version line the SSH layer sends (the x/crypto
// default); a refusal sends the same.
const serverVersion = "SSH-2.0-Go"

// refuse counts and logs the refusal r of nc and, when it can, tells the
// client why before the connection is closed: the server's version line and
// an SSH_MSG_DISCONNECT naming the limit, in the clear (before the key
// exchange, as RFC 4253 allows). OpenSSH shows it as "Received disconnect
// from …: <message>"; a bare close would only say "Connection closed".
func (s *Server) refuse(nc net.Conn, key, remote string, r *refusal) {
	s.stats.refusal(r.kind)
	s.events.Note(key, r.kind, "connection refused", "remote", remote, "reason", r.kind)
	code := uint32(disconnectTooManyConnections)
	switch r.kind {
	case refusedPenalised, refusedProxy:
		code = disconnectHostNotAllowed
	case refusedShutdown:
		code = disconnectByApplication
	}
	// A new connection's send buffer takes the few bytes at once; the
	// deadline only guards against a peer that is already gone.
	_ = nc.SetDeadline(s.now().Add(refuseTimeout))
	if _, err := nc.Write(append([]byte(serverVersion+"\r\n"), disconnectPacket(code, r.msg)...)); err != nil {
		return
	}
	// Half-close and wait for the client to hang up: closing with its
	// version line unread would send a reset, which may discard the message
	// before the client reads it. Only maxRefusing connections wait at once;
	// the others are closed at once and their message may be lost.
	select {
	case s.refusing <- struct{}{}:
	default:
		return
	}
	defer func() { <-s.refusing }()
	if cw, ok := nc.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(nc, 64<<10))
}

// disconnectPacket is an unencrypted SSH binary packet (RFC 4253 §6) holding
// SSH_MSG_DISCONNECT with code and msg.
func disconnectPacket(code uint32, msg string) []byte {
	payload := []byte{1} // SSH_MSG_DISCONNECT
	payload = binary.BigEndian.AppendUint32(payload, code)
	payload = binary.BigEndian.AppendUint32(payload, uint32(len(msg)))
	payload = append(payload, msg...)
	payload = binary.BigEndian.AppendUint32(payload, 0) // language tag
	// Length, padding length, payload and padding make a multiple of 8,
	// with at least 4 bytes of padding.
	pad := 8 - (5+len(payload))%8
	if pad < 4 {
		pad += 8
	}
	pkt := binary.BigEndian.AppendUint32(nil, uint32(1+len(payload)+pad))
	pkt = append(pkt, byte(pad))
	pkt = append(pkt, payload...)
	return append(pkt, make([]byte, pad)...)
}

// Stats are the server's counters since it started, for metrics.
type Stats struct {
	// Refused counts refused connections by reason: server_full,
	// address_full, address_unauth_full, startups_full, startups_drop,
	// penalised, shutting_down, proxy_header.
	Refused map[string]uint64
	// LoginTimeouts counts connections closed by the handshake deadline.
	LoginTimeouts uint64
	// Evicted counts connections still logging in that were closed to make
	// room for a newcomer when the startups budget was full.
	Evicted uint64
	// WriteTimeouts counts sessions closed because their output was blocked
	// for WriteTimeout.
	WriteTimeouts uint64
	// Unauthenticated is the number of connections logging in now.
	Unauthenticated int
	// ProxyTrustsEveryAddress is set when Config.TrustedProxies holds
	// 0.0.0.0/0 or ::/0: any client may choose the address the limits
	// count (a misconfiguration the server warns of at start).
	ProxyTrustsEveryAddress bool
}

// counters holds the numbers behind Stats.
type counters struct {
	refused       [len(refusalKinds)]atomic.Uint64
	loginTimeouts atomic.Uint64
	evicted       atomic.Uint64
	writeTimeouts atomic.Uint64
}

// refusal counts a refusal of kind.
func (c *counters) refusal(kind string) {
	if i := slices.Index(refusalKinds[:], kind); i >= 0 {
		c.refused[i].Add(1)
	}
}

// Stats returns the server's counters.
func (s *Server) Stats() Stats {
	st := Stats{
		Refused:         make(map[string]uint64, len(refusalKinds)),
		LoginTimeouts:   s.stats.loginTimeouts.Load(),
		Evicted:         s.stats.evicted.Load(),
		WriteTimeouts:   s.stats.writeTimeouts.Load(),
		Unauthenticated: s.limits.unauthCount(),

		ProxyTrustsEveryAddress: s.cfg.trustsEveryAddress(),
	}
	for i, kind := range refusalKinds {
		st.Refused[kind] = s.stats.refused[i].Load()
	}
	return st
}
