package arcade

import (
	"crypto/rand"
	"io"
	"strings"

	"pyramid/keys"
)

// guestAlphabet is what a guest's name is drawn from: digits and capitals
// with no look-alikes (no 0 O 1 I L 5 S 8 B 2 Z).
const guestAlphabet = "34679CDFGHJKMNPRTVWXY"

// guestNameLen is the number of letters after "guest-".
const guestNameLen = 4

// guestName draws a display name for a guest session, like guest-7QK2,
// so that presence, rooms, chat and watch tell guests apart. Players
// with a key cannot take such a name (keys.NormalizeName reserves it).
// rnd is crypto/rand when nil; a name is "guest" if rnd fails.
func guestName(rnd io.Reader) string {
	if rnd == nil {
		rnd = rand.Reader
	}
	var b [guestNameLen]byte
	if _, err := io.ReadFull(rnd, b[:]); err != nil {
		return "guest"
	}
	for i := range b {
		b[i] = guestAlphabet[int(b[i])%len(guestAlphabet)]
	}
	return keys.GuestPrefix + string(b[:])
}

// freeGuestName is a guest name nobody online has, drawing again a few
// times when the name is taken (one in 194,481 for each guest online).
func (a *App) freeGuestName() string {
	name := guestName(nil)
	for try := 0; try < 3; try++ {
		taken := false
		for _, p := range a.lobby.Who() {
			if strings.EqualFold(p.Name, name) {
				taken = true
				break
			}
		}
		if !taken {
			break
		}
		name = guestName(nil)
	}
	return name
}
