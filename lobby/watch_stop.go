package lobby

// StopWatching ends what the other sessions of s's player watch, and s's
// own watching: a player who takes a seat in a race room watches nothing
// else (one room at a time). Each session that watched a game, or a race
// room, is told with WatchEnded and reason; what it tells the lobby it
// does next follows from there: it is at the menu, and who shows the
// player as s shows them. A guest's other sessions are not the
// same player's, and are left alone.
func (l *Lobby) StopWatching(s *Session, reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, own := range l.ownLocked(s) {
		if own.gone {
			continue
		}
		watched := own.doing
		l.unwatchLocked(own)
		if own != s && watched.What == Watching {
			// At the menu now, but not as a change of its own: who shows
			// the session that changed last, and that is the racer's
			// (its tui saying so later changes nothing).
			own.doing = Doing{What: AtMenu}
			l.changedLocked()
			l.postLocked(own, WatchEnded{Name: watched.Watched, Reason: reason})
		}
	}
}
