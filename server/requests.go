package server

import (
	"encoding/binary"
	"strings"

	gossh "golang.org/x/crypto/ssh"
)

// Caps on what a client may put into a session before it starts.
const (
	maxTermLen    = 128  // bytes of the TERM name in pty-req
	maxEnvVars    = 16   // accepted env requests per session
	maxEnvNameLen = 64   // bytes
	maxEnvValLen  = 256  // bytes
	maxCommandLen = 1024 // bytes of an exec command
)

// filterRequests stands between the client's session requests and the
// library's session code, which stores every env request without limit and
// blocks its request loop on a one-slot window-change channel nobody may be
// reading (a goroutine leak, and a stuck session if it happens before the
// shell starts). The filter:
//   - answers window-change itself, clamped, into the session's resize box,
//     which never blocks; the library only ever sees the pty-req size;
//   - accepts only allowlisted, small env variables, a bounded number of them;
//   - refuses subsystems, X11, agent forwarding, signals and anything unknown;
//   - refuses oversized TERM names and commands;
//   - tells the session when the client's request stream ends
//     (channelClosed), which is how it learns its channel was closed.
//
// It never blocks on anything but handing a request to the library.
func (st *sessionState) filterRequests(in <-chan *gossh.Request, out chan<- *gossh.Request) {
	defer st.channelClosed()
	defer close(out)
	for req := range in {
		// Reply errors mean the client is gone; the loop ends with it.
		switch st.decide(req) {
		case forward:
			out <- req
		case accept:
			_ = req.Reply(true, nil)
		case refuse:
			_ = req.Reply(false, nil)
		}
	}
}

// verdict is what the filter does with a request.
type verdict int

const (
	refuse  verdict = iota // answer no
	accept                 // answer yes; the filter has handled it
	forward                // hand it to the library, which answers
)

// decide judges one request.
func (st *sessionState) decide(req *gossh.Request) verdict {
	switch req.Type {
	case "pty-req":
		if st.started || st.pty {
			return refuse
		}
		term, w, h, ok := parsePtyReq(req.Payload)
		if !ok || len(term) > maxTermLen {
			return refuse
		}
		st.pty = true
		st.resize.set(clampWindow(w, h))
		return forward
	case "window-change":
		w, h, ok := parseWindowChange(req.Payload)
		if !st.pty || !ok {
			return refuse
		}
		st.resize.set(clampWindow(w, h))
		return accept
	case "env":
		var kv struct{ Name, Value string }
		if st.started || st.envCount >= maxEnvVars || gossh.Unmarshal(req.Payload, &kv) != nil {
			return refuse
		}
		if !allowedEnv(kv.Name) || len(kv.Name) > maxEnvNameLen || len(kv.Value) > maxEnvValLen {
			return refuse
		}
		st.envCount++
		return forward
	case "shell":
		if st.started {
			return refuse
		}
		st.started = true
		return forward
	case "exec":
		var cmd struct{ Command string }
		if st.started || gossh.Unmarshal(req.Payload, &cmd) != nil {
			return refuse
		}
		if len(cmd.Command) > maxCommandLen {
			// Run it as an empty command that tells the client why, rather
			// than refuse the request without a word.
			st.commandTooLong.Store(true)
			req.Payload = gossh.Marshal(struct{ Command string }{""})
		}
		st.started = true
		return forward
	default:
		// subsystem, x11-req, auth-agent-req@openssh.com, signal, break,
		// keepalive@openssh.com (a "no" still proves we are alive), ...
		return refuse
	}
}

// allowedEnv reports whether an env variable may reach the session: only
// those that describe the terminal and locale.
func allowedEnv(name string) bool {
	switch name {
	case "TERM", "COLORTERM", "TERM_PROGRAM", "NO_COLOR", "LANG":
		return true
	}
	if rest, ok := strings.CutPrefix(name, "LC_"); ok && rest != "" {
		for _, r := range rest {
			if (r < 'A' || r > 'Z') && r != '_' {
				return false
			}
		}
		return true
	}
	return false
}

// parsePtyReq reads the terminal name and size of a pty-req payload (RFC 4254
// §6.2); the pixel sizes and terminal modes are not needed.
func parsePtyReq(p []byte) (term string, w, h uint32, ok bool) {
	if len(p) < 4 {
		return "", 0, 0, false
	}
	n := binary.BigEndian.Uint32(p)
	p = p[4:]
	if uint64(n) > uint64(len(p)) {
		return "", 0, 0, false
	}
	term, p = string(p[:n]), p[n:]
	if len(p) < 8 {
		return "", 0, 0, false
	}
	return term, binary.BigEndian.Uint32(p), binary.BigEndian.Uint32(p[4:]), true
}

// parseWindowChange reads the size of a window-change payload (RFC 4254
// §6.7).
func parseWindowChange(p []byte) (w, h uint32, ok bool) {
	if len(p) < 8 {
		return 0, 0, false
	}
	return binary.BigEndian.Uint32(p), binary.BigEndian.Uint32(p[4:]), true
}
