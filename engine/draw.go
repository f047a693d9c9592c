package engine

import (
	"crypto/rand"
	"encoding/binary"
	"io"
)

// MaxDrawnDeal bounds the deal numbers the server draws (DrawDeal): a
// million million deals are too many to index offline by their pyramids
// (a hidden number would be found from the cards on the table), and a
// number of twelve digits can still be read out and shared once its game
// is over.
const MaxDrawnDeal = 1_000_000_000_000

// DrawDeal draws a deal number from 1 to MaxDrawnDeal−1 from r, a source
// of random bytes nobody can predict (crypto/rand.Reader when nil, or when
// r fails): never from the clock, which anybody can guess.
func DrawDeal(r io.Reader) uint64 {
	return DealOf(randomBytes(r))
}

// DealOf is the deal number, 1 to MaxDrawnDeal−1, of 8 random bytes.
func DealOf(b [8]byte) uint64 {
	return binary.BigEndian.Uint64(b[:])%(MaxDrawnDeal-1) + 1
}

// randomBytes reads 8 bytes from r, or from crypto/rand when r is nil or
// fails.
func randomBytes(r io.Reader) [8]byte {
	var b [8]byte
	if r == nil {
		r = rand.Reader
	}
	if _, err := io.ReadFull(r, b[:]); err != nil {
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported systems
	}
	return b
}
