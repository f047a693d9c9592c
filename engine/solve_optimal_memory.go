package engine

import (
	"math/bits"
	"slices"
	"sync"
	"time"
)

// optMemory is the memory a shortest-line search leaves for the next: a
// server works out one par after another, and each search's tables are
// megabytes that would otherwise be new garbage every time. None of it
// holds a pointer, so what is kept costs the collector nothing to scan.
// One is kept at most (spare), and not past spareIdle unused: a pool of
// one per processor (sync.Pool) kept several, all of them live heap
// through a server's busiest seconds.
type optMemory struct {
	// pages are spare record pages, each of recPage records of the
	// stride of the search that made it.
	pages [][]uint64
	// slots are spare hash tables, one of each size (index: log2 of
	// their length).
	slots [64][]uint64
	// bucket is an open list, its buckets emptied.
	bucket [][]int32
	// memo is a count memo, memoSize long; it is cleared when taken.
	memo []countMemo
}

// What a search leaves for the next at most: as much as a par of about
// a hundred thousand positions of one word needs, most of a race deal's.
// A larger search's memory goes back to the collector: kept, it would
// count as live heap as long as searches follow one another, and raise
// the collector's goal by twice its size.
const (
	sparePageWords = 1 << 18 // words of the record pages kept: 2 MiB
	spareSlots     = 1 << 17 // slots of the largest hash table kept: 1 MiB, and the smaller ones as much again
)

// spareIdle is how long the spare memory is kept unused: longer than
// the rests between the pars of a burst, so that a burst reuses it, and
// short enough that an idle server holds none of it. A variable for
// tests.
var spareIdle = 10 * time.Second

// spare is the memory the last finished search left, if any, with the
// timer that drops it once it has been unused for spareIdle.
var spare struct {
	sync.Mutex
	m    *optMemory
	idle *time.Timer
}

// takeMemory gives the search the memory of a finished one, if any.
func (o *optSearch) takeMemory() {
	spare.Lock()
	m := spare.m
	spare.m = nil
	spare.Unlock()
	if m == nil {
		m = new(optMemory)
	}
	o.mem = m
	o.bucket, o.mem.bucket = o.mem.bucket, nil
}

// keepSpare keeps m for the next search, in place of any kept before
// (a search that ran beside this one's), for spareIdle.
func keepSpare(m *optMemory) {
	spare.Lock()
	defer spare.Unlock()
	spare.m = m
	if spare.idle == nil {
		spare.idle = time.AfterFunc(spareIdle, dropSpare)
		return
	}
	spare.idle.Reset(spareIdle)
}

// dropSpare gives the spare memory back to the collector.
func dropSpare() {
	spare.Lock()
	defer spare.Unlock()
	spare.m = nil
}

// release gives the search's memory back for the next search: o is not
// used after.
func (o *optSearch) release() {
	m := o.mem
	if m == nil {
		return
	}
	kept := 0
	for _, p := range m.pages {
		kept += cap(p)
	}
	for _, p := range o.recs {
		if kept+cap(p) > sparePageWords {
			break
		}
		m.pages = append(m.pages, p[:cap(p)])
		kept += cap(p)
	}
	m.putSlots(o.slots)
	for f := range o.bucket {
		o.bucket[f] = o.bucket[f][:0]
	}
	m.bucket = o.bucket
	if o.memo != nil {
		m.memo = o.memo
	}
	*o = optSearch{}
	keepSpare(m)
}

// newPage returns a record page for records of the search's stride: a
// spare one large enough, or a new one.
func (o *optSearch) newPage() []uint64 {
	n := recPage * o.stride
	if m := o.mem; m != nil {
		for i := len(m.pages) - 1; i >= 0; i-- {
			if p := m.pages[i]; cap(p) >= n {
				m.pages = slices.Delete(m.pages, i, i+1)
				return p[:n]
			}
		}
	}
	return make([]uint64, n)
}

// newSlots returns an empty hash table of n slots (a power of two).
func (o *optSearch) newSlots(n int) []uint64 {
	if m := o.mem; m != nil {
		k := bits.TrailingZeros(uint(n))
		if s := m.slots[k]; s != nil {
			m.slots[k] = nil
			clear(s)
			return s
		}
	}
	return make([]uint64, n)
}

// putSlots keeps a hash table the search is done with.
func (m *optMemory) putSlots(s []uint64) {
	if len(s) > 0 && len(s) <= spareSlots {
		m.slots[bits.TrailingZeros(uint(len(s)))] = s
	}
}

// newMemo returns an empty count memo.
func (o *optSearch) newMemo() []countMemo {
	if m := o.mem; m != nil && m.memo != nil {
		memo := m.memo
		m.memo = nil
		clear(memo)
		return memo
	}
	return make([]countMemo, memoSize)
}
