package engine

// stateKey is a packed solver state: up to three words of 63 bits each.
// Bit 63 of word 0 is never part of a key; the table sets it on stored
// keys so that an all-zero slot means empty.
type stateKey [3]uint64

// keyMark marks an occupied slot of a stateSet.
const keyMark = 1 << 63

// stateSet is the solver's transposition table: an open-addressing hash
// set of packed states with linear probing. Keys are stored whole (never a
// hash of them), so a collision can never make the solver wrong. It holds
// at most limit keys; the slice grows by doubling, so a small search uses
// little memory and a large one at most 8/3·limit·words·8 bytes (half as
// much again while a growth copies).
type stateSet struct {
	words  int      // words per key: 1, 2 or 3
	slots  []uint64 // len = capacity·words
	mask   uint64   // capacity-1
	n      int      // keys stored
	grow   int      // grow when n reaches this
	limit  int      // most keys ever stored
	maxCap int      // the capacity limit keys need
}

// newStateSet returns an empty set of keys of the given width holding at
// most limit keys.
func newStateSet(words, limit int) stateSet {
	s := stateSet{words: words, limit: max(limit, 1)}
	// maxCap keeps the load at most three quarters with limit keys.
	s.maxCap = 1 << 10
	for s.maxCap/4*3 < s.limit {
		s.maxCap <<= 1
	}
	s.alloc(min(s.maxCap, 1<<14))
	return s
}

func (s *stateSet) alloc(capacity int) {
	s.slots = make([]uint64, capacity*s.words)
	s.mask = uint64(capacity - 1)
	s.grow = capacity / 4 * 3
	if capacity >= s.maxCap {
		s.grow = s.limit + 1 // the limit stops inserts first
	}
}

// hashKey mixes a key's words into a table index.
func hashKey(k *stateKey, words int) uint64 {
	h := k[0] * 0x9e3779b97f4a7c15
	if words > 1 {
		h ^= k[1] + 0x632be59bd9b4e019 + h<<6 + h>>2
		h *= 0xbf58476d1ce4e5b9
		if words > 2 {
			h ^= k[2] + 0x94d049bb133111eb + h<<6 + h>>2
			h *= 0x9e3779b97f4a7c15
		}
	}
	return h ^ h>>29
}

// add inserts k. It reports whether k was new, and full when the set
// already holds limit keys (k is then not stored).
func (s *stateSet) add(k *stateKey) (added, full bool) {
	w := s.words
	k0 := k[0] | keyMark
	i := hashKey(k, w) & s.mask
	for {
		slot := s.slots[int(i)*w : int(i)*w+w]
		switch {
		case slot[0] == 0:
			if s.n >= s.limit {
				return false, true
			}
			slot[0] = k0
			for j := 1; j < w; j++ {
				slot[j] = k[j]
			}
			s.n++
			if s.n >= s.grow {
				s.rehash()
			}
			return true, false
		case slot[0] == k0 && (w < 2 || slot[1] == k[1]) && (w < 3 || slot[2] == k[2]):
			return false, false
		}
		i = (i + 1) & s.mask
	}
}

// rehash doubles the capacity.
func (s *stateSet) rehash() {
	old := s.slots
	w := s.words
	s.alloc(int(s.mask+1) * 2)
	for i := 0; i < len(old); i += w {
		if old[i] == 0 {
			continue
		}
		k := stateKey{old[i] &^ keyMark}
		for j := 1; j < w; j++ {
			k[j] = old[i+j]
		}
		h := hashKey(&k, w) & s.mask
		for s.slots[int(h)*w] != 0 {
			h = (h + 1) & s.mask
		}
		copy(s.slots[int(h)*w:int(h)*w+w], old[i:i+w])
	}
}
