package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// floodConfig is a login flood run beside the players: half-open
// connections (a version line, then nothing) from many loopback addresses,
// and newcomers who log in and run one command while it lasts.
type floodConfig struct {
	rate       int    // half-open connections per second
	addrs      int    // source addresses 127.0.0.10, 127.0.0.11, …
	newcomers  int    // logins spread over the flood, from 127.0.0.200 on
	newcomerDo string // command each newcomer runs (no PTY)
	logFile    string // the server's log, to measure its growth
}

// floodResult is what a flood run saw.
type floodResult struct {
	opened, failedDial    atomic.Int64
	newcomersOK           atomic.Int64
	newcomerErrs          []error
	newcomerTimes         []time.Duration
	logBytes              int64
	duration              time.Duration
	mu                    sync.Mutex
	maxConcurrentHalfOpen atomic.Int64
}

// runFlood floods addr for d and returns what happened.
func runFlood(ctx context.Context, addr string, fc floodConfig, d time.Duration) *floodResult {
	res := &floodResult{duration: d}
	logStart := fileSize(fc.logFile)
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var wg sync.WaitGroup
	var open atomic.Int64
	wg.Add(1)
	go func() { // the half-open connections
		defer wg.Done()
		if fc.rate <= 0 {
			return
		}
		tick := time.NewTicker(time.Second / time.Duration(max(fc.rate, 1)))
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			from := &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(10+i%max(fc.addrs, 1)))}
			wg.Add(1)
			go func() {
				defer wg.Done()
				dl := net.Dialer{LocalAddr: from, Timeout: 2 * time.Second}
				conn, err := dl.DialContext(ctx, "tcp", addr)
				if err != nil {
					res.failedDial.Add(1)
					return
				}
				res.opened.Add(1)
				if n := open.Add(1); n > res.maxConcurrentHalfOpen.Load() {
					res.maxConcurrentHalfOpen.Store(n)
				}
				defer open.Add(-1)
				_, _ = io.WriteString(conn, "SSH-2.0-flood\r\n")
				done := make(chan struct{})
				go func() { _, _ = io.Copy(io.Discard, conn); close(done) }()
				select {
				case <-ctx.Done():
				case <-done:
				}
				_ = conn.Close()
				<-done
			}()
		}
	}()
	if fc.newcomers > 0 { // the newcomers, evenly over the flood
		gap := d / time.Duration(fc.newcomers+1)
		for i := range fc.newcomers {
			select {
			case <-ctx.Done():
			case <-time.After(gap):
			}
			t0 := time.Now()
			err := newcomer(addr, fmt.Sprintf("127.0.0.%d", 200+i), fc.newcomerDo)
			res.mu.Lock()
			if err != nil {
				res.newcomerErrs = append(res.newcomerErrs, err)
			} else {
				res.newcomersOK.Add(1)
				res.newcomerTimes = append(res.newcomerTimes, time.Since(t0))
			}
			res.mu.Unlock()
		}
	}
	<-ctx.Done()
	wg.Wait()
	res.logBytes = fileSize(fc.logFile) - logStart
	return res
}

// newcomer logs in once from the address from with a fresh key and runs cmd.
func newcomer(addr, from, cmd string) error {
	client, err := dialFresh(addr, from, "newcomer", 10*time.Second)
	if err != nil {
		return fmt.Errorf("newcomer from %s: %w", from, err)
	}
	defer client.Close() //nolint:errcheck // done
	sess, err := client.NewSession()
	if err != nil {
		return fmt.Errorf("newcomer from %s: session: %w", from, err)
	}
	defer sess.Close() //nolint:errcheck // done
	if _, err := sess.Output(cmd); err != nil {
		return fmt.Errorf("newcomer from %s: %s: %w", from, cmd, err)
	}
	return nil
}

// dialFrom opens an SSH client connection to addr from the local address
// from ("" for any).
func dialFrom(addr, from string, cfg *gossh.ClientConfig) (*gossh.Client, error) {
	d := net.Dialer{Timeout: cfg.Timeout}
	if from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dial: %w", err)
	}
	_ = nc.SetDeadline(time.Now().Add(cfg.Timeout))
	c, chans, reqs, err := gossh.NewClientConn(nc, addr, cfg)
	if err != nil {
		_ = nc.Close()
		return nil, fmt.Errorf("handshake: %w", err)
	}
	_ = nc.SetDeadline(time.Time{})
	return gossh.NewClient(c, chans, reqs), nil
}

// fileSize is the size of path in bytes, or 0.
func fileSize(path string) int64 {
	if path == "" {
		return 0
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// report prints the flood's figures.
func (r *floodResult) report() {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Printf("flood: %d half-open connections opened over %s (%.0f/s), %d dials failed, at most %d open at once\n",
		r.opened.Load(), r.duration, float64(r.opened.Load())/r.duration.Seconds(), r.failedDial.Load(), r.maxConcurrentHalfOpen.Load())
	total := r.newcomersOK.Load() + int64(len(r.newcomerErrs))
	p50, p99, worst := percentiles(r.newcomerTimes)
	fmt.Printf("newcomers in: %d/%d (login + command: p50 %s p99 %s max %s)\n", r.newcomersOK.Load(), total, p50, p99, worst)
	for i, err := range r.newcomerErrs {
		if i == 5 {
			fmt.Println("  ...")
			break
		}
		fmt.Printf("  refused: %v\n", err)
	}
	if r.logBytes > 0 {
		fmt.Printf("server log during the flood: %d bytes (%.0f bytes/s)\n", r.logBytes, float64(r.logBytes)/r.duration.Seconds())
	}
}
