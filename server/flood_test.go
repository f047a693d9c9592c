package server

import (
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"pyramid/server/sshtest"
)

// halfOpenFlood keeps perAddr connections open from each of n loopback
// addresses (127.0.0.first …), each sending a version line and then nothing,
// reconnecting as soon as the server closes one, until stop is closed.
func halfOpenFlood(addr string, first, n, perAddr int, stop <-chan struct{}) *sync.WaitGroup {
	var wg sync.WaitGroup
	for a := range n {
		from := &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(first+a))}
		for range perAddr {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					d := net.Dialer{LocalAddr: from, Timeout: time.Second}
					conn, err := d.Dial("tcp", addr)
					if err != nil {
						select {
						case <-stop:
							return
						case <-time.After(20 * time.Millisecond):
						}
						continue
					}
					_, _ = io.WriteString(conn, "SSH-2.0-flood\r\n")
					closed := make(chan struct{})
					go func() { _, _ = io.Copy(io.Discard, conn); close(closed) }()
					select {
					case <-stop:
					case <-closed:
					}
					_ = conn.Close()
					<-closed
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
			}()
		}
	}
	return &wg
}

// Issue 12 item 2: 60 addresses each holding their unauthenticated slots
// used to fill --max-conns 200 and lock every newcomer out. With the
// startups budget, eviction of stale logins and penalties, a player keeps
// playing and 20 newcomers from other addresses all get in at the first try.
func TestLoginFloodFromManyAddresses(t *testing.T) {
	cfg, logs := testConfig(t)
	cfg.MaxConns = 200
	cfg.LogInterval = time.Hour
	srv, addr := startServer(t, cfg, &testApp{})

	player := sshtest.Dial(t, addr, sshtest.NewKey(t))
	term := sshtest.OpenTerm(t, player, sshtest.TermOptions{})
	term.WaitFor(t, "size:", 2*time.Second)

	stop := make(chan struct{})
	flood := halfOpenFlood(addr, 10, 60, cfg.MaxUnauthPerIP+1, stop)
	defer func() { close(stop); flood.Wait() }()
	sshtest.Eventually(t, 5*time.Second, func() bool {
		return srv.limits.unauthCount() >= srv.cfg.Startups.Full
	}, "the flood did not fill the startups budget")
	// A flood's first wave looks like players connecting until its
	// connections have been silent for a round trip too long.
	sshtest.Eventually(t, 5*time.Second, func() bool { return srv.limits.staleCount() >= srv.cfg.Startups.Full/2 }, "the flood's connections did not go stale")

	var failed []string
	for i := range 20 {
		from := fmt.Sprintf("127.0.0.%d", 100+i)
		client, err := sshtest.DialFrom(t, addr, from, sshtest.NewKey(t))
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", from, err))
			continue
		}
		if out, _, status := sshtest.Exec(t, client, "help"); status != 0 || !strings.Contains(out, "usage") {
			failed = append(failed, fmt.Sprintf("%s: help status %d %q", from, status, out))
		}
		_ = client.Close()
		key := typingKeys[i%len(typingKeys)]
		if err := term.Type(key); err != nil {
			t.Fatalf("the player's session ended during the flood: %v", err)
		}
		term.WaitFor(t, "key: ["+key+"]", 2*time.Second)
	}
	if len(failed) > 0 {
		t.Errorf("%d of 20 newcomers refused during the flood:\n%s", len(failed), strings.Join(failed, "\n"))
	}
	st := srv.Stats()
	t.Logf("stats: %+v", st)
	if st.Unauthenticated > srv.cfg.Startups.Full {
		t.Errorf("%d connections logging in, over the budget of %d", st.Unauthenticated, srv.cfg.Startups.Full)
	}
	if n := strings.Count(logs.String(), "\n"); n > 60*4+100 {
		t.Errorf("%d log lines for the flood, want about one per address", n)
	}
}

// staleCount counts the stale connections logging in.
func (l *limiter) staleCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	now, n := l.now(), 0
	for _, list := range l.unauth {
		for _, cs := range list {
			if stale(cs, now) {
				n++
			}
		}
	}
	return n
}
