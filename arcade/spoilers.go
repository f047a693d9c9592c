package arcade

import (
	"context"
	"errors"
	"sync"
	"time"

	"pyramid/keys"
	"pyramid/lobby"
	"pyramid/store"
	"pyramid/tui"
)

// errNoSpoilers: today's daily deal played by another (a ghost of it, a
// spectator's board) is only for those who finished it.
var errNoSpoilers = errors.New("finish today's daily deal first: seeing it played would spoil it")

// spoilers is the one rule of a session that nobody sees today's daily
// deal played by another, by a ghost race or by watching, before they
// finished it themselves (their counted attempt is stored: won, lost or
// abandoned, assisted or not). A guest, whose games are not stored,
// never has. Once the player finished a day's deal it stays finished,
// so the answer is kept.
type spoilers struct {
	st     store.Store
	player string // empty for a guest
	now    func() time.Time

	mu   sync.Mutex
	done map[string]bool // days (and rules) the player finished
}

// newSpoilers is the rule for a session of p.
func (a *App) newSpoilers(p tui.Player) *spoilers {
	s := &spoilers{st: a.cfg.Store, now: a.cfg.Now}
	if !p.Guest {
		s.player = p.ID
	}
	return s
}

// spoils reports whether seeing a game of the daily deal of day with
// these rules played would spoil it for the player: it is today's, and
// they have not finished it.
func (s *spoilers) spoils(ctx context.Context, rulesID, day string) bool {
	if day == "" || day != s.now().UTC().Format(time.DateOnly) {
		return false
	}
	if s.player == "" || s.st == nil {
		return true
	}
	key := rulesID + "/" + day
	s.mu.Lock()
	done := s.done[key]
	s.mu.Unlock()
	if done {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	if _, err := s.st.DailyStanding(ctx, s.player, rulesID, day); err != nil {
		return true // not finished, or not known to be: no spoiler
	}
	s.mu.Lock()
	if s.done == nil {
		s.done = map[string]bool{}
	}
	s.done[key] = true
	s.mu.Unlock()
	return false
}

// watched is what a spectator's session is told of a board it watches:
// the board, or, when it is today's daily and would spoil it, the end of
// watching, saying why (the session stops watching: unwatch).
func (s *spoilers) watched(ctx context.Context, w lobby.Watched, unwatch func()) lobby.Event {
	if !s.spoils(ctx, w.Board.Record.Rules, w.Board.Daily) {
		return w
	}
	unwatch()
	return lobby.WatchEnded{Name: w.Name, Reason: spoilerReason(w.Name)}
}

// spoilerReason is why a spectator may not watch name now.
func spoilerReason(name string) string {
	return keys.Clean(name, keys.MaxNameWidth) + " plays today's daily deal: finish yours first, watching would spoil it"
}
