package arcade

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/store"
	"pyramid/tui"
)

// games keeps one session's games in the store: tui.Games for a player
// whose session writes as owner.
type games struct {
	st    store.Store
	owner string         // this session's token: the store refuses writes of games another session took over
	lobby *lobby.Lobby   // to tell the player's other sessions when this one takes a game from them
	self  *lobby.Session // this session in the lobby; nil: tell nobody
}

// taken tells the player's other sessions on this server that this
// session took a game from them.
func (g *games) taken(ctx context.Context, id int64) {
	if g.lobby != nil && g.self != nil {
		// Only a lobby bridged to other servers can fail to tell them; the
		// sessions here are told regardless, and one elsewhere learns it
		// at its next save, as the store refuses that save.
		_ = g.lobby.TakeOver(ctx, g.self, strconv.FormatInt(id, 10))
	}
}

var _ tui.Games = (*games)(nil)

// Unfinished lists the player's unfinished games, most recent first.
func (g *games) Unfinished(ctx context.Context, player string) ([]tui.SavedGame, error) {
	list, err := g.st.UnfinishedGames(ctx, player)
	if err != nil {
		return nil, fmt.Errorf("list unfinished games: %w", err)
	}
	out := make([]tui.SavedGame, 0, len(list))
	for _, sg := range list {
		out = append(out, savedGame(sg))
	}
	return out, nil
}

// Resume takes a game over for this session.
func (g *games) Resume(ctx context.Context, player, id string) (tui.SavedGame, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return tui.SavedGame{}, fmt.Errorf("resume game %q: bad id", id)
	}
	sg, err := g.st.ClaimGame(ctx, n, player, g.owner)
	if err != nil {
		return tui.SavedGame{}, fmt.Errorf("resume game %d: %w", n, err)
	}
	g.taken(ctx, n)
	g.playing(savedGame(sg), sg.Status, sg.Removed)
	return savedGame(sg), nil
}

// Save stores a game. Its status and cards removed are derived by
// replaying the moves in the engine, never taken from the screen; a
// finished game's result is recorded with it.
func (g *games) Save(ctx context.Context, player string, sg tui.SavedGame) (string, error) {
	replayed, err := engine.Replay(sg.Record)
	if err != nil {
		return "", fmt.Errorf("save game: %w", err)
	}
	st := store.State{
		Moves:   sg.Record.Moves,
		Redo:    sg.Record.Redo,
		Status:  finalStatus(replayed, sg.Status),
		Removed: replayed.Removed(),
		Elapsed: sg.Played,
	}
	id := int64(0)
	if sg.ID != "" {
		if id, err = strconv.ParseInt(sg.ID, 10, 64); err != nil {
			return "", fmt.Errorf("save game %q: bad id", sg.ID)
		}
	} else if id, err = g.create(ctx, player, sg); err != nil {
		return "", err
	}
	if st.Status == store.StatusPlaying {
		err = g.st.SaveGame(ctx, id, g.owner, st)
	} else {
		err = g.st.FinishGame(ctx, id, g.owner, st, result(id, replayed, st))
	}
	switch {
	case errors.Is(err, store.ErrConflict), errors.Is(err, store.ErrFinished):
		return "", fmt.Errorf("save game %d: %w", id, tui.ErrTakenOver)
	case err != nil:
		return "", fmt.Errorf("save game %d: %w", id, err)
	}
	g.playing(sg, st.Status, st.Removed)
	return strconv.FormatInt(id, 10), nil
}

// create starts a stored game. A player has one unfinished game per rule
// set: starting another abandons the old one, as dealing anew does.
func (g *games) create(ctx context.Context, player string, sg tui.SavedGame) (int64, error) {
	ng := store.NewGame{
		PlayerID: player, RulesID: sg.Record.Rules, DealNumber: sg.Record.Deal,
		DealText: sg.Record.DealText, Daily: sg.Daily, Owner: g.owner,
	}
	for attempt := 0; ; attempt++ {
		created, err := g.st.CreateGame(ctx, ng)
		if err == nil {
			return created.ID, nil
		}
		if !errors.Is(err, store.ErrInProgress) || attempt > 0 {
			return 0, fmt.Errorf("create game: %w", err)
		}
		if err := g.abandon(ctx, player, sg.Record.Rules); err != nil {
			return 0, err
		}
	}
}

// abandon finishes the player's unfinished game of a rule set as abandoned.
func (g *games) abandon(ctx context.Context, player, rulesID string) error {
	list, err := g.st.UnfinishedGames(ctx, player)
	if err != nil {
		return fmt.Errorf("abandon the old game: %w", err)
	}
	for _, old := range list {
		if old.RulesID != rulesID {
			continue
		}
		claimed, err := g.st.ClaimGame(ctx, old.ID, player, g.owner)
		if err != nil {
			return fmt.Errorf("abandon game %d: %w", old.ID, err)
		}
		g.taken(ctx, old.ID)
		st := claimed.State
		st.Status = store.StatusAbandoned
		var res *store.Result
		if replayed, err := engine.Replay(record(claimed)); err == nil {
			res = result(claimed.ID, replayed, st)
		}
		if err := g.st.FinishGame(ctx, claimed.ID, g.owner, st, res); err != nil {
			return fmt.Errorf("abandon game %d: %w", old.ID, err)
		}
	}
	return nil
}

// finalStatus is the stored status of a game: won when the replayed moves
// win; a game the screen finishes is lost when the replay is lost and
// abandoned otherwise.
func finalStatus(g *engine.Game, screen string) store.Status {
	switch {
	case g.Status() == engine.Won:
		return store.StatusWon
	case screen == tui.StatusPlaying:
		return store.StatusPlaying
	case g.Status() == engine.Lost:
		return store.StatusLost
	}
	return store.StatusAbandoned
}

// result is the result of a finished game, or nil for a game abandoned
// before its first move, which does not count as played.
func result(id int64, g *engine.Game, st store.State) *store.Result {
	if st.Status == store.StatusAbandoned && g.MovesMade() == 0 {
		return nil
	}
	return &store.Result{GameID: id, Won: st.Status == store.StatusWon, Removed: g.Removed(), Moves: g.MovesMade(), Elapsed: st.Elapsed}
}

// record is a stored game as an engine record.
func record(sg store.Game) engine.Record {
	return engine.Record{Rules: sg.RulesID, Deal: sg.DealNumber, DealText: sg.DealText, Moves: sg.Moves, Redo: sg.Redo}
}

// savedGame is a stored game as the tui sees it.
func savedGame(sg store.Game) tui.SavedGame {
	return tui.SavedGame{
		ID:      strconv.FormatInt(sg.ID, 10),
		Record:  record(sg),
		Status:  string(sg.Status),
		Daily:   sg.Daily,
		Removed: sg.Removed,
		Started: sg.Started,
		Played:  sg.Elapsed,
		Saved:   sg.Updated,
	}
}

// dealName is how a game's deal is shown: its number, or "custom".
func dealName(sg store.Game) string {
	if sg.DealText != "" {
		return "custom"
	}
	return strconv.FormatUint(sg.DealNumber, 10)
}

// joinMoves prints a move list, or "(none)".
func joinMoves(ms []string) string {
	if len(ms) == 0 {
		return "(none)"
	}
	return strings.Join(ms, " ")
}
