package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// loadConfig is what one load run does.
type loadConfig struct {
	addr          string
	sessions      int
	every         time.Duration
	duration      time.Duration
	dialers       int
	pid           int
	width, height int
	key           string // keys pressed in turn (see pressKeys)
	trace         int    // print what the first session receives after each of its first trace keys
	command       string // run instead of a shell when set
	ready         string // marks the first frame in the output
	spread        bool   // dial each player from its own address 127.0.1.N
	flood         floodConfig
}

// queryAnswers lists the terminal queries a stock Wish server sends
// (MakeRenderer's background colour probe) and the answers of a dark xterm.
func queryAnswers() []struct{ query, answer []byte } {
	return []struct{ query, answer []byte }{
		{[]byte("\x1b]11;?"), []byte("\x1b]11;rgb:0000/0000/0000\x1b\\")},
		{[]byte("\x1b[c"), []byte("\x1b[?62;22c")},
	}
}

// loadSession is one simulated player.
type loadSession struct {
	ready  string // marks the first frame
	client *gossh.Client
	sess   *gossh.Session
	stdin  io.WriteCloser

	firstFrame chan struct{} // closed when the first screen arrives
	ended      chan struct{} // closed when the server closes the session
	measuring  *atomic.Bool

	mu        sync.Mutex
	trace     int       // keys whose redraw is still to be printed (the first session only)
	traced    []byte    // what arrived since the last traced key
	pending   time.Time // when the unanswered key was sent
	latencies []time.Duration
	keys      int
	missed    int   // keys pressed while the previous one was unanswered
	bytes     int64 // received while measuring
}

func runLoad(ctx context.Context, cfg loadConfig) error {
	rssStart := readRSS(cfg.pid)
	cpuFirst := readCPU(cfg.pid)
	var measuring atomic.Bool
	sessions := make([]*loadSession, cfg.sessions)
	connect := make([]time.Duration, 0, cfg.sessions)
	var (
		mu     sync.Mutex
		failed []error
		wg     sync.WaitGroup
	)
	sem := make(chan struct{}, cfg.dialers)
	start := time.Now()
	for i := range sessions {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			t0 := time.Now()
			from := ""
			if cfg.spread {
				from = fmt.Sprintf("127.0.%d.%d", 1+i/250, 1+i%250)
			}
			s, err := openSession(cfg, from, &measuring)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed = append(failed, err)
				return
			}
			if i == 0 {
				s.trace = cfg.trace
			}
			sessions[i] = s
			connect = append(connect, time.Since(t0))
		}()
		if ctx.Err() != nil {
			break
		}
	}
	wg.Wait()
	connectedIn := time.Since(start)
	defer func() {
		for _, s := range sessions {
			if s != nil {
				_ = s.client.Close()
			}
		}
	}()
	live := sessions[:0:0]
	for _, s := range sessions {
		if s != nil {
			live = append(live, s)
		}
	}
	fmt.Printf("connected %d/%d sessions in %s (%d failed)\n", len(live), cfg.sessions, connectedIn.Round(time.Millisecond), len(failed))
	for i, err := range failed {
		if i == 3 {
			fmt.Printf("  ...\n")
			break
		}
		fmt.Printf("  failure: %v\n", err)
	}
	if len(live) == 0 {
		return errors.New("no session connected")
	}
	p50, p99, _ := percentiles(connect)
	fmt.Printf("connect→first frame: p50 %s  p99 %s\n", p50, p99)
	rssConnected := readRSS(cfg.pid)
	cpuStart := readCPU(cfg.pid)

	measuring.Store(true)
	mctx, cancel := context.WithTimeout(ctx, cfg.duration)
	defer cancel()
	for _, s := range live {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.press(mctx, cfg)
		}()
	}
	var flood *floodResult
	if cfg.flood.rate > 0 || cfg.flood.newcomers > 0 {
		flood = runFlood(mctx, cfg.addr, cfg.flood, cfg.duration)
	}
	wg.Wait()
	// Let the last redraws arrive before counting.
	settle := time.NewTimer(200 * time.Millisecond)
	<-settle.C
	measuring.Store(false)
	cpuEnd := readCPU(cfg.pid)
	rssEnd := readRSS(cfg.pid)

	var all []time.Duration
	var keys, missed, ended int
	var received int64
	for _, s := range live {
		s.mu.Lock()
		all = append(all, s.latencies...)
		keys += s.keys
		missed += s.missed
		received += s.bytes
		s.mu.Unlock()
		select {
		case <-s.ended:
			ended++
		default:
		}
	}
	p50, p99, worst := percentiles(all)
	fmt.Printf("keys pressed: %d over %s (%.0f/s), answered %d, pressed before the previous was answered %d\n",
		keys, cfg.duration, float64(keys)/cfg.duration.Seconds(), len(all), missed)
	fmt.Printf("keystroke→first byte of redraw: p50 %s  p99 %s  max %s\n", p50, p99, worst)
	if keys > 0 {
		fmt.Printf("bytes per keystroke: %.0f\n", float64(received)/float64(keys))
	}
	fmt.Printf("sessions ended by the server during the run: %d\n", ended)
	if flood != nil {
		flood.report()
	}
	if cfg.pid > 0 {
		fmt.Printf("server RSS: %s before, %s with %d sessions (%s per session), %s at the end (%s per session)\n",
			mib(rssStart), mib(rssConnected), len(live), kib((rssConnected-rssStart)/int64(len(live))), mib(rssEnd), kib((rssEnd-rssStart)/int64(len(live))))
		if cpuStart >= 0 && cpuEnd >= 0 {
			fmt.Printf("server CPU during the run: %.1f%% of one core\n", 100*float64(cpuEnd-cpuStart)/cfg.duration.Seconds()/clockTicks)
		}
		if cpuFirst >= 0 && cpuEnd >= 0 {
			fmt.Printf("server CPU for the whole run (connects included): %.2f s\n", float64(cpuEnd-cpuFirst)/clockTicks)
		}
	}
	return nil
}

// dialFresh connects to addr from the address from ("" for any) as user
// with a freshly generated key, so that every session is a new player.
func dialFresh(addr, from, user string, timeout time.Duration) (*gossh.Client, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("key: %w", err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	client, err := dialFrom(addr, from, &gossh.ClientConfig{
		User:            user,
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(signer)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), //nolint:gosec // local load test
		Timeout:         timeout,
	})
	if err != nil {
		return nil, fmt.Errorf("dial: %w", err)
	}
	return client, nil
}

// startPty opens a session on client with a PTY of cfg's size and starts
// cmd ("" for the shell, the menu), returning its stdin and stdout.
func startPty(client *gossh.Client, cfg loadConfig, cmd string) (*gossh.Session, io.WriteCloser, io.Reader, error) {
	sess, err := client.NewSession()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("session: %w", err)
	}
	if err := sess.RequestPty("xterm-256color", cfg.height, cfg.width, gossh.TerminalModes{gossh.ECHO: 0}); err != nil {
		return nil, nil, nil, fmt.Errorf("pty: %w", err)
	}
	stdin, err := sess.StdinPipe()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("stdin: %w", err)
	}
	stdout, err := sess.StdoutPipe()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("stdout: %w", err)
	}
	if cmd != "" {
		err = sess.Start(cmd)
	} else {
		err = sess.Shell()
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("start: %w", err)
	}
	return sess, stdin, stdout, nil
}

// openSession connects one player with its own key and waits for the first
// screen.
func openSession(cfg loadConfig, from string, measuring *atomic.Bool) (*loadSession, error) {
	client, err := dialFresh(cfg.addr, from, "load", 30*time.Second)
	if err != nil {
		return nil, err
	}
	s := &loadSession{ready: cfg.ready, client: client, firstFrame: make(chan struct{}), ended: make(chan struct{}), measuring: measuring}
	fail := func(err error) (*loadSession, error) {
		_ = client.Close()
		return nil, err
	}
	var stdout io.Reader
	if s.sess, s.stdin, stdout, err = startPty(client, cfg, cfg.command); err != nil {
		return fail(err)
	}
	go s.read(stdout)
	select {
	case <-s.firstFrame:
		return s, nil
	case <-s.ended:
		return fail(errors.New("session ended before its first frame"))
	case <-time.After(30 * time.Second):
		return fail(errors.New("no first frame within 30s"))
	}
}

// read consumes the server's output: it answers terminal queries, notes the
// first frame, and times the first byte after each key press.
func (s *loadSession) read(stdout io.Reader) {
	defer close(s.ended)
	buf := make([]byte, 32<<10)
	queries := queryAnswers()
	first := false
	for {
		n, err := stdout.Read(buf)
		if n > 0 {
			now := time.Now()
			chunk := buf[:n]
			for _, qa := range queries {
				if bytes.Contains(chunk, qa.query) {
					_, _ = s.stdin.Write(qa.answer)
				}
			}
			if !first && bytes.Contains(chunk, []byte(s.ready)) {
				first = true
				close(s.firstFrame)
			}
			s.mu.Lock()
			if s.traced != nil {
				s.traced = append(s.traced, chunk...)
			}
			if !s.pending.IsZero() {
				s.latencies = append(s.latencies, now.Sub(s.pending))
				s.pending = time.Time{}
			}
			if s.measuring.Load() {
				s.bytes += int64(n)
			}
			s.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// keyTicker waits a random part of every, so that sessions do not press
// in lockstep, then ticks every every; ok is false when ctx ended first.
func keyTicker(ctx context.Context, every time.Duration) (*time.Ticker, bool) {
	phase := time.NewTimer(time.Duration(mrand.Int64N(int64(every))))
	select {
	case <-ctx.Done():
		phase.Stop()
		return nil, false
	case <-phase.C:
	}
	return time.NewTicker(every), true
}

// press sends a key every cfg.every, starting at a random phase so the
// sessions do not press in lockstep.
func (s *loadSession) press(ctx context.Context, cfg loadConfig) {
	tick, ok := keyTicker(ctx, cfg.every)
	if !ok {
		return
	}
	defer tick.Stop()
	keys := pressKeys(cfg.key)
	for {
		s.mu.Lock()
		if !s.pending.IsZero() {
			s.missed++
		}
		if s.traced != nil {
			fmt.Printf("trace: after key %d, %d bytes: %q\n", s.keys, len(s.traced), s.traced)
			s.traced = nil
		}
		if s.trace > 0 {
			s.trace--
			s.traced = []byte{}
		}
		s.pending = time.Now()
		k := keys[s.keys%len(keys)]
		s.keys++
		s.mu.Unlock()
		if _, err := io.WriteString(s.stdin, k); err != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-s.ended:
			return
		case <-tick.C:
		}
	}
}

// keyNames are the keys pressKeys knows by name, as a terminal sends them.
var keyNames = map[string]string{
	"up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D",
	"enter": "\r", "esc": "\x1b", "space": " ", "tab": "\t",
}

// pressKeys turns the -key flag into the keys pressed in turn: names
// separated by commas ("down,up"; a name keyNames does not know is sent
// as it is), or else one key per character ("lh").
func pressKeys(spec string) []string {
	var keys []string
	if strings.Contains(spec, ",") || keyNames[spec] != "" {
		for _, k := range strings.Split(spec, ",") {
			if seq, ok := keyNames[k]; ok {
				k = seq
			}
			if k != "" {
				keys = append(keys, k)
			}
		}
	} else {
		for _, r := range spec {
			keys = append(keys, string(r))
		}
	}
	if len(keys) == 0 {
		keys = []string{"l"}
	}
	return keys
}

// percentiles returns the median, the 99th percentile and the maximum.
func percentiles(d []time.Duration) (p50, p99, maxd time.Duration) {
	if len(d) == 0 {
		return 0, 0, 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	at := func(q float64) time.Duration {
		return s[min(len(s)-1, int(q*float64(len(s))))].Round(100 * time.Microsecond)
	}
	return at(0.50), at(0.99), s[len(s)-1].Round(100 * time.Microsecond)
}
