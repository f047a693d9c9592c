package lobby

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"
)

// Limits of the room registry.
const (
	// DefaultMaxRooms is the most rooms open at once on one server unless
	// configured otherwise (--max-rooms).
	DefaultMaxRooms = 200
	// MaxWrongCodes wrong room codes per WrongCodeWindow are allowed one
	// player; after that the player's look-ups are refused for
	// WrongCodePause.
	MaxWrongCodes   = 10
	WrongCodeWindow = time.Minute
	WrongCodePause  = time.Minute
)

// Errors of the registry, meant for players as they are (ErrNoRoom and
// ErrAlreadyHosting come wrapped with the code).
var (
	ErrNoRoom         = errors.New("there is no room")
	ErrTooManyRooms   = errors.New("the server has as many rooms as it can take; try again later")
	ErrAlreadyHosting = errors.New("you already host a room")
	ErrThrottled      = errors.New("too many wrong room codes; wait a minute")
)

// RoomsConfig configures a registry.
type RoomsConfig struct {
	// Clock is SystemClock() when nil.
	Clock Clock
	// MaxRooms is DefaultMaxRooms when 0.
	MaxRooms int
	// Rand is the source of room codes; crypto/rand when nil.
	Rand io.Reader
	// OnRaceEnd, when set, is called once for every race that ran to its
	// end, with no lock held, from the goroutine that ended it (a racer's
	// report, a leave, the deadline's timer). It may store the result, but
	// should not take long.
	OnRaceEnd func(RaceResult)
}

// RoomInfo is a line of the list of public rooms (`rooms --json`).
type RoomInfo struct {
	Code       string        `json:"code"`
	RulesID    string        `json:"rules"`
	RulesTitle string        `json:"rules_title"`
	Phase      Phase         `json:"phase"`
	Players    int           `json:"players"`
	MaxPlayers int           `json:"max_players"`
	Spectators int           `json:"spectators"`
	Rated      bool          `json:"rated"` // RoomConfig.Rated
	Host       string        `json:"host"`  // display name
	TimeLimit  time.Duration `json:"-"`
	TimeLimitS int           `json:"time_limit_s"`
	Created    time.Time     `json:"created"`
}

// Rooms is the registry of a server's race rooms. It is safe for
// concurrent use.
type Rooms struct {
	cfg RoomsConfig

	hosts hostBook

	// mu is taken for reading by the lookups every race move makes
	// (Room), so that a reader the scheduler preempts while it holds it
	// does not hold up the others.
	mu    sync.RWMutex
	rooms []*Room // open rooms, oldest first
	wrong map[string]*wrongCodes
}

// hostBook says which room each player hosts, for the rooms to check
// when the host's part passes (pickHost) with their own lock held: its
// lock is taken last, under a room's or the registry's, and nothing is
// called with it held. A nil *hostBook lets anybody host.
type hostBook struct {
	mu    sync.Mutex
	rooms map[string]*Room // by player ID
}

// claim makes the player the host of r unless they host another room.
func (b *hostBook) claim(playerID string, r *Room) bool {
	if b == nil {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if other, ok := b.rooms[playerID]; ok && other != r {
		return false
	}
	if b.rooms == nil {
		b.rooms = make(map[string]*Room)
	}
	b.rooms[playerID] = r
	return true
}

// release notes that the player no longer hosts r.
func (b *hostBook) release(playerID string, r *Room) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.rooms[playerID] == r {
		delete(b.rooms, playerID)
	}
}

// wrongCodes is one player's recent wrong room codes.
type wrongCodes struct {
	times   []time.Time // within the last WrongCodeWindow
	blocked time.Time   // look-ups are refused until then
}

// NewRooms makes an empty registry.
func NewRooms(cfg RoomsConfig) *Rooms {
	if cfg.Clock == nil {
		cfg.Clock = SystemClock()
	}
	if cfg.MaxRooms <= 0 {
		cfg.MaxRooms = DefaultMaxRooms
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	return &Rooms{cfg: cfg, wrong: make(map[string]*wrongCodes)}
}

// Len returns the number of open rooms.
func (rs *Rooms) Len() int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return len(rs.rooms)
}

func (rs *Rooms) byCode(code string) *Room {
	for _, r := range rs.rooms {
		if r.code == code {
			return r
		}
	}
	return nil
}

// Create opens a room hosted by host, who is its first member. A player
// hosts one room at a time (ErrAlreadyHosting), and the server holds
// MaxRooms at most (ErrTooManyRooms). The host leaves any other room they
// are in, as with Join.
func (rs *Rooms) Create(host Entrant, sink Sink, cfg RoomConfig) (*Room, Snapshot, error) {
	rs.mu.Lock()
	r, snap, err := rs.create(host, sink, cfg)
	rs.mu.Unlock()
	if err == nil {
		rs.leaveOthers(r, host.ID, sink)
	}
	return r, snap, err
}

// Join puts the player in the room (Room.Join) and takes them out of
// every other room they are in: a player is in one room at a time, so a
// session that goes into a new room leaves the old one (a racer's seat in
// a race that runs stays, as with Leave, to come back to).
func (rs *Rooms) Join(r *Room, p Entrant, sink Sink) (Snapshot, error) {
	snap, err := r.Join(p, sink)
	if err != nil {
		return Snapshot{}, err
	}
	rs.leaveOthers(r, p.ID, sink)
	return snap, nil
}

// leaveOthers takes the player out of every room but keep.
func (rs *Rooms) leaveOthers(keep *Room, playerID string, sink Sink) {
	rs.mu.Lock()
	rooms := slices.Clone(rs.rooms)
	rs.mu.Unlock()
	for _, r := range rooms {
		if r != keep {
			r.moveOut(playerID, sink, keep.code)
		}
	}
}

func (rs *Rooms) create(host Entrant, sink Sink, cfg RoomConfig) (*Room, Snapshot, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, Snapshot{}, err
	}
	for _, r := range rs.rooms {
		if r.Host() == host.ID {
			return nil, Snapshot{}, fmt.Errorf("%w (%s)", ErrAlreadyHosting, r.code)
		}
	}
	if len(rs.rooms) >= rs.cfg.MaxRooms {
		return nil, Snapshot{}, ErrTooManyRooms
	}
	code, err := newCode(rs.cfg.Rand, func(c string) bool { return rs.byCode(c) != nil })
	if err != nil {
		return nil, Snapshot{}, fmt.Errorf("lobby: create room: %w", err)
	}
	r := newRoom(code, rs.cfg.Clock, cfg, hooks{onEnd: rs.cfg.OnRaceEnd, onClose: rs.remove, hosts: &rs.hosts})
	r.host = host.ID
	if !rs.hosts.claim(host.ID, r) {
		// The host's part of a room passed to them just now.
		return nil, Snapshot{}, ErrAlreadyHosting
	}
	snap, err := r.Join(host, sink)
	if err != nil {
		rs.hosts.release(host.ID, r)
		return nil, Snapshot{}, fmt.Errorf("lobby: create room: %w", err)
	}
	rs.rooms = append(rs.rooms, r)
	return r, snap, nil
}

// remove takes a closed room out of the registry.
func (rs *Rooms) remove(r *Room) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.rooms = slices.DeleteFunc(rs.rooms, func(x *Room) bool { return x == r })
}

// Room returns the open room with this code (in canonical form), for the
// server's own use: players go through Find.
func (rs *Rooms) Room(code string) (*Room, bool) {
	rs.mu.RLock()
	defer rs.mu.RUnlock()
	r := rs.byCode(code)
	return r, r != nil
}

// Hosted returns the open room the player hosts.
func (rs *Rooms) Hosted(playerID string) (*Room, bool) {
	rs.mu.RLock()
	defer rs.mu.RUnlock()
	for _, r := range rs.rooms {
		if r.Host() == playerID {
			return r, true
		}
	}
	return nil, false
}

// Seated returns the open room where the player has a seat (a racer who
// dropped out of a race keeps theirs until it ends), for a menu's Continue.
func (rs *Rooms) Seated(playerID string) (*Room, bool) {
	rs.mu.RLock()
	defer rs.mu.RUnlock()
	for _, r := range rs.rooms {
		if r.Seated(playerID) {
			return r, true
		}
	}
	return nil, false
}

// Find looks up a room by the code a player typed (ParseCode). A player
// who typed more than MaxWrongCodes wrong codes within WrongCodeWindow is
// refused for WrongCodePause (ErrThrottled), whatever the code.
func (rs *Rooms) Find(playerID, text string) (*Room, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	now := rs.cfg.Clock.Now()
	w := rs.wrong[playerID]
	if w != nil && now.Before(w.blocked) {
		return nil, ErrThrottled
	}
	code, err := ParseCode(text)
	var r *Room
	if err == nil {
		if r = rs.byCode(code); r == nil {
			err = fmt.Errorf("%w %s", ErrNoRoom, code)
		}
	}
	if err != nil {
		rs.wrongCode(playerID, now)
		return nil, err
	}
	return r, nil
}

// wrongCode counts a wrong code of the player.
func (rs *Rooms) wrongCode(playerID string, now time.Time) { noteWrongCode(rs.wrong, playerID, now) }

// noteWrongCode counts a wrong code of the player at now in wrong, and
// blocks the player for WrongCodePause at the MaxWrongCodes-th in a
// WrongCodeWindow; past 1024 players it forgets those neither blocked nor
// wrong lately.
func noteWrongCode(wrong map[string]*wrongCodes, playerID string, now time.Time) {
	if len(wrong) > 1024 {
		for id, w := range wrong {
			if now.After(w.blocked) && (len(w.times) == 0 || now.Sub(w.times[len(w.times)-1]) >= WrongCodeWindow) {
				delete(wrong, id)
			}
		}
	}
	w := wrong[playerID]
	if w == nil {
		w = &wrongCodes{}
		wrong[playerID] = w
	}
	w.times = slices.DeleteFunc(w.times, func(t time.Time) bool { return now.Sub(t) >= WrongCodeWindow })
	w.times = append(w.times, now)
	if len(w.times) >= MaxWrongCodes {
		w.blocked = now.Add(WrongCodePause)
		w.times = w.times[:0]
	}
}

// QuickMatch puts the player in the oldest public room waiting for players
// of cfg's rules with a seat free, or in a new public room of cfg (which
// the player then hosts). created says which. cfg.Deal is only used for a
// new room; since finding a winnable deal can take the solver a while, a
// caller may try QuickJoin first and solve a deal only when it finds no
// room.
func (rs *Rooms) QuickMatch(p Entrant, sink Sink, cfg RoomConfig) (r *Room, snap Snapshot, created bool, err error) {
	rs.mu.Lock()
	r, snap, err = rs.quickJoin(p, sink, cfg.Rules.ID())
	if err != nil {
		cfg.Public = true
		r, snap, err = rs.create(p, sink, cfg)
		created = err == nil
	}
	rs.mu.Unlock()
	if err != nil {
		return nil, Snapshot{}, false, err
	}
	rs.leaveOthers(r, p.ID, sink)
	return r, snap, created, nil
}

// QuickJoin is the first half of QuickMatch: it puts the player in the
// oldest public room waiting for players of these rules with a seat free,
// or reports ErrNoRoom.
func (rs *Rooms) QuickJoin(p Entrant, sink Sink, rulesID string) (*Room, Snapshot, error) {
	rs.mu.Lock()
	r, snap, err := rs.quickJoin(p, sink, rulesID)
	rs.mu.Unlock()
	if err != nil {
		return nil, Snapshot{}, err
	}
	rs.leaveOthers(r, p.ID, sink)
	return r, snap, nil
}

func (rs *Rooms) quickJoin(p Entrant, sink Sink, rulesID string) (*Room, Snapshot, error) {
	for _, r := range rs.rooms {
		if !r.waitingFor(rulesID) {
			continue
		}
		if snap, err := r.Join(p, sink); err == nil {
			return r, snap, nil
		}
	}
	return nil, Snapshot{}, fmt.Errorf("%w waiting for players of these rules", ErrNoRoom)
}

// Public lists the open public rooms, oldest first.
func (rs *Rooms) Public() []RoomInfo { return rs.public(false) }

// Waiting lists the open public rooms that wait for players, oldest
// first: what the Lobby screen offers to join.
func (rs *Rooms) Waiting() []RoomInfo { return rs.public(true) }

// public lists the open public rooms, only those waiting for players
// when waiting is set.
func (rs *Rooms) public(waiting bool) []RoomInfo {
	rs.mu.RLock()
	rooms := slices.Clone(rs.rooms)
	rs.mu.RUnlock()
	var list []RoomInfo
	for _, r := range rooms {
		if info, ok := r.listing(waiting); ok {
			list = append(list, info)
		}
	}
	return list
}

// listing is the room's line in the list of public rooms, and false for
// a private or closed room, or one that does not wait for players when
// waiting is set. It holds the room's lock for less than a Snapshot (no
// copy of the members, results or chat): every Lobby viewer asks for the
// list at each presence flush, and the racers' moves wait for the same
// lock.
func (r *Room) listing(waiting bool) (RoomInfo, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.cfg.Public || r.phase == PhaseClosed || waiting && r.phase != PhaseWaiting {
		return RoomInfo{}, false
	}
	s := Snapshot{Code: r.code, Phase: r.phase, Public: true, Rated: r.cfg.Rated, TimeLimit: r.cfg.TimeLimit,
		MaxPlayers: r.cfg.MaxPlayers, Spectators: len(r.spectators)}
	s.RulesID, s.RulesTitle = r.cfg.Rules.ID(), r.cfg.Rules.Title()
	info := s.info(r.created)
	for _, m := range r.members {
		if m.present() {
			info.Players++
		}
		if m.ID == r.host {
			info.Host = m.Name
		}
	}
	return info, true
}

// info is the room's line in a list of public rooms, for a local room and
// a shared one alike.
func (s Snapshot) info(created time.Time) RoomInfo {
	info := RoomInfo{Code: s.Code, RulesID: s.RulesID, RulesTitle: s.RulesTitle, Phase: s.Phase,
		MaxPlayers: s.MaxPlayers, Spectators: s.Spectators, Rated: s.Rated, TimeLimit: s.TimeLimit,
		TimeLimitS: int(s.TimeLimit / time.Second), Created: created}
	for _, m := range s.Members {
		if m.Present {
			info.Players++
		}
		if m.Host {
			info.Host = m.Name
		}
	}
	return info
}

// Close closes the room with this code (an admin's doing): ErrNoRoom when
// there is none.
func (rs *Rooms) Close(code, reason string) error {
	r, ok := rs.Room(code)
	if !ok {
		return fmt.Errorf("%w %s", ErrNoRoom, code)
	}
	r.Close(reason)
	return nil
}

// CloseAll closes every room, for a server shutting down.
func (rs *Rooms) CloseAll(reason string) {
	rs.mu.Lock()
	rooms := slices.Clone(rs.rooms)
	rs.mu.Unlock()
	for _, r := range rooms {
		r.Close(reason)
	}
}
