// Package floodlog keeps a log bounded under floods of events by client
// address: the first event of an address in an interval is logged at
// once, the others are counted and summed up in one line per address at
// the interval's end. The server logs its connection refusals through it,
// the budgets their refusals.
package floodlog

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/log"
)

// MaxSummarised bounds the addresses a Log tracks in one interval;
// events of further addresses are summed up together, unlogged one by
// one, so that many addresses cannot flood the log either.
const MaxSummarised = 1024

// Log is a log of events by address, bounded as the package says.
type Log struct {
	log      *log.Logger
	interval time.Duration
	what     string // the events' name in the summary lines, e.g. "connection events"

	mu      sync.Mutex
	pending map[string]map[string]int // address → kind → events since its line
	others  map[string]int            // events of addresses beyond MaxSummarised
	timer   *time.Timer
	stopped bool
}

// New returns a log that writes to l and sums up every interval; what
// names the events in the summary lines ("more connection events from
// this address").
func New(l *log.Logger, interval time.Duration, what string) *Log {
	return &Log{log: l, interval: interval, what: what, pending: map[string]map[string]int{}, others: map[string]int{}}
}

// Note records an event of kind for address, logging msg with keyvals if
// it is the address's first in this interval.
func (l *Log) Note(address, kind, msg string, keyvals ...any) {
	l.mu.Lock()
	counts, seen := l.pending[address]
	switch {
	case seen:
		counts[kind]++
	case len(l.pending) >= MaxSummarised:
		l.others[kind]++
		seen = true // summed up, not logged
	default:
		l.pending[address] = map[string]int{}
	}
	if l.timer == nil && !l.stopped {
		l.timer = time.AfterFunc(l.interval, l.flush)
	}
	l.mu.Unlock()
	if !seen {
		l.log.Info(msg, keyvals...)
	}
}

// flush writes the summary lines of the interval that ended.
func (l *Log) flush() {
	l.mu.Lock()
	pending, others := l.pending, l.others
	l.pending, l.others = map[string]map[string]int{}, map[string]int{}
	l.timer = nil
	l.mu.Unlock()
	for _, address := range slices.Sorted(maps.Keys(pending)) {
		if line := summary(pending[address]); line != "" {
			l.log.Info("more "+l.what+" from this address", "address", address, "events", line, "interval", l.interval)
		}
	}
	if line := summary(others); line != "" {
		l.log.Info(l.what+" from further addresses", "events", line, "interval", l.interval)
	}
}

// Stop cancels the pending summary: the log's owner is closing.
func (l *Log) Stop() {
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
