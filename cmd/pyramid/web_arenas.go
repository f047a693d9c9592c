package main

import (
	"context"

	"pyramid/arcade"
	"pyramid/arena"
	"pyramid/lobby"
	"pyramid/web"
)

// webArenas is the arcade's arenas as the club's page reads them.
type webArenas struct{ app *arcade.App }

var (
	_ web.ArenaSource  = webArenas{}
	_ web.ArenaResults = webArenas{}
)

// List implements web.ArenaSource.
func (w webArenas) List(ctx context.Context, limit int) ([]arena.Event, error) {
	return w.app.ArenaEvents(ctx, limit)
}

// View implements web.ArenaSource.
func (w webArenas) View(ctx context.Context, id int64, top int) (lobby.ArenaView, error) {
	return w.app.ArenaView(ctx, id, top)
}

// TopBoard implements web.ArenaSource.
func (w webArenas) TopBoard(ctx context.Context, id int64) (lobby.Board, string, bool, error) {
	return w.app.ArenaTopBoard(ctx, id)
}

// Watch implements web.ArenaSource.
func (w webArenas) Watch(id int64, sink lobby.Sink) (stop func()) { return w.app.WatchArena(id, sink) }

// PlayerArenas implements web.ArenaResults: the player's podium finishes.
func (w webArenas) PlayerArenas(ctx context.Context, playerID string, limit int) ([]web.ArenaResult, error) {
	fs, err := w.app.PlayerArenas(ctx, playerID, limit)
	if err != nil {
		return nil, err
	}
	out := make([]web.ArenaResult, len(fs))
	for i, f := range fs {
		out[i] = web.ArenaResult{Arena: f.Arena, Rank: f.Rank, Players: f.Players, Line: f.Line}
	}
	return out, nil
}
