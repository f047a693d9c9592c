package lobby

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"time"

	"pyramid/engine"
)

// Limits and timings of race rooms.
const (
	// MinRacers is the number of racers a race needs to start.
	MinRacers = 2
	// MaxRacers is the most racers a room can hold.
	MaxRacers = 8
	// DefaultTimeLimit is a race's time limit unless the room sets one.
	DefaultTimeLimit = 10 * time.Minute
	// MinTimeLimit and MaxTimeLimit bound a room's time limit.
	MinTimeLimit = time.Minute
	MaxTimeLimit = time.Hour
	// CountdownTime is the countdown between the host's start and the
	// race.
	CountdownTime = 3 * time.Second
	// EmptyRoomClose is how long a room with nobody in it stays open.
	EmptyRoomClose = time.Minute
	// RoomDropAfter is how long a session may refuse events before it is
	// dropped from the room (it may come back); the lobby's DropAfter
	// rule, for rooms.
	RoomDropAfter = 5 * time.Second
	// MaxSpectators is the most spectators one room takes.
	MaxSpectators = 50
	// HostIdle is how long a host may do nothing in the waiting room
	// (no ready mark, start, chat line or mute) while another racer
	// present is ready, before the host's part passes to that racer: a
	// host who walked away does not hold the others until the room's
	// idle timeout. The time counts from the host's last action, or from
	// the moment they became host, or from the other racer's ready mark,
	// whichever is latest.
	HostIdle = 90 * time.Second
)

// Errors of rooms. Their messages are meant for players as they are.
var (
	// ErrRoomClosed: the room closed (empty for a minute, or by an admin).
	ErrRoomClosed = errors.New("the room is closed")
	// ErrRoomFull: every seat is taken.
	ErrRoomFull = errors.New("the room is full")
	// ErrRaceUnderway: newcomers cannot join a race that started.
	ErrRaceUnderway = errors.New("the race has started; you can watch it")
	// ErrNotHost: starting, a rematch and muting are the host's.
	ErrNotHost = errors.New("only the room's host can do that")
	// ErrNotMember: the player has no session in the room.
	ErrNotMember = errors.New("you are not in this room")
	// ErrSeatTaken: a report from a session of the racer whose seat
	// another of their sessions took over (SeatTakenOver): only the
	// session holding the seat plays it.
	ErrSeatTaken = errors.New("your seat is another session's now")
	// ErrTooFewRacers: a start with fewer than MinRacers in the room.
	ErrTooFewRacers = errors.New("a race needs at least two racers in the room")
	// ErrNotAllReady: a start while a racer in the room is not ready;
	// Start wraps it with their names.
	ErrNotAllReady = errors.New("not everybody is ready")
	// ErrNotWaiting: a start or a ready mark after the race started.
	ErrNotWaiting = errors.New("the room is not waiting for a start")
	// ErrNotRacing: a progress report outside the race.
	ErrNotRacing = errors.New("the race is not running")
	// ErrNotOver: a rematch before the race ended.
	ErrNotOver = errors.New("the race is not over")
	// ErrRaceOver: a report from a racer who cleared or got stuck.
	ErrRaceOver = errors.New("your race is over")
	// ErrBadProgress: a report that cannot be right (the session's bug).
	ErrBadProgress = errors.New("progress report does not add up")
	// ErrRemoved: a join of a player the host removed from the room (by
	// their account, or their address).
	ErrRemoved = errors.New("the host removed you from this room")
	// ErrWatchOwnRace: a racer of the race that runs asked to watch it
	// (another session of theirs): a spectator sees the racers' boards,
	// waste included, and every racer plays the same deal.
	ErrWatchOwnRace = errors.New("you race in this room: you may watch it once your game is over")
	// ErrTooManySpectators: MaxSpectators watch already.
	ErrTooManySpectators = errors.New("the room has as many spectators as it can take")
	// ErrBadRoomConfig: rules, time limit or seats out of range.
	ErrBadRoomConfig = errors.New("not a valid room")
)

// Phase is where a room stands.
type Phase int

// The phases of a room, in the order a race goes through them. A rematch
// goes from PhaseResults back to PhaseWaiting.
const (
	PhaseWaiting Phase = iota
	PhaseCountdown
	PhaseRacing
	PhaseResults
	PhaseClosed
)

var phaseNames = [...]string{"waiting", "countdown", "racing", "results", "closed"}

// String returns the phase's name.
func (p Phase) String() string {
	if p < 0 || int(p) >= len(phaseNames) {
		return "unknown"
	}
	return phaseNames[p]
}

// MarshalText writes the phase's name, for JSON.
func (p Phase) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// Entrant is who joins a room: a session's player as the room knows them.
// (It is not the lobby's Player because a guest needs an ID here too: a
// seat to come back to and a chat limit of its own.)
type Entrant struct {
	// ID is the store's player ID; for a guest, a token unique to the
	// session (say "guest-" and the lobby's session number), so two
	// guests never share a seat and a guest is never taken over.
	ID string
	// Name is the display name, already safe to print.
	Name  string
	Guest bool
	// Addr is the address the player connects from, as the server's
	// per-address limits name it (server.Session.AddrKey); empty when
	// unknown. A mute and a removal hold for the guests of it too, so
	// that a guest does not lift them by coming back as a new guest. It
	// is never shown.
	Addr string
}

// RoomConfig is what a room races.
type RoomConfig struct {
	Rules engine.Rules
	Deal  uint64
	// Verdict is what the solver said of the deal, for the results.
	Verdict engine.Verdict
	// Public rooms are listed and found by quick match; private ones
	// (the default) only by code.
	Public bool
	// TimeLimit is DefaultTimeLimit when zero.
	TimeLimit time.Duration
	// MaxPlayers is MaxRacers when zero.
	MaxPlayers int
	// Rated is set for a room whose deal nobody chose (the solver picked
	// one it proves winnable): its races change ratings and count in race
	// records. A deal the host chose may be one they solved offline or
	// played as a daily, so such a room's races are stored and shown but
	// unrated. The zero value is unrated: a room nobody said is rated
	// never counts.
	Rated bool
	// Arena is the arena whose race the room runs (ID 0: none); only an
	// arena's pairing (OpArenaPair) makes such a room.
	Arena ArenaInfo
}

// normalize fills in the defaults and checks the rest.
func (c RoomConfig) normalize() (RoomConfig, error) {
	if c.TimeLimit == 0 {
		c.TimeLimit = DefaultTimeLimit
	}
	if c.MaxPlayers == 0 {
		c.MaxPlayers = MaxRacers
	}
	switch {
	case c.Rules.Validate() != nil:
		return c, fmt.Errorf("%w: %w", ErrBadRoomConfig, c.Rules.Validate())
	case c.TimeLimit < MinTimeLimit || c.TimeLimit > MaxTimeLimit:
		return c, fmt.Errorf("%w: the time limit must be %v to %v", ErrBadRoomConfig, MinTimeLimit, MaxTimeLimit)
	case c.MaxPlayers < MinRacers || c.MaxPlayers > MaxRacers:
		return c, fmt.Errorf("%w: a room holds %d to %d players", ErrBadRoomConfig, MinRacers, MaxRacers)
	}
	return c, nil
}

// Snapshot is a room as it stands, everything a screen needs to draw it.
// Its slices are the snapshot's own: the room never changes them (and
// neither may the receiver, as several sessions share one).
type Snapshot struct {
	Code string
	// RoomID names the room apart from every other room, ever (a code is
	// reused once its room closes): RaceKey is made of it.
	RoomID     string
	Phase      Phase
	Round      int // 1 for the first race, one more for each rematch
	Seq        uint64
	RulesID    string
	RulesTitle string
	Deal       uint64
	Verdict    engine.Verdict
	Public     bool
	Rated      bool // RoomConfig.Rated of the room's current deal
	TimeLimit  time.Duration
	MaxPlayers int
	Cards      int    // pyramid size: 28 or 45
	Host       string // the host's player ID
	// StartsAt is when the race starts (set from the countdown on),
	// Deadline when the time limit runs out (set from the start on),
	// Ended when it ended.
	StartsAt, Deadline, Ended time.Time
	Members                   []Racer   // in seat order
	Spectators                int       // how many watch
	Results                   []Placing // the last race's placings, from PhaseResults on
	Chat                      []ChatLine
	ClosedReason              string // why the room closed, in PhaseClosed
	// Arena is the arena whose race this is (ID 0 for a room of its own).
	Arena ArenaInfo
}

// RaceKey names the room's current round apart from every other race,
// the same on every server: a racer's stored game of the race is kept
// under it (one per racer per race).
func (s Snapshot) RaceKey() string { return s.RoomID + "/" + strconv.Itoa(s.Round) }

// Member returns the member with this player ID.
func (s Snapshot) Member(id string) (Racer, bool) {
	for _, m := range s.Members {
		if m.ID == id {
			return m, true
		}
	}
	return Racer{}, false
}

// Events a room sends. Every one names its room; those about a race carry
// the round, so that a session can ignore anything left over from an
// earlier race of the room.
type (
	// RoomChanged is coalesced under the key RoomKey(code) whenever
	// members, ready marks, the host, the phase or the spectators change.
	RoomChanged struct{ Snapshot Snapshot }
	// RacerProgress is coalesced under RacerKey(code, id) on each report
	// of a racer.
	RacerProgress struct {
		Code  string
		Round int
		Racer Racer
	}
	// CountdownStarted is posted when the host starts a race.
	CountdownStarted struct {
		Code     string
		Round    int
		StartsAt time.Time
		Deal     uint64
		RulesID  string
	}
	// RaceStarted is posted when the countdown ends.
	RaceStarted struct {
		Code     string
		Round    int
		Deadline time.Time
	}
	// RaceEnded is posted when the race ends.
	RaceEnded struct {
		Code    string
		Round   int
		Results []Placing
	}
	// RaceVoided is posted when a race that runs is to be stored void
	// (RaceResult.Void), for nobody, because a server with racers in it
	// could not reach the database for Outage (OpOutage): they could
	// not move meanwhile.
	RaceVoided struct {
		Code   string
		Round  int
		Outage time.Duration
	}
	// HostPassed is posted when an idle host's part passes to a ready
	// racer (HostIdle).
	HostPassed struct {
		Code     string
		From, To string // the names
		ToID     string
	}
	// SeatTakenOver is posted to a session whose seat or view another
	// session of the same player took.
	SeatTakenOver struct{ Code string }
	// RoomClosed is posted to everybody in a room that closes.
	RoomClosed struct{ Code, Reason string }
	// Removed is posted to the session of a member the host removed
	// from the room (Room.Remove).
	Removed struct{ Code string }
	// Missed is posted to a session that refused events for a while and
	// then took one again: it lost some, and should redraw from
	// Room.Snapshot.
	Missed struct{ Code string }
)

// RoomKey is the coalescing key of a room's RoomChanged events.
func RoomKey(code string) string { return "room/" + code }

// RacerKey is the coalescing key of one racer's RacerProgress events.
func RacerKey(code, playerID string) string { return "room/" + code + "/racer/" + playerID }

// Key is a key that tells this race from every other, the same on every
// server, for storing it once: the room's ID and the round.
func (r RaceResult) Key() string { return r.RoomID + "/" + strconv.Itoa(r.Round) }

// RaceResult is a finished race, for storing.
type RaceResult struct {
	Code    string
	RoomID  string
	Round   int
	RulesID string
	Deal    uint64
	Verdict engine.Verdict
	// Rated is the room's RoomConfig.Rated for this race: an unrated
	// race's placings are stored, and change no rating, win or podium.
	Rated bool
	// Void is set for a race in which a racer was lost with their server
	// (Racer.Lost, or still away at the end), or during which a server
	// with racers in it could not reach the database (OpOutage): the
	// server failed them, so the race is stored unrated whatever Rated
	// says.
	Void     bool
	Started  time.Time
	Ended    time.Time
	Placings []Placing
	// Arena is the ID of the arena whose race it was, 0 for none.
	Arena int64
}

// sinkRefusals is how long a session's sink has refused events.
type sinkRefusals struct {
	refused time.Time // when the sink first refused an event in a row; zero when it takes them
	drop    Timer     // the check the first refusal armed
}

// forget clears the refusals and stops their check.
func (f *sinkRefusals) forget() {
	f.refused = time.Time{}
	if f.drop != nil {
		f.drop.Stop()
		f.drop = nil
	}
}

type removal struct {
	removed int
	at      time.Duration
}

// placed finishes a racer's line with what the room's phase and results say
// of it: a racer gone during or after the race has left (or is away with
// their server), and a ranked racer has a place.
func (v Racer) placed(phase Phase, results []Placing) Racer {
	if (phase == PhaseRacing || phase == PhaseResults) && !v.Present && v.State == RacerPlaying {
		v.State = RacerLeft
		if v.Away && phase == PhaseRacing {
			v.State = RacerAway
		}
	}
	for _, p := range results {
		if p.ID == v.ID {
			v.Place = p.Place
		}
	}
	return v
}

// sameSink reports whether a and b are the same session's sink, without
// panicking on sinks of a type == cannot compare.
func sameSink(a, b Sink) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if !va.IsValid() || !vb.IsValid() || va.Type() != vb.Type() || !va.Comparable() {
		return false
	}
	return a == b
}

// RoundOf is what a racer's move is checked against: the room's phase,
// round and deal, and when the round's race started. A room gives it
// without building a whole Snapshot (every racer's move asks).
type RoundOf struct {
	RoomID   string
	Phase    Phase
	Round    int
	RulesID  string
	Deal     uint64
	StartsAt time.Time
}

// RaceKey is Snapshot.RaceKey of the round.
func (r RoundOf) RaceKey() string { return r.RoomID + "/" + strconv.Itoa(r.Round) }

// Limits of the room registry.
const (
	// DefaultMaxRooms is the most rooms open at once on one server unless
	// configured otherwise (--max-rooms).
	DefaultMaxRooms = 200
	// AddressRoomsShare is the share of MaxRooms the rooms opened from one
	// address may hold at once (one in AddressRoomsShare): one address
	// never takes every room, whatever its budget of rooms made.
	AddressRoomsShare = 4
)

// Errors of the registry, meant for players as they are (ErrNoRoom and
// ErrAlreadyHosting come wrapped with the code).
var (
	ErrNoRoom       = errors.New("there is no room")
	ErrTooManyRooms = errors.New("the server has as many rooms as it can take; try again later")
	// ErrAddressRooms: the address a room would be opened from opened
	// its share of the rooms (Rooms.Create).
	ErrAddressRooms   = errors.New("your address opened its share of the rooms; try again later")
	ErrAlreadyHosting = errors.New("you already host a room")
)

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
