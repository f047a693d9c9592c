package arcade

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"pyramid/bus"
	"pyramid/cluster"
	"pyramid/keys"
	"pyramid/lobby"
	"pyramid/server"
	"pyramid/store"
)

// What happens to accounts acts at once on their open sessions, on every
// server: a ban, a kick or an unlinked key ends them (each says why
// before it closes), a new name shows in them and in who. The server
// that makes the change publishes it (cluster.Accounts); every server,
// itself included, acts on its own sessions.

// endedWait is how long a session told it ends may wait for its saves
// before it quits all the same; endBackstop how long after telling it the
// server closes it regardless (a session whose program is stuck, or whose
// client reads nothing).
const (
	endedWait   = 2 * time.Second
	endBackstop = 4 * time.Second
)

// liveSession is an interactive session of a player with a key, as the
// account events find it.
type liveSession struct {
	key   string
	lobby *lobby.Session
	srv   *server.Session
}

// liveSessions are this server's sessions by player ID.
type liveSessions struct {
	mu       sync.Mutex
	byPlayer map[string]map[*liveSession]struct{}
}

// track keeps s, a session of player, findable by the account events for
// as long as it lasts.
func (a *App) track(s *server.Session, player string, sess *lobby.Session) {
	ls := &liveSession{key: s.Identity, lobby: sess, srv: s}
	l := &a.live
	l.mu.Lock()
	if l.byPlayer == nil {
		l.byPlayer = map[string]map[*liveSession]struct{}{}
	}
	if l.byPlayer[player] == nil {
		l.byPlayer[player] = map[*liveSession]struct{}{}
	}
	l.byPlayer[player][ls] = struct{}{}
	l.mu.Unlock()
	context.AfterFunc(s.Context(), func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.byPlayer[player], ls)
		if len(l.byPlayer[player]) == 0 {
			delete(l.byPlayer, player)
		}
	})
}

// sessionsOf returns this server's sessions that ev names: all of its
// player's (no key), those of its key, or (Except) those of every other
// key; never the session it was made in.
func (a *App) sessionsOf(ev cluster.AccountEvent) []*liveSession {
	a.live.mu.Lock()
	defer a.live.mu.Unlock()
	var out []*liveSession
	for ls := range a.live.byPlayer[ev.Player] {
		if ev.Instance == a.instance && ev.Session == ls.lobby.ID() {
			continue
		}
		if ev.Key == "" || (ls.key == ev.Key) != ev.Except {
			out = append(out, ls)
		}
	}
	return out
}

// joinAccounts starts hearing the account events: on the cluster's bus,
// or on a server alone on one in memory of its own.
func (a *App) joinAccounts(ctx context.Context) {
	b := a.cfg.Bus
	if b == nil {
		a.ownBus = bus.NewMemory(bus.MemoryOptions{Lossless: true})
		b = a.ownBus
	}
	var err error
	if a.accounts, err = cluster.JoinAccounts(ctx, b, a.hearAccount, a.resyncAccounts); err != nil {
		a.cfg.Logger.Error("bans, kicks and renames reach new sessions only", "err", err)
	}
}

// leaveAccounts stops hearing the account events.
func (a *App) leaveAccounts() {
	if a.accounts != nil {
		a.accounts.Close()
	}
	if a.ownBus != nil {
		_ = a.ownBus.Close()
	}
}

// tellAccounts publishes ev to every server, this one included. It says
// what went wrong for the caller to tell: the change is stored, but the
// open sessions it concerns were not reached.
func (a *App) tellAccounts(ctx context.Context, ev cluster.AccountEvent) error {
	if a.accounts == nil {
		return fmt.Errorf("account events: not joined")
	}
	if err := a.accounts.Publish(ctx, ev); err != nil {
		a.cfg.Logger.Error("account event not published", "kind", ev.Kind, "player", ev.Player, "err", err)
		return err
	}
	return nil
}

// hearAccount acts on an account event on this server's sessions.
func (a *App) hearAccount(ev cluster.AccountEvent) {
	switch ev.Kind {
	case cluster.AccountEnd:
		for _, ls := range a.sessionsOf(ev) {
			a.endSession(ls, ev.Text)
		}
	case cluster.AccountRename:
		// Every session of the player takes the name, in who too; the
		// one it was changed in says so itself.
		var quiet uint64
		if ev.Instance == a.instance {
			quiet = ev.Session
		}
		if name := keys.Clean(ev.Name, keys.MaxNameWidth); name != "" {
			a.lobby.Rename(ev.Player, name, keys.Clean(ev.Text, 80), quiet)
		}
	case cluster.AccountNotice:
		for _, ls := range a.sessionsOf(ev) {
			a.lobby.Post(ls.lobby, lobby.Notice{Text: ev.Text})
		}
	}
}

// endSession ends one session, saying why: through its queue, which its
// program reads (it saves what it has, says why and quits), and, should
// the program not quit, by the server a little later.
func (a *App) endSession(ls *liveSession, text string) {
	a.cfg.Logger.Info("session ended", "key", ls.key, "why", text)
	a.lobby.Post(ls.lobby, lobby.Ended{Text: text})
	time.AfterFunc(endBackstop, func() { ls.srv.End("pyramid: " + text) })
}

// resyncAccounts checks this server's sessions against the store, for
// the account events the bus lost: a session whose key is no longer its
// player's, or whose player is banned, ends; a renamed one takes the
// name.
func (a *App) resyncAccounts() {
	if a.cfg.Store == nil {
		return
	}
	a.live.mu.Lock()
	var all []*liveSession
	players := map[*liveSession]string{}
	for player, set := range a.live.byPlayer {
		for ls := range set {
			all = append(all, ls)
			players[ls] = player
		}
	}
	a.live.mu.Unlock()
	go func() {
		for _, ls := range all {
			ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
			p, err := a.cfg.Store.PlayerByKey(ctx, ls.key)
			cancel()
			switch {
			case err != nil && !errors.Is(err, store.ErrNotFound):
				a.cfg.Logger.Warn("account resync", "key", ls.key, "err", err)
			case err != nil || p.ID != players[ls]:
				a.endSession(ls, "this key was unlinked from your account")
			case p.BannedAt(a.cfg.Now()):
				a.endSession(ls, banWords(p))
			default:
				a.lobby.Rename(p.ID, keys.Clean(p.Name, keys.MaxNameWidth), "", 0)
			}
		}
	}()
}

// banWords is what a banned player is told: until when and why.
func banWords(p store.Player) string {
	s := "you are banned from this server"
	if !p.BannedUntil.IsZero() {
		s += " until " + p.BannedUntil.UTC().Format("2006-01-02 15:04") + " UTC"
	}
	if why := keys.Clean(p.BanReason, maxCloseReason); why != "" {
		s += ": " + why
	}
	return s
}

// sessionsNote is what an admin is told when an account event could not
// reach the open sessions.
const sessionsNote = "note: the open sessions could not be told now; new connections see it"

// entrant is the session's racer as a room lists them: by the name the
// player has now, which an admin or another session may have changed.
func (rs *races) entrant() lobby.Entrant {
	me := rs.me
	me.Addr = rs.addr // a mute or a removal holds for it too
	if !me.Guest {
		me.Name = rs.sess.Player().Name
	}
	return me
}
