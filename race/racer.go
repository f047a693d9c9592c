package race

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"pyramid/engine"
	"pyramid/games"
	"pyramid/lobby"
	"pyramid/store"
)

// Racer is one session's racer: a player in the rooms, as the session's
// sink, with the session's games writer (nil for a player whose games are
// not stored: a guest).
type Racer struct {
	s    *Service
	me   lobby.Entrant
	sink lobby.Sink
	w    *games.Writer
	ctx  context.Context // the session's
}

// Racer binds a session of player me, whose sink the rooms post to, for
// as long as ctx lasts.
func (s *Service) Racer(ctx context.Context, me lobby.Entrant, sink lobby.Sink, w *games.Writer) *Racer {
	return &Racer{s: s, me: me, sink: sink, w: w, ctx: ctx}
}

// Seat is what a racer's seat in a race that runs brings back: the
// racer's game so far, the last report of it taken, and its cards
// removed.
type Seat struct {
	Game    *engine.Record // nil: none yet
	Seq     int
	Removed int
}

// Seat takes the session's seat in the room of snap: its racer's games of
// the room's races are made through this session, and, in a race that
// runs, the racer goes on with their game of it. The stored game is the
// truth: the seat starts from it, whatever this server kept of the race
// (the racer may have played on elsewhere since), and its saves are this
// session's from now on.
func (r *Racer) Seat(snap lobby.Snapshot) Seat {
	r.s.mu.Lock()
	r.s.seats[seatKey(snap.Code, r.me.ID)] = r
	r.s.mu.Unlock()
	if _, member := snap.Member(r.me.ID); member && snap.Phase == lobby.PhaseCountdown {
		// A seat taken once the countdown runs (an arena's racers: its
		// pairing starts the countdown before their sessions take their
		// seats, so Countdown found none) makes the racer's game now, as
		// Countdown makes the others'.
		r.s.prepare(r, snap.Code, snap.Round, engine.Record{Rules: snap.RulesID, Deal: snap.Deal}, snap.RaceKey(), !snap.Rated)
	}
	if snap.Phase != lobby.PhaseRacing {
		return Seat{}
	}
	g := r.s.game(gameKey(snap.Code, snap.Round, r.me.ID), r.w != nil)
	if g == nil {
		return Seat{}
	}
	g.mu.Lock()
	if r.w != nil {
		ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		r.takeStored(ctx, g, snap)
		cancel()
	}
	rec := g.rec
	rec.Moves, rec.Redo = slices.Clone(rec.Moves), slices.Clone(rec.Redo)
	seat := Seat{Seq: max(g.seq, 0)}
	g.mu.Unlock()
	if rec.Rules != "" {
		seat.Game = &rec
		if g, err := engine.Replay(rec); err == nil {
			seat.Removed = g.Removed()
		}
	}
	return seat
}

// Unseat says the session left its seat in room code.
func (r *Racer) Unseat(code string) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if key := seatKey(code, r.me.ID); r.s.seats[key] == r {
		delete(r.s.seats, key)
	}
}

// takeStored makes the racer's stored game of the race (store.Games.
// RaceGame: the one game of this racer of this race, made on whichever
// server) this session's, and g as it is stored, with g's lock held. A
// racer with no stored game of the race keeps g as it is (nothing stored
// yet, or a game the store did not keep); a store that cannot be read
// leaves g untouched too, and the first save then says whether it is
// behind.
func (r *Racer) takeStored(ctx context.Context, g *game, snap lobby.Snapshot) {
	sg, err := r.s.cfg.Store.RaceGame(ctx, r.me.ID, snap.RaceKey())
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			r.s.cfg.Logger.Warn("race game not read", "player", r.me.ID, "room", snap.Code, "err", err)
		}
		return
	}
	if sg.RulesID != snap.RulesID || sg.DealNumber != snap.Deal || sg.DealText != "" {
		return // not this round's deal: never the case for a key of the race
	}
	if sg.Status == store.StatusPlaying {
		claimed, err := r.w.Claim(ctx, r.me.ID, sg.ID)
		switch {
		case err == nil:
			sg = claimed
		case !errors.Is(err, store.ErrFinished):
			r.s.cfg.Logger.Warn("race game not taken over", "player", r.me.ID, "game", sg.ID, "err", err)
		}
	}
	g.adopt(sg)
}

// Play takes the racer's game after a change (seq numbers the session's
// reports, rec is the game now): it reports the progress to the room
// first (the others see it at once), then stores the game. A change the
// room or the store does not take did not happen: the racer's board goes
// back to what they have (an error), and so do the room's panel and a
// comeback. note is what the racer should know of their game's storing.
func (r *Racer) Play(ctx context.Context, room *lobby.Room, round, seq int, rec engine.Record) (note string, err error) {
	snap := room.Round()
	code := room.Code()
	if snap.Round != round || snap.Phase != lobby.PhaseRacing {
		return "", lobby.ErrNotRacing
	}
	if rec.Rules != snap.RulesID || rec.Deal != snap.Deal || rec.DealText != "" {
		return "", ErrNotTheDeal
	}
	g, err := engine.Replay(rec)
	if err != nil {
		return "", fmt.Errorf("race game: %w", err)
	}
	rg := r.s.game(gameKey(code, round, r.me.ID), true)
	rg.mu.Lock()
	defer rg.mu.Unlock()
	if seq <= rg.seq {
		return "", nil // a later report came first
	}
	if !extends(rec.Moves, rg.rec.Moves) && room.Berserk(r.me.ID) {
		return "", ErrBerserkUndo
	}
	prevSeq, prev, prevTimes := rg.seq, rg.rec, slices.Clone(rg.times)
	rg.seq = seq
	rg.rec = rec
	rg.times = rg.times[:min(len(rg.times), len(rec.Moves))]
	for at := max(0, r.s.cfg.Now().Sub(snap.StartsAt)); len(rg.times) < len(rec.Moves); {
		rg.times = append(rg.times, at)
	}
	if err := room.Report(r.me.ID, r.sink, lobby.ProgressOf(g, rg.gameID), rec.Moves); err != nil && !errors.Is(err, lobby.ErrRaceOver) {
		// The room did not take the move, so it did not happen: the
		// racer's game stays as it was (and with another session of
		// the player holding the seat, the game is that session's).
		rg.seq, rg.rec, rg.times = prevSeq, prev, prevTimes
		if errors.Is(err, lobby.ErrSeatTaken) {
			return "", fmt.Errorf("race %s: %w", code, ErrTakenOver)
		}
		return "", err
	}
	// Still being played as far as the racer says: the writer records a
	// loss from the position.
	play := games.Play{Record: rec, Started: snap.StartsAt, Played: r.s.cfg.Now().Sub(snap.StartsAt), MoveTimes: slices.Clone(rg.times)}
	stored := false
	if r.w != nil && rg.gameID == 0 && !rg.unstored {
		// A game not made before the race (a racer whose session did not
		// hold the seat when the countdown began). The room has the move
		// already, and the panels do not wait for the store. The game is
		// made with the move in it (one write, where a create and a save
		// were two waits for the store in a row), unless the move ends it
		// (a save finishes it then). The room learns the game's ID (its
		// placing names it) with a second report.
		var first store.State
		if st, ok := play.Playing(g); ok {
			first, stored = st, true
		}
		var existed bool
		var cerr error
		if note, existed, cerr = r.createGame(ctx, rg, rec, snap.RaceKey(), !room.Snapshot().Rated, first); existed {
			// The racer's game of the race was made meanwhile by another
			// session of theirs: the move was not made on it.
			return "", r.stale(rg, room)
		}
		if cerr != nil {
			return note, r.takeBack(rg, room, snap, g, prev, prevTimes, cerr)
		}
		if rg.gameID > 0 {
			_ = room.Report(r.me.ID, r.sink, lobby.ProgressOf(g, rg.gameID), rec.Moves)
		} else {
			stored = false
		}
	}
	if note == "" && rg.note != "" {
		note, rg.note = rg.note, "" // from prepare, told once
	}
	if rg.fast = rg.fast || games.Assisted(rec.Moves, rg.times); rg.fast && note == "" {
		// Told with every move from then on (a message of the screen's
		// would hide it): the race keeps their place, and stores it
		// unrated for them (Service.Store).
		note = FastNote
	}
	if rg.gameID > 0 && !stored {
		if _, err := r.w.Save(ctx, r.me.ID, rg.gameID, play, g); err != nil {
			if errors.Is(err, games.ErrTakenOver) {
				return note, fmt.Errorf("race %s: %w", code, ErrTakenOver)
			}
			if errors.Is(err, games.ErrStale) {
				// The stored game is newer than the board the move was
				// made on: the board, the room and a comeback go on from
				// the stored game.
				if sg, rerr := r.s.cfg.Store.Game(ctx, rg.gameID); rerr == nil && sg.PlayerID == r.me.ID {
					r.w.Read(sg)
					rg.adopt(sg)
					return note, r.stale(rg, room)
				}
			}
			return note, r.takeBack(rg, room, snap, g, prev, prevTimes, err)
		}
	}
	return note, nil
}

// takeBack undoes a move the store does not have (err): as at the table,
// it did not happen, so the racer's board goes back to the stored game
// (prev, with its move times), and so do the room's panel and a
// comeback. It returns the error for the racer's screen.
func (r *Racer) takeBack(rg *game, room *lobby.Room, snap lobby.RoundOf, g *engine.Game, prev engine.Record, prevTimes []time.Duration, err error) error {
	rg.rec, rg.times = prev, prevTimes
	back, rerr := engine.Replay(prev)
	if prev.Rules == "" || rerr != nil {
		back, _ = engine.NewNumbered(g.Rules(), snap.Deal)
	}
	if back != nil {
		_ = room.Report(r.me.ID, r.sink, lobby.ProgressOf(back, rg.gameID), prev.Moves)
	}
	if rg.gameID == 0 {
		return fmt.Errorf("race game: %w", err)
	}
	return fmt.Errorf("race game %d: %w", rg.gameID, err)
}

// stale takes the racer back to their stored race game, rg as adopted
// from the store (with its lock held): the room's panel shows it, and the
// error returned, a *StaleError, has the racer's board show it.
func (r *Racer) stale(rg *game, room *lobby.Room) error {
	if back, err := engine.Replay(rg.rec); err == nil {
		_ = room.Report(r.me.ID, r.sink, lobby.ProgressOf(back, rg.gameID), rg.rec.Moves)
	}
	rec := rg.rec
	rec.Moves, rec.Redo = slices.Clone(rec.Moves), slices.Clone(rec.Redo)
	return fmt.Errorf("race %s: %w", room.Code(), &StaleError{Record: rec})
}

// prepare makes the racer's stored game of the round, empty, unless the
// racer's first move (or another session's prepare) made it first.
func (r *Racer) prepare(rg *game, rec engine.Record, race string, chosen bool) {
	ctx, cancel := context.WithTimeout(r.ctx, prepareTimeout)
	defer cancel()
	rg.mu.Lock()
	defer rg.mu.Unlock()
	if rg.gameID != 0 || rg.unstored || rg.seq >= 0 {
		return
	}
	rg.note, _, _ = r.createGame(ctx, rg, rec, race, chosen, store.State{}) // out of reach: the first move makes it
}

// createGame starts the stored game of a racer, the one game of the
// racer of the race race (its key). A race game is stored as practice: it
// records no solo result (played, won, best time, streak), since a race
// is not a solo game; the race's own record is its placing (Store). It
// starts with first, the play so far (none when zero). When the racer
// has a game of the race already (made by another session of theirs, on
// any server), that one is rg from now on, as stored (existed). A game
// the store refuses is not kept (the race runs, its result is stored),
// and note tells the player so. chosen: the room's deal was chosen (an
// unrated room), so the game's number is the player's to see
// (store.Game.Chosen). A game the store could not be asked for (the
// database out of reach, store.ErrUnavailable) is not refused: err says
// so, and the next move makes it.
func (r *Racer) createGame(ctx context.Context, rg *game, rec engine.Record, race string, chosen bool, first store.State) (note string, existed bool, err error) {
	created, err := r.w.Create(ctx, store.NewGame{PlayerID: r.me.ID, RulesID: rec.Rules,
		DealNumber: rec.Deal, Practice: true, Kind: store.KindRace, Race: race, State: first, Chosen: chosen})
	if errors.Is(err, store.ErrUnavailable) {
		return "", false, err
	}
	if errors.Is(err, store.ErrExists) {
		sg, rerr := r.s.cfg.Store.RaceGame(ctx, r.me.ID, race)
		if rerr == nil && sg.Status == store.StatusPlaying {
			sg, rerr = r.w.Claim(ctx, r.me.ID, sg.ID)
		}
		if rerr == nil {
			rg.adopt(sg)
			return "", true, nil
		}
		if errors.Is(rerr, store.ErrUnavailable) {
			return "", false, rerr
		}
		err = rerr
	}
	switch {
	case errors.Is(err, store.ErrInProgress):
		rg.unstored = true
		return "your unfinished game of these rules keeps its place: this race game is not stored (the race result is)", false, nil
	case err != nil:
		rg.unstored = true
		r.s.cfg.Logger.Error("race game not stored", "player", r.me.ID, "err", err)
		// The store's words are for the log; its sentinels have plain
		// ones (tui.PlainError).
		why := "the store refused it"
		var p interface{ Plain() string }
		if errors.As(err, &p) {
			why = p.Plain()
		}
		return "this race game is not stored: " + why, false, nil
	}
	rg.gameID = created.ID
	return "", false, nil
}

// Board returns a racer's game of the race that runs in room, or the
// start of the deal before their first move, for a spectator: as the room
// knows it from the racer's reports, on this server or another (their
// progress events carry their moves). A line the room could not make whole
// from the events is read from the racer's stored game, once: the room
// follows the events from it again.
func (r *Racer) Board(ctx context.Context, room *lobby.Room, playerID string) (engine.Record, error) {
	if rec, ok := room.Board(playerID); ok {
		return rec, nil
	}
	snap := room.Snapshot()
	m, ok := snap.Member(playerID)
	if !ok {
		return engine.Record{}, lobby.ErrNotMember
	}
	rec := engine.Record{Rules: snap.RulesID, Deal: snap.Deal}
	if r.s.cfg.Store == nil || m.Guest {
		return rec, nil
	}
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	sg, err := r.s.cfg.Store.RaceGame(ctx, m.ID, snap.RaceKey())
	if err == nil && sg.RulesID == snap.RulesID && sg.DealNumber == snap.Deal && sg.DealText == "" {
		rec.Moves = sg.Moves
		room.Learn(playerID, sg.Moves)
	}
	return rec, nil
}

// extends reports whether moves are prev with more moves after (or the
// same): no move of prev was taken back.
func extends(moves, prev []string) bool {
	return len(moves) >= len(prev) && slices.Equal(moves[:len(prev)], prev)
}
