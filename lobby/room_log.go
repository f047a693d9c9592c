package lobby

import (
	"slices"
	"time"

	"pyramid/engine"
)

// RoomLog is the ordered log that the rooms' changes go through, and the
// way the progress of racers goes between servers: the cluster layer
// implements it over a bus (package cluster), the same way for one
// server alone (a bus in memory) and for the servers of a cluster
// (PostgreSQL's). Every server reads the log's ops in the same order and
// applies each (Rooms.Apply); another server's progress comes in by
// Rooms.ApplyProgress. Its methods are safe for concurrent use and bound
// their own waits.
type RoomLog interface {
	// Do logs op and waits until this server's rooms applied it: the
	// result is Apply's verdict on it, or why the log could not tell.
	Do(op RoomOp) error
	// Post logs op without waiting for it, and logs a failure to. An op
	// with a once key is logged once: another op with the same key
	// (another server's, maybe) is not.
	Post(once string, op RoomOp)
	// Offer says that the progress of this server's racers in the room
	// changed: the log has the other servers hear of it, coalesced with
	// the room's offers before it, the progress made (Rooms.Progress)
	// when it goes out; news goes out without waiting.
	Offer(code string, news bool)
	// Follow starts reading another server's progress of the room (its
	// code and ID) into ApplyProgress; Unfollow stops reading every
	// server's progress of the room.
	Follow(code, roomID, inst string)
	Unfollow(code string)
	// Now reads the cluster's clock (the database's, in a cluster).
	Now() (time.Time, error)
}

// OpKind is the kind of a RoomOp.
type OpKind string

// The kinds of ops of the rooms' log.
const (
	// OpHello is a server's hello: it changes nothing, and a server
	// that awaits its own knows it read every op before it.
	OpHello OpKind = "hello"
	// OpGone: a server's sessions are gone (Gone; At when).
	OpGone OpKind = "gone"
	// OpOutage: a server (Inst) could not reach the database from At
	// until it logged the op: the races it has racers in that ran
	// meanwhile are void (RaceResult.Void).
	OpOutage  OpKind = "outage"
	OpOpen    OpKind = "open"
	OpJoin    OpKind = "join"
	OpLeave   OpKind = "leave"
	OpReady   OpKind = "ready"
	OpStart   OpKind = "start"
	OpEnd     OpKind = "end"
	OpRematch OpKind = "rematch"
	OpChat    OpKind = "chat"
	OpMute    OpKind = "mute"
	// OpRemove: the host (Who) removes a member (Target) from the room,
	// who may not come back to it, by account or by address.
	OpRemove  OpKind = "remove"
	OpWatch   OpKind = "watch"
	OpUnwatch OpKind = "unwatch"
	OpClose   OpKind = "close"
	// OpLapse: the grace of an away racer's seat ran out (Target, Round;
	// At is when they went away).
	OpLapse OpKind = "lapse"
	// OpIdleHost: the host (Target) was idle in the waiting room for
	// HostIdle at At, as the lease holder saw it: the fold checks it
	// again and passes the host's part to a ready racer.
	OpIdleHost OpKind = "idlehost"
	// OpRated: the lease holder stored a race (Round) and tells how it
	// counted for each racer with a key (Ratings).
	OpRated OpKind = "rated"
)

// RoomOp is one change of the rooms, as the rooms' log carries it. Which
// fields an op uses depends on its kind; the rest are zero. An op read
// from the log is anything another server sent: Apply checks and cleans
// it.
type RoomOp struct {
	Kind   OpKind
	Code   string // the room's code
	RoomID string // an open's: the new room's ID
	// Inst is the server that logged the op, Sid the session of that
	// server it is about: the log sets Inst.
	Inst, Sid string
	Who       *Entrant       // an open's host, a join's player, a mute's host (ID), a spectator's chat line's author
	Cfg       *OpConfig      // an open's room, a rematch's deal
	Ready     bool           // a ready mark
	Muted     bool           // a mute, or its end
	Round     int            // an end's, a lapse's
	At        time.Time      // on the cluster's clock: a start's moment, a chat line's, an end's, a gone's, a lapse's
	Text      string         // a chat line, a close's reason
	Target    string         // the player the op is about
	Results   []Placing      // an end's placings
	Ratings   []RatingChange // a rated's
	Gone      string         // a gone's server
	// Arena is the arena an arena op is about (a join's whole, the
	// others' ID only); Lines a join's or a score's lines; Players a
	// pairing's racers; Pause a pause's (false: resume).
	Arena   *ArenaInfo
	Lines   []ArenaStanding
	Players []string
	Pause   bool
	// Racer is an arena done's: the racer's progress as their game
	// ended, so that every server has it before the pairing that frees
	// them (their server's progress comes on a topic of its own, maybe
	// later).
	Racer  *RacerReport
	Seq    uint64    // the op's place in the log, set by the log
	Logged time.Time // when the log took the op, on the cluster's clock; set by the log
}

// OpConfig is a room's settings as an op carries them: the rules by ID.
type OpConfig struct {
	RulesID    string
	Deal       uint64
	Verdict    engine.Verdict
	Public     bool
	TimeLimit  time.Duration
	MaxPlayers int
	// Rated is RoomConfig.Rated. An op of a server that did not know of
	// it has none, and reads as unrated: a chosen deal's race must never
	// count, and a rematch (always a random deal) makes such a room
	// rated again.
	Rated bool
}

// ServerProgress is the progress of one server's racers in one room, as
// that server tells the others (RoomLog.Offer, Rooms.ApplyProgress).
type ServerProgress struct {
	Inst   string
	Round  int
	Racers []RacerReport
}

// RacerReport is one racer's progress in a ServerProgress.
type RacerReport struct {
	ID          string
	Line        *LineSummary // nil: the server does not know the racer's line
	Progress    Progress
	LastRemoval time.Duration
	Finish      time.Duration
}

// LineSummary is a racer's line of moves as progress carries it: how
// many, the last LineTail of them, and a sum of them all. A server that
// has the line up to a few moves back (from the progress before) makes it
// whole from that; the sum says whether it did.
type LineSummary struct {
	N    int
	Tail []string
	Sum  uint32
}

// LineTail is the most moves a LineSummary carries: far more than a
// racer makes between two progress events of their server but for a
// pasted line.
const LineTail = 12

// SummarizeLine is a racer's line of moves as progress carries it, its
// last LineTail moves.
func SummarizeLine(moves []string) *LineSummary { return summarizeSince(nil, moves) }

// summarizeSince is SummarizeLine for a server that heard the line prev
// (a line's moves are never changed, so what they share is prev's head):
// the tail is the moves since, at most LineTail of them.
func summarizeSince(prev, moves []string) *LineSummary {
	same := 0
	for same < len(prev) && same < len(moves) && prev[same] == moves[same] {
		same++
	}
	from := max(same, len(moves)-LineTail)
	return &LineSummary{N: len(moves), Tail: moves[from:], Sum: lineSum(moves)}
}

// lineSum is the FNV-1a sum of a line of moves.
func lineSum(moves []string) uint32 {
	h := uint32(2166136261)
	for _, m := range moves {
		for i := 0; i < len(m); i++ {
			h = (h ^ uint32(m[i])) * 16777619
		}
		h = (h ^ ' ') * 16777619
	}
	return h
}

// follow makes the line a summary tells of from the line known so far
// (line, as the progress before made it): known is false when that is not
// possible, or the sum says it is not the racer's (a racer who undid more
// than LineTail moves between two events).
func (w *LineSummary) follow(line []string) (next []string, known bool) {
	keep := w.N - len(w.Tail)
	if keep < 0 || keep > len(line) {
		return nil, false
	}
	next = append(slices.Clip(line[:keep]), w.Tail...)
	if lineSum(next) != w.Sum {
		return nil, false
	}
	return next, true
}
