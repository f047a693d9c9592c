package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// sseServer is a page stream: each viewer gets every event sent once it
// is open.
type sseServer struct {
	mu      sync.Mutex
	viewers []chan string
}

func (s *sseServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ch := make(chan string, 8)
	s.mu.Lock()
	s.viewers = append(s.viewers, ch)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, "retry: 2000\n\n")
	w.(http.Flusher).Flush()
	for {
		select {
		case msg := <-ch:
			fmt.Fprint(w, msg)
			w.(http.Flusher).Flush()
		case <-r.Context().Done():
			return
		}
	}
}

func (s *sseServer) send(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ch := range s.viewers {
		ch <- msg
	}
}

// TestWebViewersArenaBoard: three viewers of a page stream. A board event
// sent twice once all are open counts once for each viewer, reaches all
// three, and is timed once from the move of its racer (ann's second) it
// shows.
func TestWebViewersArenaBoard(t *testing.T) {
	srv := &sseServer{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	run := &raceRun{byName: map[string]*raceSession{}}
	moved := time.Now()
	run.byName["ann"] = &raceSession{sent: []time.Time{moved.Add(-time.Second), moved}}
	lags := &boardLags{run: run}
	w := startWebViewers(context.Background(), ts.URL, 3, 3, lags.heard)
	defer w.close()
	if n := w.open.Load(); n != 3 {
		t.Fatalf("%d viewers open, want 3", n)
	}
	board := "event: board\ndata: <p class=\"meta\">ann </p>\ndata: <p class=\"header\">Classic · pass 1/3 · 0/28 removed · 2 moves</p>\n\n"
	srv.send(board)
	srv.send(board)
	srv.send("event: standings\ndata: ann 2 points\n\n")
	deadline := time.Now().Add(10 * time.Second)
	for {
		w.mu.Lock()
		full := 0
		for _, f := range w.seen {
			if f.viewers == 3 && !f.first.Before(w.started) {
				full++
			}
		}
		w.mu.Unlock()
		if full == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the events sent did not reach the three viewers: %d did", full)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := w.updated.Load(); n != 3 {
		t.Errorf("%d viewers got a change, want 3", n)
	}
	w.mu.Lock()
	for _, f := range w.seen {
		if f.viewers != 3 {
			t.Errorf("a %q event counted %d viewers, want 3 (a repeat counts once)", f.name, f.viewers)
		}
	}
	w.mu.Unlock()
	lags.mu.Lock()
	defer lags.mu.Unlock()
	if len(lags.lags) != 1 || lags.unknown != 0 || lags.lags[0] < 0 || lags.lags[0] > 10*time.Second {
		t.Fatalf("the board's move timed %v, %d unmatched; want one time from ann's second move", lags.lags, lags.unknown)
	}
}
