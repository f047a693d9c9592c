package lobby

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// The wrong-code limit: room codes cannot be guessed by trying them. It
// counts each player's wrong codes and each address's (a guest is a new
// player at every connection, and one person may hold many keys), so that
// neither more keys nor more connections buy more tries.
const (
	// MaxWrongCodes wrong room codes per WrongCodeWindow are allowed one
	// player, and one address; after that their look-ups are refused for
	// WrongCodePause, whatever the code (a right one too: a guesser
	// learns nothing while blocked).
	MaxWrongCodes   = 10
	WrongCodeWindow = time.Minute
	WrongCodePause  = time.Minute
)

// ErrThrottled: too many wrong room codes (MaxWrongCodes in
// WrongCodeWindow). Find's refusal wraps it with whose codes (the
// player's, or their address's) and when to try again.
var ErrThrottled = errors.New("too many wrong room codes")

// Seeker is who looks a room up by a code they typed (Rooms.Find), as the
// wrong-code limit counts them.
type Seeker struct {
	// Player is the player's ID in the rooms (Entrant.ID: a guest's is
	// the session's).
	Player string
	// Addr names the address the player connects from, as the server's
	// per-address limits do (the address a balancer's PROXY header
	// gives, an IPv6 address's /64); empty when unknown, and then only
	// the player is counted.
	Addr string
}

// wrongKey is whose wrong codes are counted: a player's or an address's.
type wrongKey struct {
	addr bool
	id   string
}

// wrongCodes is one player's or address's recent wrong room codes.
type wrongCodes struct {
	times   []time.Time // within the last WrongCodeWindow
	blocked time.Time   // look-ups are refused until then
}

// maxWrongKept is how many players and addresses the limit keeps before
// it forgets those neither blocked nor wrong lately.
const maxWrongKept = 1024

// noteWrongCode counts a wrong code of k at now in wrong, and blocks k for
// WrongCodePause at the MaxWrongCodes-th in a WrongCodeWindow.
func noteWrongCode(wrong map[wrongKey]*wrongCodes, k wrongKey, now time.Time) {
	if len(wrong) > maxWrongKept {
		for id, w := range wrong {
			if now.After(w.blocked) && (len(w.times) == 0 || now.Sub(w.times[len(w.times)-1]) >= WrongCodeWindow) {
				delete(wrong, id)
			}
		}
	}
	w := wrong[k]
	if w == nil {
		w = &wrongCodes{}
		wrong[k] = w
	}
	w.times = slices.DeleteFunc(w.times, func(t time.Time) bool { return now.Sub(t) >= WrongCodeWindow })
	w.times = append(w.times, now)
	if len(w.times) >= MaxWrongCodes {
		w.blocked = now.Add(WrongCodePause)
		w.times = w.times[:0]
	}
}

// noteWrong counts a wrong code of s at now: the player's, and the
// address's when it is known.
func noteWrong(wrong map[wrongKey]*wrongCodes, s Seeker, now time.Time) {
	noteWrongCode(wrong, wrongKey{id: s.Player}, now)
	if s.Addr != "" {
		noteWrongCode(wrong, wrongKey{addr: true, id: s.Addr}, now)
	}
}

// throttled is s's refusal at now, or nil: ErrThrottled, saying whose
// wrong codes and when s may try again.
func throttled(wrong map[wrongKey]*wrongCodes, s Seeker, now time.Time) error {
	var until time.Time
	whose := ""
	if w := wrong[wrongKey{id: s.Player}]; w != nil && now.Before(w.blocked) {
		until = w.blocked
	}
	if w := wrong[wrongKey{addr: true, id: s.Addr}]; s.Addr != "" && w != nil && now.Before(w.blocked) && w.blocked.After(until) {
		until, whose = w.blocked, " from your address"
	}
	if until.IsZero() {
		return nil
	}
	secs := max(1, int((until.Sub(now)+time.Second-1)/time.Second))
	wait := strconv.Itoa(secs) + " seconds"
	if secs == 1 {
		wait = "a second"
	}
	// Short enough for an 80-column message line.
	return fmt.Errorf("%w%s: try again in %s", ErrThrottled, whose, wait)
}
