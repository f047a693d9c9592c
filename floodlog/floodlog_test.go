package floodlog

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/log"
)

// lockedBuffer is a log's output, read while the summary timer may write.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestFloodIsBounded: an address's first event is logged, its others are
// summed up in one line at the interval's end; past MaxSummarised
// addresses, events are summed up together, not logged one by one.
func TestFloodIsBounded(t *testing.T) {
	var out lockedBuffer
	// An interval the test never reaches: it flushes itself, so that a
	// slow run (the race detector) cannot end an interval midway.
	l := New(log.New(&out), time.Hour, "test events")
	defer l.Stop()
	for range 100 {
		l.Note("192.0.2.1", "refused", "refused", "address", "192.0.2.1")
	}
	for i := range MaxSummarised + 500 {
		addr := fmt.Sprintf("10.%d.%d.1", i/256, i%256)
		l.Note(addr, "refused", "refused", "address", addr)
	}
	if n := strings.Count(out.String(), "INFO refused"); n != MaxSummarised {
		t.Errorf("%d events logged one by one, want %d (one per address up to the bound)", n, MaxSummarised)
	}
	l.flush()
	s := out.String()
	if !strings.Contains(s, "test events from further addresses") {
		t.Fatalf("no summary lines:\n%.2000s", s[strings.LastIndex(s, "INFO refused"):])
	}
	if !strings.Contains(s, "more test events from this address") || !strings.Contains(s, `address=192.0.2.1 events="refused=99"`) {
		t.Errorf("no summary of 192.0.2.1's 99 further events:\n%.2000s", s)
	}
	if !strings.Contains(s, `events="refused=501"`) {
		t.Errorf("the events past the bound are not summed up (501):\n%.2000s", s[strings.LastIndex(s, "further"):])
	}
}
