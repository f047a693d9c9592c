package keys

import (
	"crypto/rand"
	"io"
	"strings"
)

// LinkCodeLength is the number of characters in a link code.
const LinkCodeLength = 8

// linkAlphabet is Crockford's base32: digits and upper-case letters without
// I, L, O and U, so a code read aloud or copied by hand survives. 32 symbols
// give 40 bits in eight characters, plenty for a code that lives minutes and
// is redeemed once.
const linkAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// NewLinkCode returns a fresh one-time code for linking a key to a player,
// LinkCodeLength characters of an unambiguous alphabet, drawn from r
// (crypto/rand.Reader in production). Should r fail, the code is drawn from
// crypto/rand instead: a code must never be predictable.
func NewLinkCode(r io.Reader) string {
	var buf [LinkCodeLength]byte
	if r == nil {
		r = rand.Reader
	}
	if _, err := io.ReadFull(r, buf[:]); err != nil {
		rand.Read(buf[:]) // never fails (Go 1.24+)
	}
	for i, b := range buf {
		// 256 is a multiple of 32, so the low five bits are uniform.
		buf[i] = linkAlphabet[b&31]
	}
	return string(buf[:])
}

// NormalizeLinkCode turns what a player typed into the canonical code:
// spaces and dashes are dropped, letters upper-cased, and O, I and L read as
// 0, 1 and 1. It reports false when the result is not a well-formed code.
func NormalizeLinkCode(s string) (string, bool) {
	if len(s) > 4*LinkCodeLength {
		return "", false
	}
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		switch r {
		case ' ', '-', '\t':
			continue
		case 'O':
			r = '0'
		case 'I', 'L':
			r = '1'
		}
		if r > 0x7f || strings.IndexByte(linkAlphabet, byte(r)) < 0 {
			return "", false
		}
		b.WriteRune(r)
	}
	if b.Len() != LinkCodeLength {
		return "", false
	}
	return b.String(), true
}

// FormatLinkCode writes a canonical code in two groups, "ABCD-EFGH", for
// people to read.
func FormatLinkCode(code string) string {
	if len(code) != LinkCodeLength {
		return code
	}
	return code[:LinkCodeLength/2] + "-" + code[LinkCodeLength/2:]
}
