package arcade

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"pyramid/budget"
	"pyramid/engine"
	"pyramid/games"
	"pyramid/keys"
	"pyramid/lobby"
	"pyramid/race"
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

// races is one session's way into the rooms (tui.Races).
type races struct {
	a  *App
	me lobby.Entrant
	// addr is the session's address as the budgets count it
	// (server.Session.AddrKey); "" when unknown.
	addr string
	sink lobby.Sink
	sess *lobby.Session
	w    *games.Writer // writes the racer's games; nil for a player whose games are not stored (a guest)
	// racer is the session's racer in the race service.
	racer *race.Racer

	ctx context.Context // the session's

	mu   sync.Mutex
	held map[string]bool // codes of the rooms this session is in: true as a racer, false as a spectator
	// seats gives back the spectator seats the session holds in the
	// budgets, by room code.
	seats map[string]func()
	last  string // the code of the room this session last took a seat in as a racer (Ended)
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
	rs.racer = a.race.Racer(ctx, me, rs.sink, w)
	context.AfterFunc(ctx, rs.leaveAll)
	return rs
}

// who is whose budgets the session spends.
func (rs *races) who() budget.Who { return who(rs.addr, rs.me) }

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
	if release := rs.seats[code]; release != nil && (!on || racer) {
		release()
		delete(rs.seats, code)
	}
}

// takeSeat holds a spectator's seat in room code in the budgets, for the
// session: at most the budget's seats in one room per address and per
// account, so that the guests of one address cannot take every seat.
func (rs *races) takeSeat(code string) error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.seats[code] != nil {
		return nil // this session's seat already
	}
	release, err := rs.a.budgets.Hold(budget.SpectatorSeat, rs.who(), "room "+code)
	if err != nil {
		return err
	}
	if rs.seats == nil {
		rs.seats = map[string]func(){}
	}
	rs.seats[code] = release
	return nil
}

// spectating reports whether the session watches the room.
func (rs *races) spectating(code string) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	racer, ok := rs.held[code]
	return ok && !racer
}

func (rs *races) leaveAll() {
	rs.mu.Lock()
	held := rs.held
	rs.held = map[string]bool{}
	for _, release := range rs.seats {
		release()
	}
	rs.seats = nil
	rs.mu.Unlock()
	for c, racer := range held {
		// A seat or a view another session of the player took over is
		// that session's: the rooms refuse to take it away with this one.
		if r, ok := rs.a.rooms.Room(c); ok {
			if racer {
				_ = r.Leave(rs.me.ID, rs.sink)
			} else {
				_ = r.Unwatch(rs.me.ID, rs.sink)
			}
		}
		rs.racer.Unseat(c)
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
	// In a race that runs the racer goes on with their game: the stored
	// one (race.Racer.Seat).
	back := rs.racer.Seat(snap)
	rs.doing(snap, back.Removed)
	return tui.RaceSeat{You: rs.me.ID, Snapshot: snap, Resume: back.Game, Seq: back.Seq}
}

func (rs *races) doing(snap lobby.Snapshot, removed int) {
	if rs.sess == nil {
		return
	}
	rs.a.lobby.SetDoing(rs.sess, lobby.RacingIn(snap, removed))
}

// pickDeal is a deal for a new room: the given one, with what the solver
// says of it, or one the solver proves winnable. Its par is worked out
// from now on, so that the results know it.
func (rs *races) pickDeal(ctx context.Context, r engine.Rules, deal uint64, has bool) (uint64, engine.Verdict) {
	n, v := rs.a.findDeal(ctx, r, deal, has)
	warmParOf(rs.a.cfg.Solver, r, n)
	return n, v
}

// findDeal is pickDeal without warming the deal's par: a deal for a
// room or a challenge, the given one with what the solver says of it,
// or one drawn from crypto/rand that the solver proves winnable.
func (a *App) findDeal(ctx context.Context, r engine.Rules, deal uint64, has bool) (uint64, engine.Verdict) {
	solver := a.cfg.Solver
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
	start := engine.DrawDeal(nil)
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

// Create opens a room the player hosts. A room on a deal the player chose
// is unrated (lobby.RoomConfig.Rated): they may have solved it offline or
// played it as a daily.
func (rs *races) Create(ctx context.Context, opt tui.RoomOptions) (tui.RaceSeat, error) {
	if err := rs.leaveHosted(); err != nil {
		// Checked before the solver's search, which takes a while.
		return tui.RaceSeat{}, err
	}
	if err := rs.a.budgets.Take(budget.RoomMade, rs.who()); err != nil {
		return tui.RaceSeat{}, err
	}
	deal, verdict := rs.pickDeal(ctx, opt.Rules, opt.Deal, opt.HasDeal)
	_, snap, err := rs.a.rooms.Create(rs.entrant(), rs.sink, lobby.RoomConfig{Rules: opt.Rules, Deal: deal, Verdict: verdict,
		Public: opt.Public, TimeLimit: opt.TimeLimit, MaxPlayers: opt.Max, Rated: !opt.HasDeal})
	if err != nil {
		return tui.RaceSeat{}, fmt.Errorf("new room: %w", err)
	}
	return rs.seated(snap), nil
}

// leaveHosted lets a player who hosts a room they are no longer in (they
// left it, or their connection dropped) open another: that room closes.
// A room whose race runs (their seat is kept), or that another session of
// theirs is in, stays, and the player is told which it is. This session's
// own seat there is left first: a session opening a room is not in
// another's screen, and its leave may not have reached the room yet.
func (rs *races) leaveHosted() error {
	r, ok := rs.a.rooms.Hosted(rs.me.ID)
	if !ok {
		return nil
	}
	snap := r.Snapshot()
	refused := fmt.Errorf("%w (%s): race %s goes back to it", lobby.ErrAlreadyHosting, snap.Code, snap.Code)
	if snap.Phase == lobby.PhaseRacing || snap.Phase == lobby.PhaseCountdown {
		return refused
	}
	if m, in := snap.Member(rs.me.ID); in && m.Present {
		if err := r.Leave(rs.me.ID, rs.sink); err != nil {
			return refused // another session's seat
		}
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
	r, err := rs.a.findRoom(rs.who(), code)
	if err != nil {
		return tui.RaceSeat{}, err
	}
	snap, err := rs.a.rooms.Join(r, rs.entrant(), rs.sink)
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
	if _, snap, err := rs.a.rooms.QuickJoin(rs.entrant(), rs.sink, rules.ID()); err == nil {
		return rs.seated(snap), nil
	}
	if r, ok := rs.a.rooms.Hosted(rs.me.ID); ok && r.Snapshot().Phase != lobby.PhaseResults {
		// Back to the room the player hosts (a waiting room, or a race
		// where their seat is kept) rather than a refusal.
		snap, err := rs.a.rooms.Join(r, rs.entrant(), rs.sink)
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
	// No room to join: quick match makes one.
	if err := rs.a.budgets.Take(budget.RoomMade, rs.who()); err != nil {
		return tui.RaceSeat{}, err
	}
	deal, verdict := rs.pickDeal(ctx, rules, 0, false)
	_, snap, _, err := rs.a.rooms.QuickMatch(rs.entrant(), rs.sink, lobby.RoomConfig{Rules: rules, Deal: deal, Verdict: verdict, Public: true, Rated: true})
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

// Say says a chat line, a spectator's when the session watches the room:
// the room's limit per player holds in every server's fold; the budget of
// the address holds here, so that guests of one address do not flood a
// room between them.
func (rs *races) Say(code, text string) error {
	r, err := rs.room(code)
	if err != nil {
		return err
	}
	if err := rs.a.budgets.Take(budget.ChatLine, rs.who()); err != nil {
		return err
	}
	if rs.spectating(code) {
		return r.SayWatching(rs.entrant(), text)
	}
	return r.Say(rs.me.ID, text)
}

// Mute mutes a member's or a spectator's chat.
func (rs *races) Mute(code, playerID string, muted bool) error {
	r, err := rs.room(code)
	if err != nil {
		return err
	}
	return r.Mute(rs.me.ID, playerID, muted)
}

// Remove takes a member out of the room (the host).
func (rs *races) Remove(code, playerID string) error {
	r, err := rs.room(code)
	if err != nil {
		return err
	}
	return r.Remove(rs.me.ID, playerID)
}

// Watch watches a room.
func (rs *races) Watch(ctx context.Context, code string) (tui.RaceSeat, error) {
	r, err := rs.a.findRoom(rs.who(), code)
	if err != nil {
		return tui.RaceSeat{}, err
	}
	if err := rs.takeSeat(r.Code()); err != nil {
		return tui.RaceSeat{}, fmt.Errorf("room %s: %w", r.Code(), err)
	}
	snap, err := r.Watch(rs.me.ID, rs.sink)
	if err != nil {
		rs.holdAs(r.Code(), false, false) // gives the seat back
		return tui.RaceSeat{}, fmt.Errorf("room %s: %w", r.Code(), err)
	}
	rs.holdAs(snap.Code, true, false)
	if rs.sess != nil {
		rs.a.lobby.SetDoing(rs.sess, lobby.Doing{What: lobby.Watching, Watched: "room " + snap.Code})
	}
	return tui.RaceSeat{Snapshot: snap}, nil
}

// Leave leaves the room.
func (rs *races) Leave(code string) error {
	spectator := rs.spectating(code)
	rs.hold(code, false)
	rs.racer.Unseat(code)
	if rs.sess != nil {
		rs.a.lobby.SetDoing(rs.sess, lobby.Doing{What: lobby.AtMenu})
	}
	r, err := rs.room(code)
	if err != nil {
		return err
	}
	if spectator {
		return r.Unwatch(rs.me.ID, rs.sink)
	}
	return r.Leave(rs.me.ID, rs.sink)
}

// Board returns a racer's game of the race that runs, for a spectator
// (race.Racer.Board).
func (rs *races) Board(ctx context.Context, code, playerID string) (engine.Record, error) {
	r, err := rs.room(code)
	if err != nil {
		return engine.Record{}, err
	}
	return rs.racer.Board(ctx, r, playerID)
}

// Play takes the racer's game after a change (race.Racer.Play), its
// errors in the tui's words.
func (rs *races) Play(ctx context.Context, code string, round int, seq int, rec engine.Record) (string, error) {
	r, err := rs.room(code)
	if err != nil {
		return "", err
	}
	note, err := rs.racer.Play(ctx, r, round, seq, rec)
	logHidden(rs.a.cfg.Logger, "race move not saved", err, "room", code, "player", rs.me.ID)
	var stale *race.StaleError
	switch {
	case errors.As(err, &stale):
		return note, fmt.Errorf("race %s: %w", code, &tui.StaleError{Record: stale.Record})
	case errors.Is(err, race.ErrTakenOver):
		return note, fmt.Errorf("race %s: %w", code, tui.ErrTakenOver)
	}
	return note, err
}
