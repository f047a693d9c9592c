package arcade

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"pyramid/budget"
	"pyramid/lobby"
	"pyramid/store"
	"pyramid/tui"
)

// presence is one session's lobby as its tui sees it (tui.Lobby): the
// lobby's calls bound to the session, the public rooms, and the setting
// "Others may watch me" kept through the player's account.
type presence struct {
	lobby *lobby.Lobby
	rooms *lobby.Rooms // nil: no rooms to list
	self  *lobby.Session
	// acct keeps the player's settings; nil for a guest or a player not
	// in the store, whose setting lasts as long as the session.
	acct   *account
	player string
	// spoilers keeps today's daily from a spectator who has not
	// finished it (spoilers.go); nil: no such rule (no store).
	spoilers *spoilers
	// budgets and who hold the session's spectator seat at a player
	// (budget.SpectatorSeat); seat gives it back.
	budgets *budget.Budgets
	who     budget.Who
	seatMu  sync.Mutex
	seat    func()
}

var _ tui.Lobby = (*presence)(nil)

// SetDoing implements tui.Lobby.
func (p *presence) SetDoing(d lobby.Doing) { p.lobby.SetDoing(p.self, d) }

// WatchPresence implements tui.Lobby.
func (p *presence) WatchPresence(on bool) { p.lobby.WatchPresence(p.self, on) }

// Who implements tui.Lobby.
func (p *presence) Who() []lobby.Presence { return p.lobby.Who() }

// Listed implements tui.Lobby: the listing all the viewers share.
func (p *presence) Listed() []lobby.Presence { return p.lobby.Listed() }

// Online implements tui.Lobby.
func (p *presence) Online() int { return p.lobby.Online() }

// PublicRooms lists the public rooms still waiting for players.
func (p *presence) PublicRooms() []lobby.RoomInfo {
	if p.rooms == nil {
		return nil
	}
	return p.rooms.Waiting()
}

// Watch implements tui.Lobby.
func (p *presence) Watch(name string) (lobby.Watched, error) {
	// The seat is counted at the name asked for (names are unique, and
	// compared without case), before the lobby gives one.
	if err := p.takeSeat("player " + strings.ToLower(name)); err != nil {
		return lobby.Watched{}, fmt.Errorf("watch: %w", err)
	}
	w, err := p.lobby.Watch(p.self, name)
	if err != nil {
		p.leaveSeat()
		return lobby.Watched{}, fmt.Errorf("watch: %w", err)
	}
	if p.spoilers != nil && p.spoilers.spoils(context.Background(), w.Board.Record.Rules, w.Board.Daily) {
		p.Unwatch()
		return lobby.Watched{}, errors.New(spoilerReason(w.Name))
	}
	return w, nil
}

// Unwatch implements tui.Lobby.
func (p *presence) Unwatch() {
	p.lobby.Unwatch(p.self)
	p.leaveSeat()
}

// takeSeat holds the session's one spectator seat at target in the
// budgets, giving back the one it held.
func (p *presence) takeSeat(target string) error {
	if p.budgets == nil {
		return nil
	}
	p.leaveSeat()
	release, err := p.budgets.Hold(budget.SpectatorSeat, p.who, target)
	if err != nil {
		return err
	}
	p.seatMu.Lock()
	p.seat = release
	p.seatMu.Unlock()
	return nil
}

// leaveSeat gives back the session's spectator seat, if it holds one.
func (p *presence) leaveSeat() {
	p.seatMu.Lock()
	release := p.seat
	p.seat = nil
	p.seatMu.Unlock()
	if release != nil {
		release()
	}
}

// Publish implements tui.Lobby.
func (p *presence) Publish(b lobby.Board) { p.lobby.Publish(p.self, b) }

// WatchDaily implements tui.Lobby.
func (p *presence) WatchDaily(on bool) { p.lobby.WatchDaily(p.self, on) }

// PlayingRules implements tui.Lobby.
func (p *presence) PlayingRules(rulesID string) int { return p.lobby.PlayingRules(rulesID) }

// Watchable implements tui.Lobby: the lobby holds the setting, read from
// the store when the session joined.
func (p *presence) Watchable(context.Context) (bool, error) { return p.lobby.Watchable(p.self), nil }

// SetWatchable keeps the setting for the player, then applies it to
// every session of theirs, on this server and the others.
func (p *presence) SetWatchable(ctx context.Context, on bool) error {
	if p.acct != nil {
		value := "off"
		if on {
			value = "on"
		}
		if err := p.acct.SetSetting(ctx, p.player, store.SettingWatchable, value); err != nil {
			return err
		}
	}
	p.lobby.SetWatchable(p.self, on)
	return nil
}

// watchable reads the player's setting "Others may watch me" from the
// store (on when it cannot be read: the default).
func (a *App) watchable(ctx context.Context, acct *account, player string) bool {
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	all, err := acct.Settings(ctx, player)
	if err != nil {
		a.cfg.Logger.Warn("read settings failed: others may watch", "player", player, "err", err)
		return true
	}
	return all[store.SettingWatchable] != "off"
}
