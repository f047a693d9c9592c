//go:build storelat

package sqlstore

import (
	"fmt"
	"os"
	"time"
)

// logSaveTimes, in a server built with -tags storelat, writes where the
// group commit's time went to standard error every 5 s (saveTimes): the
// p50/p99 in ms of each save's wait behind the batch before it, the
// handoff to its batch, its transaction, its answer's wake-up and its
// whole wait, and of each batch's BEGIN, statements and COMMIT, and of
// the writes outside the group that held the writer. For a look at a
// loaded server (tools/loadgen's race load), never for production.
func logSaveTimes(s *Store) {
	if s.gate == nil {
		return
	}
	t := &saveTimes{}
	s.saves.times = t
	stop := s.stop
	go func() {
		tick := time.NewTicker(5 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			fmt.Fprintln(os.Stderr, t.summary())
		}
	}()
}

// summary is one line of the figures kept since the last, which it
// forgets.
func (t *saveTimes) summary() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := fmt.Appendf(nil, "STORELAT saves=%d batches=%d", len(t.work), len(t.sizes))
	for _, st := range []struct {
		name string
		ds   []time.Duration
	}{{"behind", t.behind}, {"handoff", t.handoff}, {"tx", t.work}, {"answer", t.answer}, {"total", t.total},
		{"begin", t.begin}, {"stmts", t.stmts}, {"commit", t.commit}, {"other", t.other}} {
		b = fmt.Appendf(b, " %s=%.1f/%.1f", st.name, pct(st.ds, 0.5), pct(st.ds, 0.99))
	}
	sum, most := 0, 0
	for _, n := range t.sizes {
		sum += n
		most = max(most, n)
	}
	if len(t.sizes) > 0 {
		b = fmt.Appendf(b, " batch-mean=%.1f max=%d", float64(sum)/float64(len(t.sizes)), most)
	}
	t.behind, t.handoff, t.work, t.answer, t.total = nil, nil, nil, nil, nil
	t.sizes, t.begin, t.stmts, t.commit, t.other = nil, nil, nil, nil, nil
	return string(b)
}
