package engine

import "math/bits"

// stateKey is a packed solver key: up to three words of 63 bits each. Bit
// 63 of word 0 is never part of a key; the table sets it on stored keys so
// that an all-zero slot means empty.
type stateKey [3]uint64

// keyMark marks an occupied slot of a stateTable.
const keyMark = 1 << 63

// stateTable is the solver's transposition table: an open-addressing hash
// map with linear probing from packed keys to one byte (the earliest
// position from which a layer has been searched). Keys are stored whole,
// never a hash of them, so a collision can never make the solver wrong. It
// holds at most limit keys. It grows by doubling, so a small search uses
// little memory, and a large one at most about 8/3·limit slots of
// words·8+1 bytes (half as much again while a growth copies).
type stateTable struct {
	words  int      // words per key: 1, 2 or 3
	slots  []uint64 // len = capacity·words
	vals   []uint8  // len = capacity
	mask   uint64   // capacity-1
	shift  uint     // 64 - log2(capacity)
	n      int      // keys stored
	grow   int      // grow when n reaches this
	limit  int      // most keys ever stored
	maxCap int      // the capacity that limit keys need
}

// newStateTable returns an empty table of keys of the given width holding
// at most limit keys.
func newStateTable(words, limit int) stateTable {
	t := stateTable{words: words, limit: max(limit, 1)}
	t.maxCap = 1 << 10 // keeps the load at most three quarters
	for t.maxCap/4*3 < t.limit {
		t.maxCap <<= 1
	}
	t.alloc(min(t.maxCap, 1<<12))
	return t
}

func (t *stateTable) alloc(capacity int) {
	t.slots = make([]uint64, capacity*t.words)
	t.vals = make([]uint8, capacity)
	t.mask = uint64(capacity - 1)
	t.shift = uint(64 - bits.TrailingZeros(uint(capacity)))
	t.grow = capacity / 4 * 3
	if capacity >= t.maxCap {
		t.grow = t.limit + 1 // the limit stops inserts first
	}
}

// hashKey mixes a key's words into 64 well-spread bits; the table indexes
// by the high ones.
func hashKey(k *stateKey, words int) uint64 {
	h := k[0]
	if words > 1 {
		h = (h^h>>31)*0x9e3779b97f4a7c15 ^ k[1]
		if words > 2 {
			h = (h^h>>31)*0x9e3779b97f4a7c15 ^ k[2]
		}
	}
	h = (h ^ h>>30) * 0xbf58476d1ce4e5b9
	h = (h ^ h>>27) * 0x94d049bb133111eb
	return h
}

// lower looks k up and keeps the smaller of its value and v. It returns
// the value k had and whether it was there; full reports that k was not
// there and the table already holds limit keys (nothing is stored then).
func (t *stateTable) lower(k *stateKey, v uint8) (old uint8, found, full bool) {
	w := t.words
	k0 := k[0] | keyMark
	i := hashKey(k, w) >> t.shift
	for {
		slot := t.slots[int(i)*w : int(i)*w+w]
		switch {
		case slot[0] == 0:
			if t.n >= t.limit {
				return 0, false, true
			}
			slot[0] = k0
			for j := 1; j < w; j++ {
				slot[j] = k[j]
			}
			t.vals[i] = v
			t.n++
			if t.n >= t.grow {
				t.rehash()
			}
			return 0, false, false
		case slot[0] == k0 && (w < 2 || slot[1] == k[1]) && (w < 3 || slot[2] == k[2]):
			old = t.vals[i]
			t.vals[i] = min(old, v)
			return old, true, false
		}
		i = (i + 1) & t.mask
	}
}

// rehash doubles the capacity.
func (t *stateTable) rehash() {
	oldSlots, oldVals := t.slots, t.vals
	w := t.words
	t.alloc(len(oldVals) * 2)
	for i, v := range oldVals {
		if oldSlots[i*w] == 0 {
			continue
		}
		k := stateKey{oldSlots[i*w] &^ keyMark}
		for j := 1; j < w; j++ {
			k[j] = oldSlots[i*w+j]
		}
		h := hashKey(&k, w) >> t.shift
		for t.slots[int(h)*w] != 0 {
			h = (h + 1) & t.mask
		}
		copy(t.slots[int(h)*w:int(h)*w+w], oldSlots[i*w:i*w+w])
		t.vals[h] = v
	}
}

// set gives k, which the table holds, the value v.
func (t *stateTable) set(k *stateKey, v uint8) {
	w := t.words
	k0 := k[0] | keyMark
	for i := hashKey(k, w) >> t.shift; t.slots[int(i)*w] != 0; i = (i + 1) & t.mask {
		slot := t.slots[int(i)*w : int(i)*w+w]
		if slot[0] == k0 && (w < 2 || slot[1] == k[1]) && (w < 3 || slot[2] == k[2]) {
			t.vals[i] = v
			return
		}
	}
}
