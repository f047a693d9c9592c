// Package race is a server's race service: its racers' games of the races
// that run, kept as they are played (stored through each racer's games
// writer, package games) and finished when their race ends, and each
// race's result stored when it ends. The rooms (lobby.Rooms) drive it,
// through three hooks: a race's countdown makes the stored games of this
// server's racers (Countdown), its end is stored by the lease holder
// (Store), and every server lets go of a round's games when it is over
// (RoundOver). A racer's session reaches it through a Racer.
package race

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/charmbracelet/log"

	"pyramid/engine"
	"pyramid/games"
	"pyramid/lobby"
	"pyramid/rating"
	"pyramid/store"
)

// Timeouts of the service's store calls.
const (
	// storeTimeout bounds one store call of the service's own (a race's
	// result, its games finished, a seat's game read).
	storeTimeout = 5 * time.Second
	// prepareTimeout bounds the making of a racer's game before the race.
	prepareTimeout = 10 * time.Second
)

// Errors of a racer's move, besides the rooms' (lobby.ErrNotRacing,
// lobby.ErrRaceOver, …).
var (
	// ErrTakenOver: another session of the racer holds their seat, or
	// took their game over: this session's moves are not the race's.
	ErrTakenOver = errors.New("the race continues in another session")
	// ErrNotTheDeal: a move on a game that is not the race's deal.
	ErrNotTheDeal = errors.New("that game is not this race's deal")
	// ErrBerserkUndo: a move taken back by a racer who went berserk.
	ErrBerserkUndo = errors.New("berserk: no undo in this race")
)

// StaleError is the error of a move made on a board older than the
// racer's stored game (it was played on in another session meanwhile):
// the move is not the race's, and Record is the game as stored, which the
// racer's board shows instead.
type StaleError struct{ Record engine.Record }

// Error says what happened.
func (e *StaleError) Error() string { return games.ErrStale.Error() }

// Unwrap returns games.ErrStale.
func (e *StaleError) Unwrap() error { return games.ErrStale }

// Config is what the service needs.
type Config struct {
	// Store keeps the games and the results; nil keeps nothing.
	Store store.Store
	// Writer is the games writer of the service's own writes (a race's
	// racers' games finished at its end): its owner token is none of a
	// session's.
	Writer func() *games.Writer
	// Now is the clock of the racers' move times; time.Now when nil.
	Now func() time.Time
	// Logger is told of what could not be stored; log.Default() when nil.
	Logger *log.Logger
}

// Service is a server's race service. Its methods are safe for concurrent
// use.
type Service struct {
	cfg Config

	// mu is taken for reading by the look-up of every race move.
	mu    sync.RWMutex
	games map[string]*game // by gameKey: every racer's game of the races running here
	// seats is the racer session holding each seat of this server, by
	// seatKey: a race's countdown makes their games through them.
	seats map[string]*Racer
}

// New returns a server's race service.
func New(cfg Config) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = log.Default()
	}
	return &Service{cfg: cfg, games: map[string]*game{}, seats: map[string]*Racer{}}
}

// game is one racer's game of one round of a room, as this server knows
// it: so that a racer who drops comes back to the same game with its
// history, whether or not the store keeps it (a guest's).
type game struct {
	mu  sync.Mutex // held across a report and its save, so they stay in order
	seq int        // of the last report taken
	rec engine.Record
	// times is when each move of rec was made, since the race's start,
	// as the reports came (the server's clock): the stored game's move
	// times.
	times  []time.Duration
	gameID int64 // the stored game; 0 before the first save
	// unstored: the store refused the game: the race runs, the game is
	// not kept.
	unstored bool
	// note is what the player is told of a game made before the race
	// (prepare) when the store did not keep it, until their first move
	// brings it.
	note string
	// fast: the racer's moves came faster than a person plays
	// (games.Assisted), which leaves the race unrated for them.
	fast bool
}

// FastNote is what a racer is told when their moves came faster than a
// person plays (games.Assisted).
const FastNote = "unrated: moves faster than play (your place stays; the race is unrated for you)"

func gameKey(code string, round int, playerID string) string {
	return code + "/" + strconv.Itoa(round) + "/" + playerID
}

func seatKey(code, playerID string) string { return code + "/" + playerID }

// game returns the racer's game, made when create is set.
func (s *Service) game(key string, create bool) *game {
	s.mu.RLock()
	g := s.games[key]
	s.mu.RUnlock()
	if g != nil || !create {
		return g
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if g = s.games[key]; g == nil {
		g = &game{seq: -1}
		s.games[key] = g
	}
	return g
}

// Racing reports whether a stored game is a racer's game of a race that
// runs on this server: not the player's to continue alone.
func (s *Service) Racing(id int64) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, g := range s.games {
		if g.stored() == id {
			return true
		}
	}
	return false
}

// Stored returns the stored game of a racer of a round that this server
// keeps, or 0.
func (s *Service) Stored(code string, round int, playerID string) int64 {
	if g := s.game(gameKey(code, round, playerID), false); g != nil {
		return g.stored()
	}
	return 0
}

// stored is the racer's stored game ID, or 0.
func (g *game) stored() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.gameID
}

// adopt makes g the stored game sg, with g's lock held.
func (g *game) adopt(sg store.Game) {
	g.rec = games.RecordOf(sg)
	g.times = slices.Clone(sg.MoveTimes)
	g.gameID = sg.ID
	g.unstored, g.note = false, ""
}

// Countdown makes the stored games of this server's racers of a race
// whose countdown began (the rooms' OnCountdown), empty, in the background:
// the first moves of a race's racers then are saves like any other
// (grouped), not the creation of every racer's game at the same moment of
// the race. A racer who never moves keeps an empty race game, which no
// menu lists and the race ends with (RoundOver).
func (s *Service) Countdown(c lobby.Countdown) {
	if s.cfg.Store == nil {
		return
	}
	for _, id := range c.Racers {
		s.mu.RLock()
		r := s.seats[seatKey(c.Code, id)]
		s.mu.RUnlock()
		s.prepare(r, c.Code, c.Round, engine.Record{Rules: c.RulesID, Deal: c.Deal}, c.RaceKey, !c.Rated)
	}
}

// prepare makes the stored game of racer r (nil: a racer with no seat on
// this server) of round's race in room code, empty, in the background,
// unless it is made, being made or played already, or r's games are not
// stored.
func (s *Service) prepare(r *Racer, code string, round int, rec engine.Record, raceKey string, chosen bool) {
	if r == nil || r.w == nil {
		return
	}
	key := gameKey(code, round, r.me.ID)
	if s.game(key, false) != nil {
		return
	}
	go r.prepare(s.game(key, true), rec, raceKey, chosen)
}

// RoundOver is the end of a round of a room (or its room's closing), the
// rooms' OnRoundOver on every server. The server finishes the empty games
// it made for its racers who never moved (the room names no game of
// theirs, so Store does not, and on a cluster the lease holder that stores
// the race knows only its own racers'), then lets go of the round's games.
func (s *Service) RoundOver(code string, round int, placings []lobby.Placing) {
	var unmoved []lobby.Placing
	for _, p := range placings {
		if p.GameID > 0 {
			// The room names the game: the racer moved. (Its lock may be
			// held by the move that ended the race, which waits for this.)
			continue
		}
		if id := s.unmoved(code, round, p.ID); id > 0 {
			p.GameID = id
			unmoved = append(unmoved, p)
		}
	}
	s.mu.Lock()
	for _, p := range placings {
		delete(s.games, gameKey(code, round, p.ID))
	}
	s.mu.Unlock()
	if len(unmoved) == 0 || s.cfg.Store == nil {
		return
	}
	go func() { // not on the rooms' goroutine, which calls this
		ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		defer cancel()
		closer := s.cfg.Writer()
		for _, p := range unmoved {
			if err := closer.Abandon(ctx, p.ID, p.GameID); err != nil {
				s.cfg.Logger.Warn("race game not finished", "room", code, "game", p.GameID, "err", err)
			}
		}
	}()
}

// unmoved is the stored game of a racer of a round made before the race
// (prepare) when the racer never moved, or 0.
func (s *Service) unmoved(code string, round int, playerID string) int64 {
	g := s.game(gameKey(code, round, playerID), false)
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.seq >= 0 {
		return 0
	}
	return g.gameID
}

// Store stores a race that ran to its end (the rooms' OnRaceEnd, on the
// lease holder): the placings of players with a key, none when all are
// guests, under a key that makes a second write of the same race change
// nothing (a new holder may store it again). A void race (a racer lost
// with their server) is stored unrated. A racer's stored game still being
// played when the race ended (the time limit, or they left) is finished
// as abandoned, or lost when its position is. It returns how the race
// counted for each racer with a key, as stored.
func (s *Service) Store(res lobby.RaceResult) ([]lobby.RatingChange, error) {
	if s.cfg.Store == nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	nr, ok := s.newRace(ctx, res)
	closer := s.cfg.Writer()
	for _, p := range res.Placings {
		if p.GameID > 0 && !p.Cleared && !p.Guest {
			if err := closer.Abandon(ctx, p.ID, p.GameID); err != nil {
				s.cfg.Logger.Warn("race game not finished", "room", res.Code, "game", p.GameID, "err", err)
			}
		}
	}
	if !ok {
		return nil, nil
	}
	id, err := s.cfg.Store.RecordRace(ctx, nr)
	if err != nil {
		s.cfg.Logger.Error("race not stored", "room", res.Code, "round", res.Round, "err", err)
		return nil, fmt.Errorf("store race %s: %w", res.Code, err)
	}
	race, err := s.cfg.Store.Race(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("read back race %s: %w", res.Code, err)
	}
	return RatingChanges(race), nil
}

// newRace is the race to store of a race that ended; ok is false for one
// that stores nothing: all guests, or no card removed (everybody left
// first, or the time ran out): the ranking ties them all first, which
// says nothing: no result, no race won, no rating.
func (s *Service) newRace(ctx context.Context, res lobby.RaceResult) (nr store.NewRace, ok bool) {
	nr = store.NewRace{Key: res.Key(), Code: res.Code, RulesID: res.RulesID, DealNumber: res.Deal,
		Started: res.Started, Ended: res.Ended, Racers: len(res.Placings), Rated: res.Rated, Void: res.Void, Verdict: res.Verdict}
	for _, p := range res.Placings {
		if p.Guest {
			continue
		}
		nr.Placings = append(nr.Placings, store.RacePlacing{PlayerID: p.ID, Place: p.Place, Cleared: p.Cleared,
			Removed: p.Removed, Moves: p.Moves, Time: p.Time, GameID: max(p.GameID, 0), Outcome: outcomeOf(p),
			Assisted: s.assisted(ctx, p.GameID)})
	}
	ok = len(nr.Placings) > 0 && slices.ContainsFunc(res.Placings, func(p lobby.Placing) bool { return p.Removed > 0 || p.Cleared })
	return nr, ok
}

// ScoreArena scores an arena race that ended (RaceResult.Arena), the
// rooms' OnArenaRace on the lease holder, after Store stored it: the
// store scores it in the arena once, and it returns the racers' new lines.
// A race that stored nothing scores nothing.
func (s *Service) ScoreArena(res lobby.RaceResult) ([]lobby.ArenaStanding, error) {
	if s.cfg.Store == nil || res.Arena == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	nr, ok := s.newRace(ctx, res)
	if !ok {
		return nil, nil
	}
	// The race is stored already: its key finds it.
	id, err := s.cfg.Store.RecordRace(ctx, nr)
	if err != nil {
		return nil, fmt.Errorf("find arena race %s: %w", res.Code, err)
	}
	var berserk []string
	for _, p := range res.Placings {
		if p.Berserk && !p.Guest {
			berserk = append(berserk, p.ID)
		}
	}
	lines, err := s.cfg.Store.RecordArenaRace(ctx, res.Arena, id, berserk)
	if err != nil {
		return nil, fmt.Errorf("score arena race %s: %w", res.Code, err)
	}
	return ArenaStandings(lines), nil
}

// ArenaStandings is the store's lines of an arena as the rooms keep them.
func ArenaStandings(lines []store.ArenaLine) []lobby.ArenaStanding {
	out := make([]lobby.ArenaStanding, len(lines))
	for i, l := range lines {
		out[i] = lobby.ArenaStanding{Rank: l.Rank, ID: l.PlayerID, Name: l.PlayerName, Line: l.Line, Reached: l.Reached}
	}
	return out
}

// RatingChanges is how a stored race counted for each of its placed
// racers, on the display scale.
func RatingChanges(race store.Race) []lobby.RatingChange {
	out := make([]lobby.RatingChange, 0, len(race.Placings))
	for _, p := range race.Placings {
		c := lobby.RatingChange{ID: p.PlayerID, Standing: p.Standing, Reason: p.Reason}
		if p.Standing == rating.Rated {
			c.Before, c.After, c.Provisional = p.Before.Display, p.Rating.Display, p.Rating.Provisional
		}
		out = append(out, c)
	}
	return out
}

// assisted reports whether a racer's stored game of the race (gameID, 0
// for none) was played faster than a person plays (games.Assisted): the
// store's move times are the server's, taken as each move came. A game
// that cannot be read is taken as played: the race is stored all the
// same, and the error logged.
func (s *Service) assisted(ctx context.Context, gameID int64) bool {
	if gameID <= 0 {
		return false
	}
	sg, err := s.cfg.Store.Game(ctx, gameID)
	if err != nil {
		s.cfg.Logger.Warn("race game not read for its pace", "game", gameID, "err", err)
		return false
	}
	return games.Assisted(sg.Moves, sg.MoveTimes)
}

// outcomeOf is how a placed racer's race ended, for the store: a racer
// still playing when the race ended ran out of time.
func outcomeOf(p lobby.Placing) store.Outcome {
	switch {
	case p.Cleared:
		return store.OutcomeCleared
	case p.State == lobby.RacerStuck:
		return store.OutcomeStuck
	case p.State == lobby.RacerLeft:
		return store.OutcomeLeft
	}
	return store.OutcomeTimeUp
}
