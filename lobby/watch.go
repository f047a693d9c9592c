package lobby

import (
	"errors"
	"strings"

	"pyramid/engine"
)

// Why Watch refuses a spectator, in words fit for the player (a game,
// as a room, takes at most MaxSpectators).
var (
	ErrNotOnline    = errors.New("nobody of that name is online")
	ErrNotWatchable = errors.New("that player does not let others watch their games")
	ErrGameFull     = errors.New("that game has as many spectators as it can take; try again later")
	ErrWatchSelf    = errors.New("you cannot watch yourself")
)

// Board is a session's game as its spectators see it: what the watched
// session published last. A zero Record.Rules means no game shows (the
// player is in the menu, or another screen).
type Board struct {
	// Record is the game: rules, deal and the moves made. The spectator
	// replays it; the redo stack is left out.
	Record engine.Record
	// Daily is the UTC date (2006-01-02) of the daily deal the game plays,
	// or empty.
	Daily string
	// Chosen: the player chose the deal, so its number may be shown
	// (DealShown); a deal the server picked is shown once the game is
	// over.
	Chosen bool
}

// Playing reports whether the board shows a game.
func (b Board) Playing() bool { return b.Record.Rules != "" }

// Watched is what a spectator gets, coalesced (the newest wins), each
// time the watched session publishes its board or its spectators change.
type Watched struct {
	// Name is the watched player's display name (cleaned by the server).
	Name  string
	Board Board
	// Spectators is how many watch it now, this one included.
	Spectators int
}

// WatchEnded tells a spectator it watches no more: the watched player
// left, or no longer lets others watch.
type WatchEnded struct {
	Name string
	// Reason says why, in words fit for the player.
	Reason string
}

// Spectators tells a watched session, coalesced, how many watch it now.
type Spectators struct{ N int }

// The keys the spectating events coalesce under.
const (
	watchedKey    = "watched"
	spectatorsKey = "spectators"
)

// Watch makes viewer a spectator of the player called name (compared
// case-insensitively): of the session that plays, or else of the one that
// changed last. It stops whatever viewer watched before, and returns what
// the spectator shows now; from now on viewer gets Watched after every
// Publish of that session, and WatchEnded when it ends. The error is one
// of ErrNotOnline, ErrWatchSelf, ErrNotWatchable, ErrGameFull. At most
// MaxSpectators watch one session.
func (l *Lobby) Watch(viewer *Session, name string) (Watched, error) {
	l.mu.Lock()
	if viewer.gone {
		l.mu.Unlock()
		return Watched{}, ErrClosed
	}
	target := l.findLocked(name, viewer)
	if at, ok := l.remoteCandidateLocked(viewer, name, target); ok { // watch_remote.go
		l.mu.Unlock()
		w, err := l.watchRemote(viewer, name, at)
		if err == nil || target == nil || !errors.Is(err, ErrNotOnline) && !errors.Is(err, ErrNoAnswer) && !errors.Is(err, ErrServerDown) {
			return w, err
		}
		// Gone there, or no answer: the session here, at the menu, will do.
		l.mu.Lock()
		if viewer.gone {
			l.mu.Unlock()
			return Watched{}, ErrClosed
		}
		target = l.findLocked(name, viewer)
	}
	defer l.mu.Unlock()
	switch {
	case target == nil && l.isSelfLocked(viewer, name):
		return Watched{}, ErrWatchSelf
	case target == nil:
		return Watched{}, ErrNotOnline
	case target.private:
		return Watched{}, ErrNotWatchable
	case target == viewer.watching:
		return l.watchedLocked(target), nil
	case target.watchersLocked() >= MaxSpectators:
		return Watched{}, ErrGameFull
	}
	l.unwatchLocked(viewer)
	if target.spectators == nil {
		target.spectators = map[uint64]*Session{}
	}
	target.spectators[viewer.id] = viewer
	viewer.watching = target
	l.tellSpectatorsLocked(target)
	return l.watchedLocked(target), nil
}

// watchersLocked is how many watch s: on this server and on the others.
func (s *Session) watchersLocked() int { return len(s.spectators) + len(s.remoteSpecs) }

// isSelfLocked reports whether name is the viewer's own.
func (l *Lobby) isSelfLocked(viewer *Session, name string) bool {
	return strings.EqualFold(viewer.player.Name, strings.TrimSpace(name))
}

// findLocked returns the session of the player called name that a
// spectator should watch, never one of viewer's own player: the one that
// plays, else the one that changed last. Nil when there is none.
func (l *Lobby) findLocked(name string, viewer *Session) *Session {
	return l.findByNameLocked(name, playerKey(viewer.player), viewer)
}

// findByNameLocked is findLocked for a viewer of player key self (empty
// for a guest), who may be on another server (except nil).
func (l *Lobby) findByNameLocked(name, self string, except *Session) *Session {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil
	}
	var best *Session
	for _, s := range l.sessions {
		if s == except || !strings.EqualFold(s.player.Name, name) || self != "" && playerKey(s.player) == self {
			continue
		}
		if best == nil || better(s, best) {
			best = s
		}
	}
	return best
}

// better reports whether s is a better session to watch than cur: one
// with a game shows more than one without; then the one that changed
// last.
func better(s, cur *Session) bool {
	if sp, cp := s.doing.What == Playing, cur.doing.What == Playing; sp != cp {
		return sp
	}
	return s.changed.After(cur.changed) || s.changed.Equal(cur.changed) && s.id > cur.id
}

// watchedLocked is what a spectator of s shows.
func (l *Lobby) watchedLocked(s *Session) Watched {
	return Watched{Name: s.player.Name, Board: s.board, Spectators: s.watchersLocked()}
}

// Unwatch stops viewer watching; it is harmless when it watches nobody.
func (l *Lobby) Unwatch(viewer *Session) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.unwatchLocked(viewer)
}

func (l *Lobby) unwatchLocked(viewer *Session) {
	l.unwatchRemoteLocked(viewer) // watch_remote.go
	target := viewer.watching
	if target == nil {
		return
	}
	viewer.watching = nil
	delete(target.spectators, viewer.id)
	l.forgetBoardIfUnwatchedLocked(target)
	l.tellSpectatorsLocked(target)
}

// forgetBoardIfUnwatchedLocked forgets what s published last when nobody
// watches it any more, here or elsewhere.
func (l *Lobby) forgetBoardIfUnwatchedLocked(s *Session) {
	if s.watchersLocked() == 0 {
		// Nobody watches: the session stops publishing, so what it
		// published last goes stale. The next spectator waits for a
		// fresh board instead (the session publishes one at once when it
		// learns it is watched).
		s.board = Board{}
	}
}

// tellSpectatorsLocked tells s and its spectators how many watch it.
func (l *Lobby) tellSpectatorsLocked(s *Session) {
	if !s.gone {
		s.queue.Coalesce(spectatorsKey, Spectators{N: s.watchersLocked()})
	}
	l.sendBoardLocked(s)
}

// Publish records s's game as its spectators see it, and sends it to
// each of them, coalesced: a spectator that reads slowly skips boards,
// never delays s. b must not share memory s still changes (a fresh
// Record). A spectator whose queue stayed full for DropAfter is dropped
// from the lobby, as Post drops a session.
func (l *Lobby) Publish(s *Session, b Board) {
	b.Record.Redo = nil
	l.mu.Lock()
	defer l.mu.Unlock()
	if s.gone {
		return
	}
	s.board = b
	l.sendBoardLocked(s)
}

// sendBoardLocked sends s's board to each of its spectators.
func (l *Lobby) sendBoardLocked(s *Session) {
	l.offerRemoteLocked(s) // watch_remote.go
	if len(s.spectators) == 0 {
		return
	}
	w := l.watchedLocked(s)
	var stuck []*Session
	for _, v := range s.spectators {
		v.queue.Coalesce(watchedKey, w)
		if since, full := v.queue.FullSince(); full && l.now().Sub(since) >= DropAfter {
			stuck = append(stuck, v)
		}
	}
	for _, v := range stuck {
		l.removeLocked(v)
	}
}

// SetWatchable sets whether others may watch the games of s's player, on
// every session of the player (a guest's session alone), on this server
// and on the others (AttachWatch). Turning it off ends every spectator of
// those sessions with WatchEnded.
func (l *Lobby) SetWatchable(s *Session, on bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, own := range l.ownLocked(s) {
		l.setWatchableLocked(own, on)
	}
	l.tellWatchableLocked(playerKey(s.player), on) // watch_remote.go
}

// setWatchableLocked applies the setting to one session.
func (l *Lobby) setWatchableLocked(s *Session, on bool) {
	s.private = !on
	if !on {
		l.endSpectatorsLocked(s, s.player.Name+" no longer lets others watch")
	}
}

// applyWatchableLocked applies another server's news of the setting of
// the player key to its sessions here.
func (l *Lobby) applyWatchableLocked(key string, on bool) {
	if key == "" {
		return
	}
	for _, own := range l.byPlayer[key] {
		l.setWatchableLocked(own, on)
	}
}

// Watchable reports whether others may watch s's games.
func (l *Lobby) Watchable(s *Session) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !s.private
}

// ownLocked lists the sessions of s's player: s alone for a guest.
func (l *Lobby) ownLocked(s *Session) []*Session {
	key := playerKey(s.player)
	if key == "" || s.gone {
		return []*Session{s}
	}
	out := make([]*Session, 0, len(l.byPlayer[key]))
	for _, own := range l.byPlayer[key] {
		out = append(out, own)
	}
	return out
}

// endSpectatorsLocked tells every spectator of s that watching ended.
func (l *Lobby) endSpectatorsLocked(s *Session, reason string) {
	if s.watchersLocked() == 0 {
		return
	}
	l.endRemoteSpectatorsLocked(s, reason) // watch_remote.go
	specs := s.spectators
	s.spectators, s.board = nil, Board{}
	for _, v := range specs {
		v.watching = nil
		l.postLocked(v, WatchEnded{Name: s.player.Name, Reason: reason})
	}
	if !s.gone {
		s.queue.Coalesce(spectatorsKey, Spectators{N: 0})
	}
}

// forgetWatchLocked undoes a leaving session's spectating, both ways.
func (l *Lobby) forgetWatchLocked(s *Session) {
	l.unwatchLocked(s)
	l.endSpectatorsLocked(s, s.player.Name+" left")
}

// SpectatorsOf is how many watch s now.
func (l *Lobby) SpectatorsOf(s *Session) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return s.watchersLocked()
}
