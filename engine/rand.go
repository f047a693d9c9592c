package engine

import "math/bits"

// splitMix64 is the engine's own generator (SplitMix64, Steele, Lea and
// Flood 2014). It is pinned by golden tests: changing one bit of it changes
// every deal, so it never changes. math/rand is not used because its
// sequences may change between Go releases.
type splitMix64 struct{ s uint64 }

func (g *splitMix64) next() uint64 {
	g.s += 0x9e3779b97f4a7c15
	return mix64(g.s)
}

// mix64 is SplitMix64's output function: a bijective 64-bit mixer.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// below returns a uniform integer in [0, n) without modulo bias, by
// rejection (Lemire's multiply-shift method).
func (g *splitMix64) below(n uint64) uint64 {
	for {
		hi, lo := bits.Mul64(g.next(), n)
		if lo >= -n%n { // lo >= 2^64 mod n: outside the biased zone
			return hi
		}
	}
}
