package budget

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/log"
)

// maxSummarised bounds the addresses a refusalLog tracks in one
// interval; refusals of further addresses are summed up together.
const maxSummarised = 1024

// refusalLog keeps the log bounded when budgets refuse a flood: the first
// refusal of an address in an interval is logged at once; the others are
// counted and summed up in one line per address at the end of the
// interval, as the server does for connections refused.
type refusalLog struct {
	log      *log.Logger
	interval time.Duration

	mu      sync.Mutex
	pending map[string]map[string]int // address → kind → refusals since its line
	others  map[string]int            // refusals of addresses beyond maxSummarised
	timer   *time.Timer
	stopped bool
}

// note records a refusal of kind for address who, logging it if it is
// the address's first in this interval.
func (l *refusalLog) note(who, kind, msg, account string) {
	l.mu.Lock()
	counts, seen := l.pending[who]
	switch {
	case seen:
		counts[kind]++
	case len(l.pending) >= maxSummarised:
		l.others[kind]++
		seen = true // summed up, not logged
	default:
		l.pending[who] = map[string]int{}
	}
	if l.timer == nil && !l.stopped {
		l.timer = time.AfterFunc(l.interval, l.flush)
	}
	l.mu.Unlock()
	if !seen {
		kv := []any{"address", who, "kind", kind, "refusal", msg}
		if account != "" {
			kv = append(kv, "account", account)
		}
		l.log.Info("budget refused", kv...)
	}
}

// flush writes the summary lines of the interval that ended.
func (l *refusalLog) flush() {
	l.mu.Lock()
	pending, others := l.pending, l.others
	l.pending, l.others = map[string]map[string]int{}, map[string]int{}
	l.timer = nil
	l.mu.Unlock()
	for _, who := range slices.Sorted(maps.Keys(pending)) {
		if line := summary(pending[who]); line != "" {
			l.log.Info("more budget refusals from this address", "address", who, "refused", line, "interval", l.interval)
		}
	}
	if line := summary(others); line != "" {
		l.log.Info("budget refusals from further addresses", "refused", line, "interval", l.interval)
	}
}

// stop cancels the pending summary.
func (l *refusalLog) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
}

// summary formats counts as "kind=N kind=N", sorted by kind.
func summary(counts map[string]int) string {
	var b strings.Builder
	for _, kind := range slices.Sorted(maps.Keys(counts)) {
		if counts[kind] == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%d", kind, counts[kind])
	}
	return b.String()
}
