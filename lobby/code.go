package lobby

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
)

// CodeAlphabet is the letters room codes are made of: no vowels, so a code
// spells no word, and none of the letters that pass for a digit or another
// letter on a terminal (B 8, I 1, L 1, O 0, Q 0, S 5, Z 2, U V).
const CodeAlphabet = "CDFGHJKMNPRTVWXY"

// CodeLen is the number of letters in a room code: six of sixteen letters
// make 16,777,216 codes, so that a stranger who tries codes at the
// wrong-code budget (budget.WrongCode: ten every two minutes from one
// account and from one address) finds a room in weeks with the server full of rooms, in years
// with a few open, rather than in minutes.
const CodeLen = 6

// ErrBadCode: the text is not a room code. Its message is meant for
// players as it is.
var ErrBadCode = errors.New("a room code is " + fmt.Sprint(CodeLen) + " letters of " + CodeAlphabet + ", like " + CodeAlphabet[:CodeLen])

// ParseCode reads a room code as a player typed it: case does not matter,
// and spaces and dashes anywhere are ignored ("kdx-wyc", "KDX WYC"). It
// returns the code in capitals.
func ParseCode(s string) (string, error) {
	if len(s) > 4*CodeLen {
		return "", ErrBadCode
	}
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		switch {
		case r == ' ' || r == '-' || r == '\t' || r == '\n' || r == '\r':
			continue
		case r > 0x7f || strings.IndexByte(CodeAlphabet, byte(r)) < 0:
			return "", ErrBadCode
		}
		b.WriteRune(r)
	}
	if b.Len() != CodeLen {
		return "", ErrBadCode
	}
	return b.String(), nil
}

// newRoomID returns a new room's ID: random, so that it names the room
// apart from every other, on any server and across restarts (a code is
// reused once its room closes).
func newRoomID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported systems
	return hex.EncodeToString(b[:])
}

// newCode draws codes from rnd until one is not taken, giving up after a
// number of tries that only a nearly full code space would exhaust. Each
// letter takes a byte's low four bits: 256 is a multiple of 16, so every
// letter is as likely.
func newCode(rnd io.Reader, taken func(string) bool) (string, error) {
	var b [CodeLen]byte
	for try := 0; try < 64; try++ {
		if _, err := io.ReadFull(rnd, b[:]); err != nil {
			return "", fmt.Errorf("room code: %w", err)
		}
		for i := range b {
			b[i] = CodeAlphabet[int(b[i])%len(CodeAlphabet)]
		}
		if c := string(b[:]); !taken(c) {
			return c, nil
		}
	}
	return "", errors.New("room code: no free code found")
}
