package arcade

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"pyramid/engine"
	"pyramid/games"
	"pyramid/keys"
	"pyramid/lobby"
	"pyramid/store"
	"pyramid/tui"
)

// Timeouts of the race service's slow calls.
const (
	// raceDealTimeout bounds the solver's search for a winnable deal of
	// a new room.
	raceDealTimeout = 10 * time.Second
	// raceVerdictTimeout bounds the solver's verdict on a deal a player
	// chose.
	raceVerdictTimeout = 3 * time.Second
)

// raceBook keeps every racer's game of the races running on this server,
// so that a racer who drops comes back to the same game with its history,
// whether or not the store keeps it.
type raceBook struct {
	// mu is taken for reading by the lookup of every race move.
	mu    sync.RWMutex
	games map[string]*raceGame // by raceGameKey
}

// raceGame is one racer's game of one round of a room.
type raceGame struct {
	mu  sync.Mutex // held across a report and its save, so they stay in order
	seq int        // of the last report taken
	rec engine.Record
	// times is when each move of rec was made, since the race's start,
	// as the reports came (the server's clock): the stored game's move
	// times.
	times  []time.Duration
	gameID int64 // the stored game; 0 before the first save
	// unstored: the store refused the game (the player has an unfinished
	// game of these rules): the race runs, the game is not kept.
	unstored bool
	// note is what the player is told of a game made before the race
	// (prepare) when the store did not keep it, until their first move
	// brings it.
	note string
}

func raceGameKey(code string, round int, playerID string) string {
	return code + "/" + strconv.Itoa(round) + "/" + playerID
}

// game returns the racer's game, made when make is set.
func (b *raceBook) game(key string, create bool) *raceGame {
	b.mu.RLock()
	g := b.games[key]
	b.mu.RUnlock()
	if g != nil || !create {
		return g
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if g = b.games[key]; g == nil {
		g = &raceGame{seq: -1}
		b.games[key] = g
	}
	return g
}

// racing reports whether a stored game is a racer's game of a race that
// runs.
func (b *raceBook) racing(id int64) bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	for _, g := range b.games {
		if g.stored() == id {
			return true
		}
	}
	return false
}

// stored is the racer's stored game ID, or 0.
func (g *raceGame) stored() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.gameID
}

// unmoved is the stored game of a racer of a round made before the race
// (prepare) when the racer never moved, or 0.
func (b *raceBook) unmoved(code string, round int, playerID string) int64 {
	g := b.game(raceGameKey(code, round, playerID), false)
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

// roundOver is the end of a round of a room (or its room's closing), the
// rooms' OnRoundOver on every server. The server finishes the empty games
// it made for its racers who never moved (prepare; the room names no game
// of theirs, so storeRace does not, and on a cluster the lease holder that
// stores the race knows only its own racers'), then lets go of the
// round's games.
func (a *App) roundOver(code string, round int, placings []lobby.Placing) {
	var unmoved []lobby.Placing
	for _, p := range placings {
		if p.GameID > 0 {
			// The room names the game: the racer moved. (Its lock may be
			// held by the move that ended the race, which waits for this.)
			continue
		}
		if id := a.book.unmoved(code, round, p.ID); id > 0 {
			p.GameID = id
			unmoved = append(unmoved, p)
		}
	}
	a.book.forget(code, round, placings)
	if len(unmoved) == 0 || a.cfg.Store == nil {
		return
	}
	go func() { // not on the rooms' goroutine, which calls this
		ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		defer cancel()
		closer := a.newWriter(nil)
		for _, p := range unmoved {
			if err := closer.Abandon(ctx, p.ID, p.GameID); err != nil {
				a.cfg.Logger.Warn("race game not finished", "room", code, "game", p.GameID, "err", err)
			}
		}
	}()
}

// forget lets go of the games of one round of a room.
func (b *raceBook) forget(code string, round int, placings []lobby.Placing) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range placings {
		delete(b.games, raceGameKey(code, round, p.ID))
	}
}

// storeRace stores a race that ran to its end (the rooms' OnRaceEnd, on
// the lease holder): the placings of players with a key, none when all
// are guests, under a key that makes a second write of the same race
// change nothing (a new holder may store it again). A racer's stored game
// still being played when the race ended (the time limit, or they left)
// is finished as abandoned, or lost when its position is.
func (a *App) storeRace(res lobby.RaceResult) error {
	if a.cfg.Store == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	nr := store.NewRace{Key: res.Key(), Code: res.Code, RulesID: res.RulesID, DealNumber: res.Deal,
		Started: res.Started, Ended: res.Ended, Racers: len(res.Placings), Rated: res.Rated && !res.Void, Verdict: res.Verdict}
	closer := a.newWriter(nil)
	for _, p := range res.Placings {
		if p.Guest {
			continue
		}
		nr.Placings = append(nr.Placings, store.RacePlacing{PlayerID: p.ID, Place: p.Place, Cleared: p.Cleared,
			Removed: p.Removed, Moves: p.Moves, Time: p.Time, GameID: max(p.GameID, 0), Outcome: outcomeOf(p)})
		if p.GameID > 0 && !p.Cleared {
			if err := closer.Abandon(ctx, p.ID, p.GameID); err != nil {
				a.cfg.Logger.Warn("race game not finished", "room", res.Code, "game", p.GameID, "err", err)
			}
		}
	}
	if len(nr.Placings) == 0 || !slices.ContainsFunc(res.Placings, func(p lobby.Placing) bool { return p.Removed > 0 || p.Cleared }) {
		// All guests, or no card removed (everybody left first, or the
		// time ran out): the ranking ties them all first, which says
		// nothing: no result, no race won, no rating.
		return nil
	}
	if _, err := a.cfg.Store.RecordRace(ctx, nr); err != nil {
		a.cfg.Logger.Error("race not stored", "room", res.Code, "round", res.Round, "err", err)
		return fmt.Errorf("store race %s: %w", res.Code, err)
	}
	return nil
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

// races is one session's way into the rooms (tui.Races).
type races struct {
	a    *App
	me   lobby.Entrant
	sink lobby.Sink
	sess *lobby.Session
	w    *games.Writer // writes the racer's games; nil for a player whose games are not stored (a guest)

	ctx context.Context // the session's

	mu   sync.Mutex
	held map[string]bool // codes of the rooms this session is in: true as a racer, false as a spectator
	last string          // the code of the room this session last took a seat in as a racer (Ended)
}

var _ tui.Races = (*races)(nil)

// newRaces binds the rooms to a session of p for as long as ctx lasts:
// when it ends, the session leaves the rooms it is in.
func (a *App) newRaces(ctx context.Context, p tui.Player, sess *lobby.Session, w *games.Writer) *races {
	me := lobby.Entrant{ID: p.ID, Name: p.Name, Guest: p.Guest}
	if p.Guest || me.ID == "" {
		me.ID = "guest-" + strconv.FormatUint(sess.ID(), 10)
		me.Guest = true
		if p.Guest && !strings.HasPrefix(p.Name, keys.GuestPrefix) {
			// A guest without a name of its own (guestName): the
			// session's ID tells it apart.
			me.Name = me.ID
		}
		// Session numbers are this server's: in a cluster's rooms the
		// server's name keeps two guests' seats apart.
		me.ID += "@" + a.instance
	}
	rs := &races{a: a, me: me, sink: sess.Queue(), sess: sess, w: w, ctx: ctx, held: map[string]bool{}}
	context.AfterFunc(ctx, rs.leaveAll)
	return rs
}

func (rs *races) hold(code string, on bool) { rs.holdAs(code, on, true) }

// holdAs notes the session in a room (on), as a racer or a spectator, or
// out of it.
func (rs *races) holdAs(code string, on, racer bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if on {
		rs.held[code] = racer
	} else {
		delete(rs.held, code)
	}
}

// spectating reports whether the session watches the room.
func (rs *races) spectating(code string) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	racer, ok := rs.held[code]
	return ok && !racer
}

// takenOver forgets a room whose seat another session of the player took:
// leaving it when this session ends would take the seat from that one.
func (rs *races) takenOver(code string) { rs.hold(code, false) }

func (rs *races) leaveAll() {
	rs.mu.Lock()
	held := rs.held
	rs.held = map[string]bool{}
	rs.mu.Unlock()
	for c, racer := range held {
		if r, ok := rs.a.rooms.Room(c); ok {
			if racer {
				_ = r.Leave(rs.me.ID, rs.sink)
			} else {
				_ = r.Unwatch(rs.me.ID)
			}
		}
	}
}

// seated notes the session in a room, and out of the room it raced in
// before (the registry took it out: one room at a time), and tells the
// lobby.
func (rs *races) seated(snap lobby.Snapshot) tui.RaceSeat {
	rs.mu.Lock()
	for c, racer := range rs.held {
		if racer && c != snap.Code {
			delete(rs.held, c)
		}
	}
	rs.last = snap.Code
	rs.mu.Unlock()
	rs.hold(snap.Code, true)
	if rs.sess != nil {
		// A racer watches nothing else, in any session (tui: the
		// spectate screen, or a race room's, ends saying why).
		rs.a.lobby.StopWatching(rs.sess, "you joined room "+snap.Code)
	}
	rs.doing(snap, 0)
	seat := tui.RaceSeat{You: rs.me.ID, Snapshot: snap}
	if snap.Phase == lobby.PhaseRacing {
		g := rs.a.book.game(raceGameKey(snap.Code, snap.Round, rs.me.ID), rs.w != nil)
		if g != nil {
			g.mu.Lock()
			if rs.w != nil {
				// The stored game is the truth: the seat starts from it,
				// whatever this server kept of the race (the racer may
				// have played on elsewhere since), and its saves are
				// this session's from now on.
				ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
				rs.takeStored(ctx, g, snap)
				cancel()
			}
			rec := g.rec
			rec.Moves = append([]string(nil), rec.Moves...)
			rec.Redo = append([]string(nil), rec.Redo...)
			seat.Seq = max(g.seq, 0)
			g.mu.Unlock()
			if rec.Rules != "" {
				seat.Resume = &rec
				if g, err := engine.Replay(rec); err == nil {
					rs.doing(snap, g.Removed())
				}
			}
		}
	}
	return seat
}

// takeStored makes the racer's stored game of the race (store.Games.
// RaceGame: the one game of this racer of this race, made on whichever
// server) this session's, and the race game g as it is stored, with g's
// lock held. A racer with no stored game of the race keeps g as it is
// (nothing stored yet, or a game the store did not keep); a store that
// cannot be read leaves g untouched too, and the first save then says
// whether it is behind.
func (rs *races) takeStored(ctx context.Context, g *raceGame, snap lobby.Snapshot) {
	sg, err := rs.a.cfg.Store.RaceGame(ctx, rs.me.ID, snap.RaceKey())
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			rs.a.cfg.Logger.Warn("race game not read", "player", rs.me.ID, "room", snap.Code, "err", err)
		}
		return
	}
	if sg.RulesID != snap.RulesID || sg.DealNumber != snap.Deal || sg.DealText != "" {
		return // not this round's deal: never the case for a key of the race
	}
	if sg.Status == store.StatusPlaying {
		claimed, err := rs.w.Claim(ctx, rs.me.ID, sg.ID)
		switch {
		case err == nil:
			sg = claimed
		case !errors.Is(err, store.ErrFinished):
			rs.a.cfg.Logger.Warn("race game not taken over", "player", rs.me.ID, "game", sg.ID, "err", err)
		}
	}
	g.adopt(sg)
}

// adopt makes g the stored game sg, with g's lock held.
func (g *raceGame) adopt(sg store.Game) {
	g.rec = games.RecordOf(sg)
	g.times = slices.Clone(sg.MoveTimes)
	g.gameID = sg.ID
	g.unstored, g.note = false, ""
}

// storedRaceGame reads a racer's stored game of the race (the one game of
// theirs of the race's key).
func (a *App) storedRaceGame(ctx context.Context, snap lobby.Snapshot, m lobby.Racer) (store.Game, bool) {
	if a.cfg.Store == nil || m.Guest {
		return store.Game{}, false
	}
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	sg, err := a.cfg.Store.RaceGame(ctx, m.ID, snap.RaceKey())
	if err != nil || sg.RulesID != snap.RulesID || sg.DealNumber != snap.Deal || sg.DealText != "" {
		return store.Game{}, false
	}
	return sg, true
}

func (rs *races) doing(snap lobby.Snapshot, removed int) {
	if rs.sess == nil {
		return
	}
	rs.a.lobby.SetDoing(rs.sess, lobby.Doing{What: lobby.Racing, Rules: snap.RulesID, Deal: snap.Deal, Room: snap.Code, Phase: snap.Phase.Presence(), Removed: removed})
}

// pickDeal is a deal for a new room: the given one, with what the solver
// says of it, or one the solver proves winnable. Its par is worked out
// from now on, so that the results know it.
func (rs *races) pickDeal(ctx context.Context, r engine.Rules, deal uint64, has bool) (uint64, engine.Verdict) {
	n, v := rs.findDeal(ctx, r, deal, has)
	warmParOf(rs.a.cfg.Solver, r, n)
	return n, v
}

// findDeal is pickDeal without warming the deal's par.
func (rs *races) findDeal(ctx context.Context, r engine.Rules, deal uint64, has bool) (uint64, engine.Verdict) {
	solver := rs.a.cfg.Solver
	if has {
		if solver == nil {
			return deal, engine.Unknown
		}
		g, err := engine.NewNumbered(r, deal)
		if err != nil {
			return deal, engine.Unknown
		}
		ctx, cancel := context.WithTimeout(ctx, raceVerdictTimeout)
		defer cancel()
		v, _, err := solver.Solve(ctx, g)
		if err != nil {
			return deal, engine.Unknown
		}
		return deal, v
	}
	start := dealNumberFrom(rs.a.cfg.Now())
	if solver == nil {
		return start, engine.Unknown
	}
	ctx, cancel := context.WithTimeout(ctx, raceDealTimeout)
	defer cancel()
	n, err := solver.NextWinnable(ctx, r, start)
	if err != nil {
		return start, engine.Unknown
	}
	return n, engine.Winnable
}

// dealNumberFrom turns a time into a deal number between 1 and 999999.
func dealNumberFrom(t time.Time) uint64 {
	z := uint64(t.UnixNano()) + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return z%999999 + 1
}

// Create opens a room the player hosts. A room on a deal the player chose
// is unrated (lobby.RoomConfig.Rated): they may have solved it offline or
// played it as a daily.
func (rs *races) Create(ctx context.Context, opt tui.RoomOptions) (tui.RaceSeat, error) {
	if err := rs.leaveHosted(); err != nil {
		// Checked before the solver's search, which takes a while.
		return tui.RaceSeat{}, err
	}
	deal, verdict := rs.pickDeal(ctx, opt.Rules, opt.Deal, opt.HasDeal)
	_, snap, err := rs.a.rooms.Create(rs.me, rs.sink, lobby.RoomConfig{Rules: opt.Rules, Deal: deal, Verdict: verdict,
		Public: opt.Public, TimeLimit: opt.TimeLimit, MaxPlayers: opt.Max, Rated: !opt.HasDeal})
	if err != nil {
		return tui.RaceSeat{}, fmt.Errorf("new room: %w", err)
	}
	return rs.seated(snap), nil
}

// leaveHosted lets a player who hosts a room they are no longer in (they
// left it, or their connection dropped) open another: that room closes.
// A room they are in, or whose race runs (their seat is kept), stays, and
// the player is told which it is.
func (rs *races) leaveHosted() error {
	r, ok := rs.a.rooms.Hosted(rs.me.ID)
	if !ok {
		return nil
	}
	snap := r.Snapshot()
	if m, in := snap.Member(rs.me.ID); in && m.Present || snap.Phase == lobby.PhaseRacing || snap.Phase == lobby.PhaseCountdown {
		return fmt.Errorf("%w (%s): race %s goes back to it", lobby.ErrAlreadyHosting, snap.Code, snap.Code)
	}
	r.Close("its host opened another room")
	return nil
}

// Join joins a room by the code the player typed. The code of a room
// that is gone, when the player's last race was there, brings that
// race's stored results (race_results.go).
func (rs *races) Join(ctx context.Context, code string) (tui.RaceSeat, error) {
	if seat, ok := rs.gone(ctx, code); ok {
		return seat, nil // not a wrong code: the room of the player's last race
	}
	r, err := rs.a.rooms.Find(rs.me.ID, code)
	if err != nil {
		return tui.RaceSeat{}, err
	}
	snap, err := rs.a.rooms.Join(r, rs.me, rs.sink)
	if err != nil {
		if seat, gone := rs.joinGone(ctx, code, err); gone == nil {
			return seat, nil
		}
		return tui.RaceSeat{}, fmt.Errorf("room %s: %w", r.Code(), err)
	}
	return rs.seated(snap), nil
}

// Quick is quick match of the default rules: a public room waiting for
// players, else the room the player hosts unless its race is over (that
// room closes), else a new room.
func (rs *races) Quick(ctx context.Context) (tui.RaceSeat, error) {
	rules := engine.Classic()
	if _, snap, err := rs.a.rooms.QuickJoin(rs.me, rs.sink, rules.ID()); err == nil {
		return rs.seated(snap), nil
	}
	if r, ok := rs.a.rooms.Hosted(rs.me.ID); ok && r.Snapshot().Phase != lobby.PhaseResults {
		// Back to the room the player hosts (a waiting room, or a race
		// where their seat is kept) rather than a refusal.
		snap, err := rs.a.rooms.Join(r, rs.me, rs.sink)
		if err != nil {
			return tui.RaceSeat{}, fmt.Errorf("room %s: %w", r.Code(), err)
		}
		return rs.seated(snap), nil
	} else if ok {
		// A race that is over is no match: its room closes, as when its
		// host opens another, and quick match goes on.
		if err := rs.leaveHosted(); err != nil {
			return tui.RaceSeat{}, err
		}
	}
	deal, verdict := rs.pickDeal(ctx, rules, 0, false)
	_, snap, _, err := rs.a.rooms.QuickMatch(rs.me, rs.sink, lobby.RoomConfig{Rules: rules, Deal: deal, Verdict: verdict, Public: true, Rated: true})
	if err != nil {
		return tui.RaceSeat{}, fmt.Errorf("quick match: %w", err)
	}
	return rs.seated(snap), nil
}

// Seated returns a room the player has a seat in, unless its race is
// over (offersBack).
func (rs *races) Seated() (string, bool) {
	r, ok := rs.a.rooms.Seated(rs.me.ID)
	if !ok || !offersBack(r.Snapshot(), rs.me.ID, time.Now()) {
		return "", false
	}
	return r.Code(), true
}

func (rs *races) room(code string) (*lobby.Room, error) {
	r, ok := rs.a.rooms.Room(code)
	if !ok {
		return nil, fmt.Errorf("%w %s", lobby.ErrNoRoom, code)
	}
	return r, nil
}

// Ready sets the ready mark.
func (rs *races) Ready(code string, ready bool) error {
	r, err := rs.room(code)
	if err != nil {
		return err
	}
	return r.SetReady(rs.me.ID, ready)
}

// Start starts the countdown.
func (rs *races) Start(code string) error {
	r, err := rs.room(code)
	if err != nil {
		return err
	}
	return r.Start(rs.me.ID)
}

// Rematch takes the room back to the waiting room with a new deal of its
// rules, one the solver proves winnable: its race is rated, whatever the
// room's last deal was.
func (rs *races) Rematch(ctx context.Context, code string) error {
	r, err := rs.room(code)
	if err != nil {
		return err
	}
	snap := r.Snapshot()
	switch {
	case snap.Host != rs.me.ID:
		return lobby.ErrNotHost
	case snap.Phase != lobby.PhaseResults:
		return lobby.ErrNotOver
	}
	rules, err := engine.ParseRules(snap.RulesID)
	if err != nil {
		return fmt.Errorf("rematch: %w", err)
	}
	deal, verdict := rs.pickDeal(ctx, rules, 0, false)
	return r.Rematch(rs.me.ID, deal, verdict, true)
}

// Say says a chat line.
func (rs *races) Say(code, text string) error {
	r, err := rs.room(code)
	if err != nil {
		return err
	}
	return r.Say(rs.me.ID, text)
}

// Mute mutes a member's chat.
func (rs *races) Mute(code, playerID string, muted bool) error {
	r, err := rs.room(code)
	if err != nil {
		return err
	}
	return r.Mute(rs.me.ID, playerID, muted)
}

// Watch watches a room.
func (rs *races) Watch(ctx context.Context, code string) (tui.RaceSeat, error) {
	r, err := rs.a.rooms.Find(rs.me.ID, code)
	if err != nil {
		return tui.RaceSeat{}, err
	}
	snap, err := r.Watch(rs.me.ID, rs.sink)
	if err != nil {
		return tui.RaceSeat{}, fmt.Errorf("room %s: %w", r.Code(), err)
	}
	rs.holdAs(snap.Code, true, false)
	if rs.sess != nil {
		rs.a.lobby.SetDoing(rs.sess, lobby.Doing{What: lobby.Watching, Watched: "room " + snap.Code})
	}
	return tui.RaceSeat{Snapshot: snap}, nil
}

// Board returns a racer's game of the race that runs, or the start of
// the deal before their first move, for a spectator: as the room knows it
// from the racer's reports, on this server or another (their progress
// events carry their moves). A line the room could not make whole from
// the events is read from the racer's stored game, once: the room follows
// the events from it again.
func (rs *races) Board(ctx context.Context, code, playerID string) (engine.Record, error) {
	r, err := rs.room(code)
	if err != nil {
		return engine.Record{}, err
	}
	if rec, ok := r.Board(playerID); ok {
		return rec, nil
	}
	snap := r.Snapshot()
	m, ok := snap.Member(playerID)
	if !ok {
		return engine.Record{}, lobby.ErrNotMember
	}
	rec := engine.Record{Rules: snap.RulesID, Deal: snap.Deal}
	if sg, ok := rs.a.storedRaceGame(ctx, snap, m); ok {
		rec.Moves = sg.Moves
		r.Learn(playerID, sg.Moves)
	}
	return rec, nil
}

// Leave leaves the room.
func (rs *races) Leave(code string) error {
	spectator := rs.spectating(code)
	rs.hold(code, false)
	if rs.sess != nil {
		rs.a.lobby.SetDoing(rs.sess, lobby.Doing{What: lobby.AtMenu})
	}
	r, err := rs.room(code)
	if err != nil {
		return err
	}
	if spectator {
		return r.Unwatch(rs.me.ID)
	}
	return r.Leave(rs.me.ID, rs.sink)
}

// errRaceDeal: a report of a game that is not the race's.
var errRaceDeal = errors.New("that game is not this race's deal")

// Play takes the racer's game after a change: it reports the progress
// to the room first (the others see it at once), then stores the game.
func (rs *races) Play(ctx context.Context, code string, round int, seq int, rec engine.Record) (string, error) {
	r, err := rs.room(code)
	if err != nil {
		return "", err
	}
	snap := r.Round()
	if snap.Round != round || snap.Phase != lobby.PhaseRacing {
		return "", lobby.ErrNotRacing
	}
	if rec.Rules != snap.RulesID || rec.Deal != snap.Deal || rec.DealText != "" {
		return "", errRaceDeal
	}
	g, err := engine.Replay(rec)
	if err != nil {
		return "", fmt.Errorf("race game: %w", err)
	}
	rg := rs.a.book.game(raceGameKey(code, round, rs.me.ID), true)
	rg.mu.Lock()
	defer rg.mu.Unlock()
	if seq <= rg.seq {
		return "", nil // a later report came first
	}
	prevSeq, prev, prevTimes := rg.seq, rg.rec, slices.Clone(rg.times)
	rg.seq = seq
	rg.rec = rec
	rg.times = rg.times[:min(len(rg.times), len(rec.Moves))]
	for at := max(0, rs.a.cfg.Now().Sub(snap.StartsAt)); len(rg.times) < len(rec.Moves); {
		rg.times = append(rg.times, at)
	}
	if err := r.Report(rs.me.ID, rs.sink, lobby.ProgressOf(g, rg.gameID), rec.Moves); err != nil && !errors.Is(err, lobby.ErrRaceOver) {
		// The room did not take the move, so it did not happen: the
		// racer's game stays as it was (and with another session of
		// the player holding the seat, the game is that session's).
		rg.seq, rg.rec, rg.times = prevSeq, prev, prevTimes
		if errors.Is(err, lobby.ErrSeatTaken) {
			return "", fmt.Errorf("race %s: %w", code, tui.ErrTakenOver)
		}
		return "", err
	}
	// Still being played as far as the racer says: the writer records a
	// loss from the position.
	play := games.Play{Record: rec, Started: snap.StartsAt, Played: rs.a.cfg.Now().Sub(snap.StartsAt), MoveTimes: slices.Clone(rg.times)}
	note, stored := "", false
	if rs.w != nil && rg.gameID == 0 && !rg.unstored {
		// A game not made before the race (starting: a racer whose
		// session did not see the countdown begin). The room has the
		// move already, and the panels do not wait for the store. The
		// game is made with the move in it (one write, where a create
		// and a save were two waits for the store in a row), unless
		// the move ends it (a save finishes it then). The room learns
		// the game's ID (its placing names it) with a second report.
		var first store.State
		if st, ok := play.Playing(g); ok {
			first, stored = st, true
		}
		var existed bool
		if note, existed = rs.createGame(ctx, rg, rec, snap.RaceKey(), first); existed {
			// The racer's game of the race was made meanwhile by another
			// session of theirs: the move was not made on it.
			return "", rs.stale(rg, r, code)
		}
		if rg.gameID > 0 {
			_ = r.Report(rs.me.ID, rs.sink, lobby.ProgressOf(g, rg.gameID), rec.Moves)
		} else {
			stored = false
		}
	}
	if note == "" && rg.note != "" {
		note, rg.note = rg.note, "" // from prepare, told once
	}
	if rg.gameID > 0 && !stored {
		if _, err := rs.w.Save(ctx, rs.me.ID, rg.gameID, play, g); err != nil {
			if errors.Is(err, games.ErrTakenOver) {
				return note, fmt.Errorf("race %s: %w", code, tui.ErrTakenOver)
			}
			if errors.Is(err, games.ErrStale) {
				// The stored game is newer than the board the move was
				// made on: the board, the room and a comeback go on from
				// the stored game.
				if sg, rerr := rs.a.cfg.Store.Game(ctx, rg.gameID); rerr == nil && sg.PlayerID == rs.me.ID {
					rs.w.Read(sg)
					rg.adopt(sg)
					return note, rs.stale(rg, r, code)
				}
			}
			// As at the table, a change the store does not have did not
			// happen: the racer's board goes back to the stored game
			// (tui/race.go), and so do the room's panel and a comeback.
			rg.rec, rg.times = prev, prevTimes
			back, rerr := engine.Replay(prev)
			if prev.Rules == "" || rerr != nil {
				back, _ = engine.NewNumbered(g.Rules(), snap.Deal)
			}
			if back != nil {
				_ = r.Report(rs.me.ID, rs.sink, lobby.ProgressOf(back, rg.gameID), prev.Moves)
			}
			return note, fmt.Errorf("race game %d: %w", rg.gameID, err)
		}
	}
	// What the racer does (racing, with the cards removed) reaches the
	// lobby from the session itself (the tui tells it when the room's
	// panel shows the move): not told here too, where it would make the
	// answer to the move wait for the lobby's lock, which every racer's
	// move and every Lobby screen's listing take.
	return note, nil
}

// stale takes the racer back to their stored race game, rg as adopted
// from the store (with its lock held): the room's panel shows it, and the
// error returned, a *tui.StaleError, has the racer's board show it.
func (rs *races) stale(rg *raceGame, r *lobby.Room, code string) error {
	if back, err := engine.Replay(rg.rec); err == nil {
		_ = r.Report(rs.me.ID, rs.sink, lobby.ProgressOf(back, rg.gameID), rg.rec.Moves)
	}
	rec := rg.rec
	rec.Moves, rec.Redo = slices.Clone(rec.Moves), slices.Clone(rec.Redo)
	return fmt.Errorf("race %s: %w", code, &tui.StaleError{Record: rec})
}

// starting takes a change of a room: when the countdown of a round the
// session races in begins (or the race, for a room that had none), the
// racer's stored game is made at once, in the background, before the
// first move: the first moves of a race's racers then are saves like any
// other (grouped), not the creation of every racer's game at the same
// moment of the race (on PostgreSQL a transaction each: 500 racers'
// first moves waited p50 55 / p99 858 ms, and the other server's panels
// with them). A racer who never moves keeps an empty race game, which no
// menu lists (games.Unfinished) and the race ends with.
func (rs *races) starting(snap lobby.Snapshot) {
	if rs.w == nil || snap.Phase != lobby.PhaseCountdown && snap.Phase != lobby.PhaseRacing {
		return
	}
	if m, ok := snap.Member(rs.me.ID); !ok || m.GameID != 0 {
		return // not a racer of the round, or their game is made already
	}
	key := raceGameKey(snap.Code, snap.Round, rs.me.ID)
	if rs.a.book.game(key, false) != nil {
		return // made, being made, or played already
	}
	go rs.prepare(rs.a.book.game(key, true), engine.Record{Rules: snap.RulesID, Deal: snap.Deal}, snap.RaceKey())
}

// prepare makes the racer's stored game of the round, empty, unless the
// racer's first move (or another session's prepare) made it first.
func (rs *races) prepare(rg *raceGame, rec engine.Record, race string) {
	ctx, cancel := context.WithTimeout(rs.ctx, prepareTimeout)
	defer cancel()
	rg.mu.Lock()
	defer rg.mu.Unlock()
	if rg.gameID != 0 || rg.unstored || rg.seq >= 0 {
		return
	}
	rg.note, _ = rs.createGame(ctx, rg, rec, race, store.State{})
}

// prepareTimeout bounds the making of a racer's game before the race.
const prepareTimeout = 10 * time.Second

// createGame starts the stored game of a racer, the one game of the
// racer of the race race (its key). A race game is stored as practice: it
// records no solo result (played, won, best time, streak), since a race
// is not a solo game; the race's own record is its placing (raceEnded).
// It starts with first, the play so far (none when zero). When the racer
// has a game of the race already (made by another session of theirs, on
// any server), that one is rg from now on, as stored (existed). A game
// the store refuses is not kept (the race runs, its result is stored),
// and note tells the player so.
func (rs *races) createGame(ctx context.Context, rg *raceGame, rec engine.Record, race string, first store.State) (note string, existed bool) {
	created, err := rs.w.Create(ctx, store.NewGame{PlayerID: rs.me.ID, RulesID: rec.Rules,
		DealNumber: rec.Deal, Practice: true, Kind: store.KindRace, Race: race, State: first})
	if errors.Is(err, store.ErrExists) {
		sg, rerr := rs.a.cfg.Store.RaceGame(ctx, rs.me.ID, race)
		if rerr == nil && sg.Status == store.StatusPlaying {
			sg, rerr = rs.w.Claim(ctx, rs.me.ID, sg.ID)
		}
		if rerr == nil {
			rg.adopt(sg)
			return "", true
		}
		err = rerr
	}
	switch {
	case errors.Is(err, store.ErrInProgress):
		rg.unstored = true
		return "your unfinished game of these rules keeps its place: this race game is not stored (the race result is)", false
	case err != nil:
		rg.unstored = true
		rs.a.cfg.Logger.Error("race game not stored", "player", rs.me.ID, "err", err)
		return "this race game is not stored: " + err.Error(), false
	}
	rg.gameID = created.ID
	return "", false
}
