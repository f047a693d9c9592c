package main

// The web page viewers (-web-viewers N -web-url URL): N live streams
// (Server-Sent Events) of one page of the club's site (--web), read to
// the end. In the race mode they open before the racers, so that the
// racers' own latency is measured with them and compared with a run
// without them (web-load.sh runs both); in the arena mode they open
// after a first window without them, on the arena's own stream
// (arena.go). The report says how many stayed connected, the events
// each got, how many got an event sent after they were all open, and
// how long one event took to reach all of them.

import (
	"bufio"
	"context"
	"fmt"
	"hash/fnv"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// webViewers is the web page viewers of one run.
type webViewers struct {
	n       int
	open    atomic.Int64 // streams reading now
	events  atomic.Int64 // events received, all viewers
	failed  atomic.Int64 // streams that could not open
	updated atomic.Int64 // viewers that got an event first sent after all were open
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	// onFirst, when set, hears each event sent after all were open, once,
	// as its first viewer gets it (the arena mode times the moves it
	// shows); it is called by the viewers' goroutines.
	onFirst func(name, data string, at time.Time)

	mu sync.Mutex
	// started is when the last stream opened: the events a viewer gets
	// before are the page's state replayed to the late ones, not
	// changes.
	started time.Time
	// seen is, for each distinct event (by its name and data), when the
	// first and the last viewer got it and how many did: the fan-out's
	// spread.
	seen map[uint64]*fanOut
}

// fanOut is one event's arrival across the viewers.
type fanOut struct {
	name        string
	first, last time.Time
	viewers     int
}

// startWebViewers opens n live streams of url, dialers at once, and
// returns once all are open or failed. onFirst may be nil.
func startWebViewers(ctx context.Context, url string, n, dialers int, onFirst func(name, data string, at time.Time)) *webViewers {
	ctx, cancel := context.WithCancel(ctx)
	w := &webViewers{n: n, cancel: cancel, seen: map[uint64]*fanOut{}, onFirst: onFirst}
	tr := &http.Transport{MaxIdleConnsPerHost: -1, DisableCompression: true}
	client := &http.Client{Transport: tr}
	sem := make(chan struct{}, max(1, dialers))
	var ready sync.WaitGroup
	for range n {
		ready.Add(1)
		w.wg.Go(func() {
			sem <- struct{}{}
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			resp, err := client.Do(req)
			<-sem
			if err != nil || resp.StatusCode != http.StatusOK {
				if err == nil {
					resp.Body.Close()
				}
				w.failed.Add(1)
				ready.Done()
				return
			}
			defer resp.Body.Close()
			w.open.Add(1)
			defer w.open.Add(-1)
			ready.Done()
			w.read(bufio.NewScanner(resp.Body))
		})
	}
	ready.Wait()
	w.mu.Lock()
	w.started = time.Now()
	w.mu.Unlock()
	return w
}

// read counts one stream's events until it ends.
func (w *webViewers) read(sc *bufio.Scanner) {
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	name := ""
	var data []string
	updated := false
	got := map[uint64]bool{} // the events this viewer got: one repeated counts once
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
			w.events.Add(1)
		case strings.HasPrefix(line, "data: ") && name != "":
			data = append(data, strings.TrimPrefix(line, "data: "))
		case line == "":
			if name != "" {
				d := strings.Join(data, "\n")
				if key := eventKey(name, d); !got[key] {
					got[key] = true
					if w.arrived(key, name, d, time.Now()) && !updated {
						updated = true
						w.updated.Add(1)
					}
				}
			}
			name, data = "", data[:0]
		}
	}
}

// eventKey names an event by its name and data.
func eventKey(name, data string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write([]byte(data))
	return h.Sum64()
}

// arrived notes an event's first arrival at one viewer; it reports
// whether the event was first sent after all the viewers were open.
func (w *webViewers) arrived(key uint64, name, data string, now time.Time) bool {
	w.mu.Lock()
	f := w.seen[key]
	first := f == nil
	if first {
		f = &fanOut{name: name, first: now}
		w.seen[key] = f
	}
	f.last = now
	f.viewers++
	change := !w.started.IsZero() && !f.first.Before(w.started)
	onFirst := w.onFirst
	w.mu.Unlock()
	if first && change && onFirst != nil {
		onFirst(name, data, now)
	}
	return change
}

// report prints what the viewers saw; call it before close.
func (w *webViewers) report() {
	w.mu.Lock()
	defer w.mu.Unlock()
	spreads := map[string][]time.Duration{}
	partial := map[string]int{}
	for _, f := range w.seen {
		if f.first.Before(w.started) {
			continue
		}
		if f.viewers == int(w.open.Load()) || f.viewers >= w.n-int(w.failed.Load()) {
			spreads[f.name] = append(spreads[f.name], f.last.Sub(f.first))
		} else {
			partial[f.name]++
		}
	}
	fmt.Printf("web page viewers: %d, %d still reading at the end, %d failed to open; %d events received (%.1f each); %d got an event sent after all were open\n",
		w.n, w.open.Load(), w.failed.Load(), w.events.Load(), float64(w.events.Load())/float64(max(1, w.n)), w.updated.Load())
	names := make([]string, 0, len(spreads))
	for name := range spreads {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p50, p99, worst := percentiles(spreads[name])
		fmt.Printf("  a %q event's arrival, first viewer to last (%d events every viewer got, %d that some missed): p50 %s  p99 %s  max %s\n",
			name, len(spreads[name]), partial[name], p50, p99, worst)
	}
}

// close ends the streams.
func (w *webViewers) close() {
	w.cancel()
	w.wg.Wait()
}
