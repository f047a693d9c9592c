package lobby

import "strings"

// Ended tells a session that it ends now, and why: its player was
// banned or kicked by an admin, or its key unlinked from the account.
// The session says so and closes; it plays nothing more.
type Ended struct {
	// Text is why, as the player reads it.
	Text string
}

// Renamed tells a session that its player's name changed: by an admin,
// or by the player in another session.
type Renamed struct {
	Name string
	// Why says who changed it, as the player reads it ("an admin
	// renamed you"); empty: in another session of theirs.
	Why string
}

// Notice is a line for the player of a session, about their account
// (e.g. one of their keys was unlinked in another session).
type Notice struct {
	Text string
}

// Rename gives this server's sessions of the player whose ID is player
// the name name: who lists it at once (to the other servers too, through
// the roster), watch finds them by it and no longer by the old one, and
// each session but quiet (the one the name was changed in, which says so
// itself; 0 for none) is told (Renamed), with why. It returns how many
// sessions it renamed.
func (l *Lobby) Rename(player, name, why string, quiet uint64) int {
	if player == "" {
		return 0
	}
	lname := strings.ToLower(name)
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.byPlayer[player] {
		if s.player.Name == name {
			continue
		}
		s.player.Name, s.lname = name, lname
		s.told.Store(&told{doing: s.doing, changed: s.changed, player: s.player, lname: lname})
		n++
		if s.id != quiet {
			l.postLocked(s, Renamed{Name: name, Why: why})
		}
	}
	if n > 0 {
		l.changedLocked()
	}
	return n
}
