package arcade

import (
	"context"
	"crypto/rand"
	"io"
	"strings"

	"pyramid/bus"
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

// GuestsTopic is the bus topic on which the servers of a cluster claim
// guest names: an event whose ID is the name (lower-cased), whose body
// names the session that claimed it. The bus keeps one event per ID, so
// of two servers that claim one name at once exactly one gets it; the
// bus forgets old claims (it keeps a topic's recent events only), which
// presence covers: a guest online for long is listed by who.
const GuestsTopic = "arcade.guests"

// guestTries is how many names freeGuestName draws at most.
const guestTries = 4

// freeGuestName is a guest name nobody in the cluster has: none online
// here or on the other servers (presence), and, with a bus, one this
// session claimed on it first (two guests arriving at once on two
// servers, before presence tells either of the other, never share a
// name). It draws again a few times when a name is taken (one in 194,481
// for each guest online); when the bus fails, presence alone decides.
func (a *App) freeGuestName(ctx context.Context) string {
	name := ""
	for try := 0; try < guestTries; try++ {
		name = guestName(a.guestRand)
		if !a.guestOnline(name) && a.claimGuest(ctx, name) {
			break
		}
	}
	return name
}

// guestOnline reports whether who lists a player called name.
func (a *App) guestOnline(name string) bool {
	for _, p := range a.lobby.Who() {
		if strings.EqualFold(p.Name, name) {
			return true
		}
	}
	return false
}

// claimGuest claims name on the bus for a new session; it reports
// whether the name is this session's (always, without a bus or when the
// bus fails).
func (a *App) claimGuest(ctx context.Context, name string) bool {
	if a.cfg.Bus == nil {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	token := a.instance + " " + sessionToken()
	ev, err := a.cfg.Bus.Publish(ctx, GuestsTopic, bus.Message{ID: strings.ToLower(name), Kind: "guest", Body: []byte(token)})
	if err != nil {
		a.cfg.Logger.Warn("claim a guest name: presence alone keeps guests apart", "err", err)
		return true
	}
	return string(ev.Body) == token
}
