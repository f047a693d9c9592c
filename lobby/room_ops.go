package lobby

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"pyramid/engine"
	"pyramid/keys"
)

// Room is a handle on one race room, by its code, for the sessions of
// this server. Its methods are safe for concurrent use, never block on a
// session, and report refusals with the errors of rooms, meant for
// players as they are.
type Room struct {
	rs   *Rooms
	code string
}

// Code returns the room's code.
func (h *Room) Code() string { return h.code }

// Snapshot returns the room as this server sees it; a closed room's is in
// PhaseClosed. It waits for the room's lock only.
func (h *Room) Snapshot() Snapshot {
	r := h.rs.lookup(h.code)
	if r == nil {
		return Snapshot{Code: h.code, Phase: PhaseClosed}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.phase == PhaseClosed {
		return Snapshot{Code: h.code, Phase: PhaseClosed}
	}
	return h.rs.snapshot(r)
}

// Round returns the room's current round as this server sees it (what a
// racer's move is checked against); a closed room's is in PhaseClosed.
func (h *Room) Round() RoundOf {
	r := h.rs.lookup(h.code)
	if r == nil {
		return RoundOf{Phase: PhaseClosed}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.phase == PhaseClosed {
		return RoundOf{Phase: PhaseClosed}
	}
	return RoundOf{RoomID: r.id, Phase: r.phase, Round: r.round, RulesID: r.cfg.Rules.ID(), Deal: r.cfg.Deal, StartsAt: r.startsAt}
}

// SeatSink returns the sink of this server's session that holds the
// player's seat in the room (as a member or a spectator), or nil when
// none does (nobody, or another server's session): what a test or a
// tool that acts as that session passes to Report or Leave.
func (h *Room) SeatSink(playerID string) Sink {
	rs := h.rs
	r := rs.lookup(h.code)
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if m := r.member(playerID); m != nil {
		return rs.sinkOf(m.inst, m.sid)
	}
	for _, w := range r.watchers {
		if w.id == playerID {
			return rs.sinkOf(w.inst, w.sid)
		}
	}
	return nil
}

// handle returns the handle of an open room.
func (rs *Rooms) handle(code string) *Room { return &Room{rs: rs, code: code} }

// Len returns the number of open rooms.
func (rs *Rooms) Len() int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return len(rs.rooms)
}

// opConfig is a room's settings as an op carries them.
func opConfig(c RoomConfig) *OpConfig {
	return &OpConfig{RulesID: c.Rules.ID(), Deal: c.Deal, Verdict: c.Verdict, Public: c.Public,
		TimeLimit: c.TimeLimit, MaxPlayers: c.MaxPlayers, Rated: c.Rated}
}

// opEntrant is a player as an op carries them, the name cleaned.
func opEntrant(p Entrant) *Entrant {
	return &Entrant{ID: p.ID, Name: keys.Clean(p.Name, keys.MaxNameWidth), Guest: p.Guest, Addr: p.Addr}
}

// Create opens a room hosted by host, who is its first member. A player
// hosts one room at a time (ErrAlreadyHosting), this server opens no
// room beside MaxRooms open (ErrTooManyRooms), and none from an address
// (host.Addr) beside a quarter of MaxRooms opened from it
// (ErrAddressRooms, AddressRoomsShare). The host leaves any other
// room they are in, as with Join.
func (rs *Rooms) Create(host Entrant, sink Sink, cfg RoomConfig) (*Room, Snapshot, error) {
	if sink == nil {
		return nil, Snapshot{}, errors.New("lobby: Create without a sink")
	}
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, Snapshot{}, err
	}
	for range 5 {
		rs.mu.Lock()
		if len(rs.rooms) >= rs.cfg.MaxRooms {
			rs.mu.Unlock()
			return nil, Snapshot{}, ErrTooManyRooms
		}
		if host.Addr != "" && rs.openedFromLocked(host.Addr) >= rs.roomsPerAddress() {
			rs.mu.Unlock()
			return nil, Snapshot{}, ErrAddressRooms
		}
		code, cerr := newCode(rs.cfg.Rand, func(c string) bool { return rs.rooms[c] != nil })
		sid, at := rs.sidOf(sink), rs.nowLocked()
		rs.mu.Unlock()
		if cerr != nil {
			return nil, Snapshot{}, fmt.Errorf("lobby: create room: %w", cerr)
		}
		err = rs.log.Do(RoomOp{Kind: OpOpen, Code: code, RoomID: newRoomID(), Sid: sid, Who: opEntrant(host), Cfg: opConfig(cfg), At: at})
		rs.doneWith(sid)
		if errors.Is(err, errCodeTaken) {
			continue
		}
		if err != nil {
			return nil, Snapshot{}, err
		}
		h := rs.handle(code)
		return h, h.Snapshot(), nil
	}
	return nil, Snapshot{}, fmt.Errorf("lobby: create room: %w", err)
}

// openedFromLocked counts the open rooms opened from addr, with rs.mu
// held.
func (rs *Rooms) openedFromLocked(addr string) int {
	n := 0
	for _, r := range rs.rooms {
		if r.openedFrom == addr {
			n++
		}
	}
	return n
}

// tidy forgets the tokens of local sessions in no room.
func (rs *Rooms) tidy() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.forgetUnused()
}

// Join puts a player in the room, or back in their seat: a racer who left
// a race comes back to it with their progress until the race ends. A
// player already in the room with another session takes the seat over:
// the old session gets SeatTakenOver. Newcomers are refused while a race
// runs (ErrRaceUnderway) and when the room is full. A player is in one
// room at a time: they leave every other room they are in (a racer's seat
// in a race that runs stays, to come back to).
func (rs *Rooms) Join(h *Room, p Entrant, sink Sink) (Snapshot, error) {
	if sink == nil {
		return Snapshot{}, errors.New("lobby: Join without a sink")
	}
	rs.mu.Lock()
	if rs.seatedByPairing(h.code, p, sink) {
		rs.mu.Unlock()
		return h.Snapshot(), nil
	}
	sid, at := rs.sidOf(sink), rs.nowLocked()
	rs.mu.Unlock()
	err := rs.log.Do(RoomOp{Kind: OpJoin, Code: h.code, Sid: sid, Who: opEntrant(p), At: at})
	rs.doneWith(sid)
	if err != nil {
		return Snapshot{}, err
	}
	return h.Snapshot(), nil
}

// seatedByPairing reports whether the player already sits in the arena
// race of the room, as this very session, with rs.mu held: the pairing
// seated every racer of its race (OpArenaPair), and the session that
// opens the race's screen to take the seat has nothing to change, so
// logs nothing. An op would change nothing but cost every server its
// fold (each join walks every room), a thousand times at once when an
// arena's races end together.
func (rs *Rooms) seatedByPairing(code string, p Entrant, sink Sink) bool {
	r := rs.rooms[code]
	if r == nil || r.cfg.Arena.ID == 0 || r.phase != PhaseCountdown && r.phase != PhaseRacing {
		return false
	}
	mb := r.member(p.ID)
	return mb != nil && mb.present() && mb.inst == rs.cfg.Instance && mb.away.IsZero() && !mb.lost &&
		mb.Name == keys.Clean(p.Name, keys.MaxNameWidth) && mb.Addr == p.Addr && mb.Guest == p.Guest &&
		sameSink(rs.sinkOf(mb.inst, mb.sid), sink)
}

// QuickJoin puts the player in the oldest public room of these rules
// waiting for players with a seat free, or reports ErrNoRoom.
func (rs *Rooms) QuickJoin(p Entrant, sink Sink, rulesID string) (*Room, Snapshot, error) {
	rs.mu.Lock()
	var codes []string
	for _, r := range rs.sortedRooms() {
		if r.cfg.Public && r.phase == PhaseWaiting && r.cfg.Rules.ID() == rulesID && len(r.members) < r.cfg.MaxPlayers {
			codes = append(codes, r.code)
		}
	}
	rs.mu.Unlock()
	for _, code := range codes {
		h := rs.handle(code)
		if snap, err := rs.Join(h, p, sink); err == nil {
			return h, snap, nil
		}
	}
	return nil, Snapshot{}, fmt.Errorf("%w waiting for players of these rules", ErrNoRoom)
}

// QuickMatch is QuickJoin, or a new public room of cfg when none waits
// (created says which). cfg.Deal is only used for a new room; since
// finding a winnable deal can take the solver a while, a caller may try
// QuickJoin first and solve a deal only when it finds no room.
func (rs *Rooms) QuickMatch(p Entrant, sink Sink, cfg RoomConfig) (*Room, Snapshot, bool, error) {
	if h, snap, err := rs.QuickJoin(p, sink, cfg.Rules.ID()); err == nil {
		return h, snap, false, nil
	}
	cfg.Public = true
	h, snap, err := rs.Create(p, sink, cfg)
	if err != nil {
		return nil, Snapshot{}, false, err
	}
	return h, snap, true, nil
}

// Room returns the open room with this code (in canonical form), for the
// server's own use, without waiting for the rooms' lock: players go
// through Find.
func (rs *Rooms) Room(code string) (*Room, bool) {
	if rs.lookup(code) == nil {
		return nil, false
	}
	return rs.handle(code), true
}

// Hosted returns the open room the player hosts.
func (rs *Rooms) Hosted(playerID string) (*Room, bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if r := rs.oldest(func(r *room) bool { return r.host == playerID }); r != nil {
		return rs.handle(r.code), true
	}
	return nil, false
}

// Seated returns the open room where the player has a seat (a racer who
// dropped out of a race keeps theirs until it ends), for a menu's Back to
// race.
func (rs *Rooms) Seated(playerID string) (*Room, bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if r := rs.oldest(func(r *room) bool { return r.member(playerID) != nil }); r != nil {
		return rs.handle(r.code), true
	}
	return nil, false
}

// Find looks up a room by the code a player typed (ParseCode): ErrBadCode
// for text that is no code, ErrNoRoom for a code no open room has. It
// logs nothing and counts nothing: the caller holds wrong codes to a
// budget (package budget) before it asks, so that guessing codes costs
// no write to the log, which on a cluster is the database.
func (rs *Rooms) Find(text string) (*Room, error) {
	code, err := ParseCode(text)
	if err != nil {
		return nil, err
	}
	rs.mu.Lock()
	open := rs.rooms[code] != nil
	rs.mu.Unlock()
	if !open {
		return nil, fmt.Errorf("%w %s", ErrNoRoom, code)
	}
	return rs.handle(code), nil
}

// Public lists the open public rooms, oldest first.
func (rs *Rooms) Public() []RoomInfo { return rs.public(false) }

// Waiting lists the open public rooms that wait for players, oldest
// first: what the Lobby screen offers to join.
func (rs *Rooms) Waiting() []RoomInfo { return rs.public(true) }

// public lists the open public rooms, only those waiting for players
// when waiting is set.
func (rs *Rooms) public(waiting bool) []RoomInfo {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var list []RoomInfo
	for _, r := range rs.rooms {
		// The phase and the members are the fold's, written with rs.mu
		// held too: no room's lock is needed to read them.
		if r.cfg.Public && (!waiting || r.phase == PhaseWaiting) {
			list = append(list, r.listing())
		}
	}
	slices.SortFunc(list, func(a, b RoomInfo) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.Code, b.Code)
	})
	return list
}

// Close closes the room with this code (an admin's doing): a race that
// runs is abandoned, unranked and unstored, and everybody gets RoomClosed
// with the reason. ErrNoRoom when there is none.
func (rs *Rooms) Close(code, reason string) error {
	if _, ok := rs.Room(code); !ok {
		return fmt.Errorf("%w %s", ErrNoRoom, code)
	}
	return rs.log.Do(RoomOp{Kind: OpClose, Code: code, Text: reason})
}

// localMember returns the room and the member if the member's session is
// this server's, with rs.mu held.
func (rs *Rooms) localMember(code, playerID string) (*room, *member, error) {
	return rs.localIn(rs.rooms[code], playerID)
}

// localIn is localMember in room r (nil: closed), with rs.mu or r's lock
// held.
func (rs *Rooms) localIn(r *room, playerID string) (*room, *member, error) {
	if r == nil || r.phase == PhaseClosed {
		return nil, nil, ErrRoomClosed
	}
	m := r.member(playerID)
	if m == nil || !m.present() || m.inst != rs.cfg.Instance {
		return r, nil, ErrNotMember
	}
	return r, m, nil
}

// Leave takes a player's session on this server, the one whose sink is
// from, out of the room; a session whose seat another took over leaves
// nothing (ErrSeatTaken). In the waiting room and after a race the seat
// goes too; during a race the seat stays, so the racer can come back
// until the race ends, and counts as left. A room nobody is in closes
// EmptyRoomClose later.
func (h *Room) Leave(playerID string, from Sink) error {
	rs := h.rs
	rs.mu.Lock()
	_, m, err := rs.localMember(h.code, playerID)
	sid := ""
	if m != nil {
		sid = m.sid
		if !sameSink(rs.sinkOf(m.inst, m.sid), from) {
			err = ErrSeatTaken
		}
	}
	at := rs.nowLocked()
	rs.mu.Unlock()
	if err != nil {
		return err
	}
	err = rs.log.Do(RoomOp{Kind: OpLeave, Code: h.code, Target: playerID, Sid: sid, At: at})
	rs.tidy()
	return err
}

// SetReady sets a member's ready mark in the waiting room.
func (h *Room) SetReady(playerID string, ready bool) error {
	return h.rs.log.Do(RoomOp{Kind: OpReady, Code: h.code, Target: playerID, Ready: ready, At: h.rs.now()})
}

// Start starts the countdown: the host only, in the waiting room, with at
// least MinRacers members in. The race starts CountdownTime from now by
// the cluster's clock (the database's: every server counts down
// together).
func (h *Room) Start(playerID string) error {
	now, err := h.rs.log.Now()
	if err != nil {
		return fmt.Errorf("lobby: start: the cluster's clock: %w", err)
	}
	return h.rs.log.Do(RoomOp{Kind: OpStart, Code: h.code, Target: playerID, At: now.Add(CountdownTime)})
}

// Rematch takes the room back to the waiting room for a new race of deal
// (the caller picks it, says what the solver found of it and whether the
// race is rated: RoomConfig.Rated): the host only, after a race.
// Everybody still in the room stays, spectators too.
func (h *Room) Rematch(playerID string, deal uint64, verdict engine.Verdict, rated bool) error {
	return h.rs.log.Do(RoomOp{Kind: OpRematch, Code: h.code, Target: playerID, Cfg: &OpConfig{Deal: deal, Verdict: verdict, Rated: rated}})
}

// Say says a member's line in the room, for every member and spectator,
// in any phase (a spectator's is SayWatching). A muted member cannot; a
// player says at most ChatBurst lines per ChatWindow from all of their
// sessions on every server.
func (h *Room) Say(playerID, text string) error {
	line, err := CleanChat(text)
	if err != nil {
		return err
	}
	rs := h.rs
	rs.mu.Lock()
	r, m, err := rs.localMember(h.code, playerID)
	if err == nil && r.isMuted(&m.Entrant) {
		err = ErrMuted
	}
	at := rs.nowLocked()
	rs.mu.Unlock()
	if err != nil {
		return err
	}
	// The fold counts the line against ChatBurst (apply): it sees every
	// server's lines of the player in the same order.
	return rs.log.Do(RoomOp{Kind: OpChat, Code: h.code, Target: playerID, Text: line, At: at})
}

// Mute mutes or unmutes a member or a spectator: the host only, and not
// themselves. A mute holds for the life of the room, for the account and,
// a member's, for the guests of their address, so neither leaving and
// coming back nor coming back as a new guest lifts it.
func (h *Room) Mute(hostID, playerID string, muted bool) error {
	return h.rs.log.Do(RoomOp{Kind: OpMute, Code: h.code, Who: &Entrant{ID: hostID}, Target: playerID, Muted: muted, At: h.rs.now()})
}

// Remove takes a member out of the room: the host only, and not
// themselves. In the waiting room and after a race the seat goes; in a
// race that runs the racer counts as left. The member's session is told
// (Removed), and the member may not come back to the room, by their
// account, nor any guest of their address (ErrRemoved). So a racer who never marks
// ready does not hold up the start.
func (h *Room) Remove(hostID, playerID string) error {
	return h.rs.log.Do(RoomOp{Kind: OpRemove, Code: h.code, Who: &Entrant{ID: hostID}, Target: playerID, At: h.rs.now()})
}

// Watch adds a spectator, who sees the room and every racer's progress
// but takes no part (at most MaxSpectators). A second session of the same
// viewer takes the view over.
func (h *Room) Watch(viewerID string, sink Sink) (Snapshot, error) {
	if sink == nil {
		return Snapshot{}, errors.New("lobby: Watch without a sink")
	}
	rs := h.rs
	rs.mu.Lock()
	sid := rs.sidOf(sink)
	rs.mu.Unlock()
	err := rs.log.Do(RoomOp{Kind: OpWatch, Code: h.code, Target: viewerID, Sid: sid})
	rs.doneWith(sid)
	if err != nil {
		return Snapshot{}, err
	}
	return h.Snapshot(), nil
}

// Unwatch takes a spectator of this server out: the session whose sink
// is from; a session whose view another took over leaves nothing
// (ErrSeatTaken).
func (h *Room) Unwatch(viewerID string, from Sink) error {
	rs := h.rs
	rs.mu.Lock()
	sid := ""
	if r := rs.rooms[h.code]; r != nil {
		for _, w := range r.watchers {
			if w.id == viewerID && w.inst == rs.cfg.Instance {
				sid = w.sid
			}
		}
	}
	taken := sid != "" && !sameSink(rs.sinkOf(rs.cfg.Instance, sid), from)
	rs.mu.Unlock()
	switch {
	case sid == "":
		return ErrNotMember
	case taken:
		return ErrSeatTaken
	}
	err := rs.log.Do(RoomOp{Kind: OpUnwatch, Code: h.code, Target: viewerID, Sid: sid})
	rs.tidy()
	return err
}

// Close closes the room, as Rooms.Close does.
func (h *Room) Close(reason string) {
	h.rs.log.Post("", RoomOp{Kind: OpClose, Code: h.code, Text: reason})
}

// Report records the progress of a racer this server serves, sent by the
// session whose sink is from, and shows it to this server's sessions at
// once and to the other servers' through the log (RoomLog.Offer). Only
// the session holding the seat reports (ErrSeatTaken for one whose seat
// another session took over). The room notes the time of each removal itself, by
// its own clock. After a racer cleared or got stuck their race is over
// (ErrRaceOver). moves is the racer's line of moves now (the room keeps it
// for the spectators' boards, Board, and sends it on to the other
// servers); it is the room's from then on, never changed by the caller.
// It waits for the room's lock only.
func (h *Room) Report(playerID string, from Sink, p Progress, moves []string) error {
	rs := h.rs
	r := rs.lookup(h.code)
	if r == nil {
		return ErrRoomClosed
	}
	var t0 time.Time
	if rs.cfg.Trace != nil {
		t0 = time.Now()
	}
	r.mu.Lock()
	done, offer, news, err := rs.report(r, playerID, from, p, moves)
	r.mu.Unlock()
	if err == nil && offer {
		// Without the room's lock: the log builds the progress when it
		// goes out (Progress), from the room as it is then.
		rs.log.Offer(h.code, news)
	}
	if err == nil && !done && p.State != RacerPlaying {
		rs.arenaGameOver(r, playerID)
	}
	if rs.cfg.Trace != nil {
		rs.cfg.Trace.Since(TraceReportStage, t0)
	}
	if done {
		go rs.endRace(h.code)
	}
	return err
}

// report is Report with r's lock held; done: the race is to end;
// offer: the other servers are to hear of it (RoomLog.Offer, once the
// lock is released), at once when news.
func (rs *Rooms) report(r *room, playerID string, from Sink, p Progress, moves []string) (done, offer, news bool, err error) {
	r, m, err := rs.localIn(r, playerID)
	switch {
	case err != nil:
		return false, false, false, err
	case !sameSink(rs.sinkOf(m.inst, m.sid), from):
		return false, false, false, ErrSeatTaken
	case r.phase != PhaseRacing:
		return false, false, false, ErrNotRacing
	case m.progress.State != RacerPlaying:
		return false, false, false, ErrRaceOver
	case p.Removed < 0 || p.Removed > r.cards() || p.Moves < 0 || p.Pass < 0:
		return false, false, false, fmt.Errorf("%w: %d of %d cards removed in %d moves", ErrBadProgress, p.Removed, r.cards(), p.Moves)
	case p.State != RacerPlaying && p.State != RacerStuck && p.State != RacerCleared:
		return false, false, false, fmt.Errorf("%w: state %v", ErrBadProgress, p.State)
	case p.State == RacerCleared && p.Removed != r.cards():
		return false, false, false, fmt.Errorf("%w: cleared with %d of %d cards removed", ErrBadProgress, p.Removed, r.cards())
	}
	el := rs.cfg.Clock.Now().Sub(r.startsAt)
	for n := len(m.removals); n > 0 && m.removals[n-1].removed > p.Removed; n-- {
		m.removals = m.removals[:n-1]
	}
	if n := len(m.removals); p.Removed > 0 && (n == 0 || m.removals[n-1].removed < p.Removed) {
		m.removals = append(m.removals, removal{removed: p.Removed, at: el})
	}
	m.lastRemoval = 0
	if n := len(m.removals); n > 0 {
		m.lastRemoval = m.removals[n-1].at
	}
	if p.State == RacerCleared {
		m.finish = el
	}
	// A racer's stored game (a comeback on another server reads it) and
	// a racer's end are news the other servers must not miss if this one
	// dies before the next progress: they go out at once.
	news = p.GameID != m.progress.GameID || p.State != m.progress.State
	m.progress = p
	m.line, m.lineKnown = moves, true
	m.lineSum = 0 // this server's: it sums the line when it sends it (Progress)
	rs.coalesceRacer(r, m)
	// A server alone tells nobody.
	return rs.checkDone(r), rs.others.Load(), news, nil
}

// Progress returns the progress of this server's racers in the room, as
// the other servers are to hear of it now (the log calls it when the
// room's progress goes out, after Offer), and false when the room is
// closed or none of its racers is this server's. Each racer's line is
// summed up since the previous Progress of the room: the moves made since
// (at most LineTail of them), so that a server that heard every progress
// of the room follows the line; one that missed one learns it elsewhere
// (Board, Learn).
func (rs *Rooms) Progress(code string) (ServerProgress, bool) {
	r := rs.lookup(code)
	if r == nil {
		return ServerProgress{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.phase == PhaseClosed {
		return ServerProgress{}, false
	}
	p := ServerProgress{Inst: rs.cfg.Instance, Round: r.round}
	for _, m := range r.members {
		if m.inst != rs.cfg.Instance {
			continue
		}
		rr := RacerReport{ID: m.ID, Progress: m.progress, LastRemoval: m.lastRemoval, Finish: m.finish}
		if m.lineKnown {
			rr.Line = summarizeSince(m.sent, m.line)
			m.sent = m.line
		}
		p.Racers = append(p.Racers, rr)
	}
	return p, len(p.Racers) > 0
}

// Board returns a racer's game as the room knows it, for a spectator: the
// race's deal and the racer's moves so far (no redo stack); ok is false
// when the room does not know the racer's moves (no report yet on any
// server, or a line its progress could not make whole), for the caller to
// read the racer's stored game instead.
func (h *Room) Board(playerID string) (rec engine.Record, ok bool) {
	r := h.rs.lookup(h.code)
	if r == nil {
		return engine.Record{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.member(playerID)
	if m == nil {
		return engine.Record{}, false
	}
	rec = engine.Record{Rules: r.cfg.Rules.ID(), Deal: r.cfg.Deal}
	if m.progress.Moves == 0 && m.progress.State <= RacerPlaying && !m.lineKnown {
		return rec, true // not moved yet: the deal as dealt
	}
	if !m.lineKnown {
		return rec, false
	}
	rec.Moves = slices.Clone(m.line)
	return rec, true
}

// Learn gives the room a racer's line of moves it could not make whole
// from the progress (Board said so), as the caller read it elsewhere (the
// racer's stored game): the room takes it if it is the line of the
// racer's last progress, and follows the progress from it again.
func (h *Room) Learn(playerID string, moves []string) {
	r := h.rs.lookup(h.code)
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if m := r.member(playerID); m != nil && !m.lineKnown && m.lineSum != 0 && lineSum(moves) == m.lineSum {
		m.line, m.lineKnown = slices.Clip(moves), true
	}
}

// followInstances has the log read the progress of each server with a
// member in the room that this server does not read yet, with rs.mu
// held. A server once followed stays followed until the room closes:
// its progress is quiet when its members are gone.
func (rs *Rooms) followInstances(r *room) {
	for _, m := range r.members {
		if m.inst == rs.cfg.Instance || r.followed[m.inst] {
			continue
		}
		if r.followed == nil {
			r.followed = map[string]bool{}
		}
		r.followed[m.inst] = true
		rs.log.Follow(r.code, r.id, m.inst)
	}
}

// ApplyProgress applies another server's progress of its racers in the
// room (its code and ID, as RoomLog.Follow was given them), with the
// room's lock only: the fold of other rooms, listings and the other
// rooms' moves do not hold it up.
func (rs *Rooms) ApplyProgress(code, roomID string, p ServerProgress) {
	r := rs.lookup(code)
	if r == nil || r.id != roomID {
		return
	}
	r.mu.Lock()
	done := rs.applyProgress(r, p)
	r.mu.Unlock()
	if done {
		go rs.endRace(code)
	}
}

// hold keeps p, its server's newest progress, for applyHeld.
func (rs *Rooms) hold(r *room, p ServerProgress) {
	if r.held == nil {
		r.held = map[string]ServerProgress{}
	}
	r.held[p.Inst] = p
}

// applyHeld applies again the progress held for room r, with r's lock
// held, after one of its ops was applied; done: the race is to end.
func (rs *Rooms) applyHeld(r *room) (done bool) {
	if len(r.held) == 0 {
		return false
	}
	held := r.held
	r.held = nil
	for _, p := range held {
		done = rs.applyProgress(r, p) || done
	}
	return done
}

// applyProgress folds another server's progress of its racers.
// Progress this server's fold is not ready for yet (a round or a start
// not applied here, a racer whose join is not) is held and applied again
// after the room's next op (applyHeld): it may be a racer's last word,
// her finish, which no later progress would repeat. It runs with r's
// lock held; done: the race is to end (endRace, once unlocked).
func (rs *Rooms) applyProgress(r *room, p ServerProgress) (done bool) {
	if p.Round < r.round || r.phase == PhaseClosed {
		return false
	}
	delete(r.held, p.Inst) // p is newer than anything held of its server
	early := p.Round > r.round || r.phase == PhaseWaiting
	if !early && r.phase != PhaseRacing && r.phase != PhaseCountdown {
		return false
	}
	if early {
		rs.hold(r, p)
		return false
	}
	for _, w := range p.Racers {
		m := r.member(w.ID)
		if m == nil {
			rs.hold(r, p) // the rest applies now, and again then, alike
			continue
		}
		if m.inst != p.Inst {
			continue // a racer now served elsewhere: that server says
		}
		newLine := w.Line != nil && w.Line.Sum != m.lineSum
		if newLine {
			m.line, m.lineKnown = w.Line.follow(m.line)
			m.lineSum = w.Line.Sum
		}
		// The progress holds all of its server's racers of the room,
		// most of them as they were: their panel lines stay.
		rs.setProgress(r, m, w, newLine)
	}
	return rs.checkDone(r)
}

// setProgress gives racer m of room r the progress of w and shows it
// to this server's sessions, with r's lock held; unless changed (their
// line did), a progress as it was changes nothing. It reports whether
// it showed anything.
func (rs *Rooms) setProgress(r *room, m *member, w RacerReport, changed bool) bool {
	if !changed && w.Progress == m.progress && w.LastRemoval == m.lastRemoval && w.Finish == m.finish {
		return false
	}
	m.progress, m.lastRemoval, m.finish = w.Progress, w.LastRemoval, w.Finish
	rs.coalesceRacer(r, m)
	return true
}

// roomsPerAddress is the most open rooms opened from one address:
// RoomsConfig.MaxRoomsPerAddress, or a share of MaxRooms.
func (rs *Rooms) roomsPerAddress() int {
	if rs.cfg.MaxRoomsPerAddress > 0 {
		return rs.cfg.MaxRoomsPerAddress
	}
	return max(1, rs.cfg.MaxRooms/AddressRoomsShare)
}
