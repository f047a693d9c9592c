package server

import (
	"encoding/binary"
	"sync"
	"testing"
	"time"
)

func TestClampWindow(t *testing.T) {
	tests := []struct {
		w, h uint32
		want windowSize
	}{
		{0, 0, windowSize{80, 24}},
		{0, 50, windowSize{80, 50}},
		{120, 0, windowSize{120, 24}},
		{1, 1, windowSize{1, 1}},
		{500, 200, windowSize{500, 200}},
		{501, 201, windowSize{500, 200}},
		{65535, 65535, windowSize{500, 200}},
		{4294967295, 4294967295, windowSize{500, 200}},
	}
	for _, tt := range tests {
		if got := clampWindow(tt.w, tt.h); got != tt.want {
			t.Errorf("clampWindow(%d, %d) = %v, want %v", tt.w, tt.h, got, tt.want)
		}
	}
}

func TestResizeBoxKeepsOnlyTheLatest(t *testing.T) {
	b := newResizeBox()
	if got := b.get(); got != (windowSize{80, 24}) {
		t.Errorf("empty box = %v, want 80x24", got)
	}
	for i := range 1000 {
		b.set(windowSize{i + 1, 10}) // never blocks, however many
	}
	if got := b.get(); got != (windowSize{1000, 10}) {
		t.Errorf("box = %v, want the last size", got)
	}
}

// The box hands its sizes to the program from one goroutine at a time,
// started only when there is something to hand over: the size at once,
// then only the newest of a storm that came while the program was busy,
// and nothing more once it has the last one.
func TestResizeBoxDelivers(t *testing.T) {
	b := newResizeBox()
	b.set(windowSize{90, 30})
	var (
		mu      sync.Mutex
		clock   time.Time
		started int
		got     []windowSize
	)
	now := func() time.Time { // every reading a debounce interval later: no sleeping
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(resizeInterval)
		return clock
	}
	busy := make(chan struct{})       // the program is busy until it is closed
	entered := make(chan struct{}, 1) // the first send is waiting for the program
	delivered := make(chan windowSize, 10)
	send := func(s windowSize) {
		if len(got) == 0 {
			entered <- struct{}{}
			<-busy
		}
		got = append(got, s)
		delivered <- s
	}
	var wg sync.WaitGroup
	run := func(f func()) {
		mu.Lock()
		started++
		mu.Unlock()
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	b.deliverTo(send, now, run)
	<-entered
	for i := range 1000 {
		b.set(windowSize{i + 1, 10}) // while the first size waits for the program
	}
	close(busy)
	if s := <-delivered; s != (windowSize{90, 30}) {
		t.Errorf("first size delivered = %v, want 90x30", s)
	}
	if s := <-delivered; s != (windowSize{1000, 10}) {
		t.Errorf("second size delivered = %v, want the newest, 1000x10", s)
	}
	wg.Wait() // the goroutine ends once the newest size is handed over
	if len(got) != 2 || started != 1 {
		t.Errorf("delivered %v from %d goroutines, want 2 sizes from 1", got, started)
	}
	b.set(windowSize{1000, 10}) // the same size again: nothing to hand over
	wg.Wait()
	b.set(windowSize{40, 12})
	wg.Wait()
	if len(got) != 3 || got[2] != (windowSize{40, 12}) || started != 3 {
		t.Errorf("after two more sets delivered %v from %d goroutines, want 40x12 third, from 3", got, started)
	}
}

// Whatever bytes a client sends as a window-change or pty-req, parsing never
// panics and the size the program sees stays in bounds.
func FuzzWindowRequests(f *testing.F) {
	pty := func(term string, w, h uint32) []byte {
		p := binary.BigEndian.AppendUint32(nil, uint32(len(term)))
		p = append(p, term...)
		p = binary.BigEndian.AppendUint32(p, w)
		p = binary.BigEndian.AppendUint32(p, h)
		return append(p, make([]byte, 12)...)
	}
	f.Add(pty("xterm", 80, 24))
	f.Add(pty("", 0, 0))
	f.Add(pty("xterm-256color", 65535, 65535))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 1, 2})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, p []byte) {
		checks := func(w, h uint32) {
			s := clampWindow(w, h)
			if s.Width < 1 || s.Width > maxWidth || s.Height < 1 || s.Height > maxHeight {
				t.Fatalf("clampWindow(%d, %d) = %v out of bounds", w, h, s)
			}
		}
		if w, h, ok := parseWindowChange(p); ok {
			checks(w, h)
		}
		if term, w, h, ok := parsePtyReq(p); ok {
			if len(term) > len(p) {
				t.Fatalf("term longer than the payload")
			}
			checks(w, h)
		}
	})
}
