package arcade

import (
	"context"
	"fmt"
	"time"

	"pyramid/arena"
	"pyramid/lobby"
	"pyramid/store"
)

// The arenas as the club's page reads them (package web's ArenaSource,
// which cmd/pyramid wires): read only, from the rooms' fold where it can
// be, never as a player.

// arenasShownFor is how long a finished arena stays on the lists.
const arenasShownFor = 7 * 24 * time.Hour

// ArenaEvents returns the arenas to show: upcoming, running, and
// finished in the last 7 days, at most limit (and a repeating arena that
// started has its next occurrence set up).
func (a *App) ArenaEvents(ctx context.Context, limit int) ([]arena.Event, error) {
	if a.cfg.Store == nil {
		return nil, nil
	}
	now := a.cfg.Now()
	evs, err := a.cfg.Store.Arenas(ctx, now.Add(-arenasShownFor), limit)
	if err == nil && a.scheduleArenas(ctx, evs, now) {
		evs, err = a.cfg.Store.Arenas(ctx, now.Add(-arenasShownFor), limit)
	}
	if err != nil {
		return nil, fmt.Errorf("arenas: %w", err)
	}
	return evs, nil
}

// ArenaView returns an arena as a visitor sees it, with at most top lines
// of its standings: the rooms' view of an arena they know, else the
// store's (store.ErrNotFound for no such arena).
func (a *App) ArenaView(ctx context.Context, id int64, top int) (lobby.ArenaView, error) {
	if v, ok := a.rooms.ArenaView(id, "", top); ok {
		return v, nil
	}
	if a.cfg.Store == nil {
		return lobby.ArenaView{}, store.ErrNotFound
	}
	e, err := a.cfg.Store.Arena(ctx, id)
	if err != nil {
		return lobby.ArenaView{}, fmt.Errorf("arena %d: %w", id, err)
	}
	v, err := a.storedArenaView(ctx, e, "")
	if len(v.Top) > top {
		v.Top = v.Top[:top]
	}
	return v, err
}

// ArenaTopBoard returns the game of the arena's best ranked player whose
// race runs, as a spectator sees it, with their name; ok is false when no
// race of the arena runs here or on another server.
func (a *App) ArenaTopBoard(ctx context.Context, id int64) (lobby.Board, string, bool, error) {
	v, ok := a.rooms.ArenaView(id, "", 0)
	if !ok || v.TopGame == "" {
		return lobby.Board{}, "", false, nil
	}
	room, ok := a.rooms.Room(v.TopGame)
	if !ok {
		return lobby.Board{}, "", false, nil
	}
	snap := room.Snapshot()
	m, ok := snap.Member(v.TopPlayer)
	if !ok || snap.Phase != lobby.PhaseRacing && snap.Phase != lobby.PhaseCountdown {
		return lobby.Board{}, "", false, nil
	}
	rec, known := room.Board(m.ID)
	if !known && a.cfg.Store != nil && !m.Guest {
		// A line the room could not make whole: the racer's stored game.
		if sg, err := a.cfg.Store.RaceGame(ctx, m.ID, snap.RaceKey()); err == nil && sg.DealNumber == snap.Deal {
			rec.Moves = sg.Moves
		}
	}
	return lobby.Board{Record: rec}, m.Name, true, nil
}

// WatchArena has sink hear lobby.ArenaChanged for the arena whenever it
// or one of its races changes, until stop is called (lobby.Rooms).
func (a *App) WatchArena(id int64, sink lobby.Sink) (stop func()) {
	return a.rooms.WatchArena(id, sink)
}

// ArenaFinish is a player's finish in an arena that is over.
type ArenaFinish struct {
	Arena arena.Event
	// Rank is their place; Players how many scored in the arena.
	Rank, Players int
	arena.Line
}

// PlayerArenas returns the player's top-three finishes in arenas that are
// over (their trophies), newest first, at most limit, with their lines.
func (a *App) PlayerArenas(ctx context.Context, playerID string, limit int) ([]ArenaFinish, error) {
	if a.cfg.Store == nil {
		return nil, nil
	}
	ts, err := a.cfg.Store.Trophies(ctx, playerID, a.cfg.Now(), limit)
	if err != nil {
		return nil, fmt.Errorf("trophies: %w", err)
	}
	out := make([]ArenaFinish, 0, len(ts))
	for _, t := range ts {
		e, err := a.cfg.Store.Arena(ctx, t.ArenaID)
		if err != nil {
			return nil, fmt.Errorf("trophies: arena %d: %w", t.ArenaID, err)
		}
		l, err := a.cfg.Store.ArenaPlayer(ctx, t.ArenaID, playerID)
		if err != nil {
			return nil, fmt.Errorf("trophies: arena %d: %w", t.ArenaID, err)
		}
		out = append(out, ArenaFinish{Arena: e, Rank: t.Rank, Players: t.Players, Line: l.Line})
	}
	return out, nil
}
