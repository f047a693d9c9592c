package lobby

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"pyramid/bus"
	"pyramid/engine"
	"pyramid/keys"
)

// SharedRoom is a handle on one shared room, by its code: its methods
// are those of Room, for a session of this server.
type SharedRoom struct {
	rs   *SharedRooms
	code string
}

// Code returns the room's code.
func (h *SharedRoom) Code() string { return h.code }

// Snapshot returns the room as this server sees it; a closed room's is in
// PhaseClosed. It waits for the room's lock only.
func (h *SharedRoom) Snapshot() Snapshot {
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

// Round returns the room's current round as this server sees it, as
// Room.Round does; a closed room's is in PhaseClosed.
func (h *SharedRoom) Round() RoundOf {
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

// handle returns the handle of an open room.
func (rs *SharedRooms) handle(code string) *SharedRoom { return &SharedRoom{rs: rs, code: code} }

// Len returns the number of open rooms of the cluster.
func (rs *SharedRooms) Len() int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return len(rs.rooms)
}

func toWireCfg(c RoomConfig) *wireCfg {
	return &wireCfg{Rules: c.Rules.ID(), Deal: c.Deal, Verdict: int(c.Verdict), Public: c.Public,
		LimitMS: c.TimeLimit.Milliseconds(), Max: c.MaxPlayers, Rated: c.Rated}
}

func toWireEntrant(p Entrant) *wireEntrant {
	return &wireEntrant{ID: p.ID, Name: keys.Clean(p.Name, keys.MaxNameWidth), Guest: p.Guest}
}

// Create opens a room hosted by host, as Rooms.Create does, for the
// whole cluster.
func (rs *SharedRooms) Create(host Entrant, sink Sink, cfg RoomConfig) (*SharedRoom, Snapshot, error) {
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
		code, cerr := newCode(rs.cfg.Rand, func(c string) bool { return rs.rooms[c] != nil })
		sid := rs.sidOf(sink)
		rs.mu.Unlock()
		if cerr != nil {
			return nil, Snapshot{}, fmt.Errorf("lobby: create room: %w", cerr)
		}
		err = rs.do(sharedMsg{Op: "open", Code: code, RoomID: newRoomID(), Sid: sid, Who: toWireEntrant(host), Cfg: toWireCfg(cfg)})
		if errors.Is(err, errCodeTaken) {
			continue
		}
		if err != nil {
			rs.tidy()
			return nil, Snapshot{}, err
		}
		h := rs.handle(code)
		return h, h.Snapshot(), nil
	}
	return nil, Snapshot{}, fmt.Errorf("lobby: create room: %w", err)
}

// tidy forgets the tokens of local sessions in no room.
func (rs *SharedRooms) tidy() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.forgetUnused()
}

// Join puts the player in the room, or back in their seat, and out of
// every other room, as Rooms.Join does.
func (rs *SharedRooms) Join(h *SharedRoom, p Entrant, sink Sink) (Snapshot, error) {
	if sink == nil {
		return Snapshot{}, errors.New("lobby: Join without a sink")
	}
	rs.mu.Lock()
	sid := rs.sidOf(sink)
	rs.mu.Unlock()
	if err := rs.do(sharedMsg{Op: "join", Code: h.code, Sid: sid, Who: toWireEntrant(p)}); err != nil {
		rs.tidy()
		return Snapshot{}, err
	}
	return h.Snapshot(), nil
}

// QuickJoin puts the player in the oldest public room of these rules
// waiting for players with a seat free, or reports ErrNoRoom.
func (rs *SharedRooms) QuickJoin(p Entrant, sink Sink, rulesID string) (*SharedRoom, Snapshot, error) {
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

// QuickMatch is QuickJoin, or a new public room of cfg when none waits.
func (rs *SharedRooms) QuickMatch(p Entrant, sink Sink, cfg RoomConfig) (*SharedRoom, Snapshot, bool, error) {
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

// Room returns the open room with this code, without waiting for the
// rooms' lock.
func (rs *SharedRooms) Room(code string) (*SharedRoom, bool) {
	if rs.lookup(code) == nil {
		return nil, false
	}
	return rs.handle(code), true
}

// Hosted returns the open room the player hosts.
func (rs *SharedRooms) Hosted(playerID string) (*SharedRoom, bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, r := range rs.sortedRooms() {
		if r.host == playerID {
			return rs.handle(r.code), true
		}
	}
	return nil, false
}

// Seated returns the open room where the player has a seat.
func (rs *SharedRooms) Seated(playerID string) (*SharedRoom, bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, r := range rs.sortedRooms() {
		if r.member(playerID) != nil {
			return rs.handle(r.code), true
		}
	}
	return nil, false
}

// Find looks up a room by the code a player typed, with Rooms.Find's
// limit on wrong codes, counted for the whole cluster: each wrong code
// is an event of the rooms' log (a player blocked publishes none), so
// that every server's fold counts the same codes at the same times, and
// a player with sessions on two servers gets no more tries than on one.
func (rs *SharedRooms) Find(playerID, text string) (*SharedRoom, error) {
	rs.mu.Lock()
	now := rs.cfg.Clock.Now().Add(rs.offset)
	if w := rs.wrong[playerID]; w != nil && now.Before(w.blocked) {
		rs.mu.Unlock()
		return nil, ErrThrottled
	}
	code, err := ParseCode(text)
	if err == nil && rs.rooms[code] == nil {
		err = fmt.Errorf("%w %s", ErrNoRoom, code)
	}
	rs.mu.Unlock()
	if err == nil {
		return rs.handle(code), nil
	}
	// Awaited, so that this player's next look-up, here, counts it.
	if derr := rs.do(sharedMsg{Op: "wrong", Target: playerID, At: now.UnixMilli()}); derr != nil {
		rs.logf("lobby: shared rooms: count a wrong code: %v", derr)
	}
	return nil, err
}

// Public lists the cluster's open public rooms, oldest first.
func (rs *SharedRooms) Public() []RoomInfo { return rs.public(false) }

// Waiting lists the cluster's open public rooms that wait for players,
// oldest first: what the Lobby screen offers to join.
func (rs *SharedRooms) Waiting() []RoomInfo { return rs.public(true) }

// public lists the cluster's open public rooms, only those waiting for
// players when waiting is set.
func (rs *SharedRooms) public(waiting bool) []RoomInfo {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var list []RoomInfo
	for _, r := range rs.sortedRooms() {
		if !r.cfg.Public {
			continue
		}
		r.mu.Lock()
		if !waiting || r.phase == PhaseWaiting {
			list = append(list, rs.snapshot(r).info(r.created))
		}
		r.mu.Unlock()
	}
	return list
}

// Close closes the room with this code for the whole cluster.
func (rs *SharedRooms) Close(code, reason string) error {
	if _, ok := rs.Room(code); !ok {
		return fmt.Errorf("%w %s", ErrNoRoom, code)
	}
	return rs.do(sharedMsg{Op: "close", Code: code, Text: reason})
}

// localMember returns the room and the member if the member's session is
// this server's, with rs.mu held.
func (rs *SharedRooms) localMember(code, playerID string) (*sharedRoom, *sharedMember, error) {
	return rs.localIn(rs.rooms[code], playerID)
}

// localIn is localMember in room r (nil: closed), with rs.mu or r's lock
// held.
func (rs *SharedRooms) localIn(r *sharedRoom, playerID string) (*sharedRoom, *sharedMember, error) {
	if r == nil || r.phase == PhaseClosed {
		return nil, nil, ErrRoomClosed
	}
	m := r.member(playerID)
	if m == nil || !m.present() || m.inst != rs.cfg.Instance {
		return r, nil, ErrNotMember
	}
	return r, m, nil
}

// Leave takes the player's session on this server, the one whose sink is
// from, out of the room (ErrSeatTaken for one whose seat another session
// took over).
func (h *SharedRoom) Leave(playerID string, from Sink) error {
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
	rs.mu.Unlock()
	if err != nil {
		return err
	}
	err = rs.do(sharedMsg{Op: "leave", Code: h.code, Target: playerID, Sid: sid})
	rs.tidy()
	return err
}

// SetReady sets a member's ready mark in the waiting room.
func (h *SharedRoom) SetReady(playerID string, ready bool) error {
	return h.rs.do(sharedMsg{Op: "ready", Code: h.code, Target: playerID, Ready: ready})
}

// Start starts the countdown: the race starts CountdownTime from now by
// the cluster's clock.
func (h *SharedRoom) Start(playerID string) error {
	rs := h.rs
	ctx, cancel := context.WithTimeout(rs.ctx, sharedTimeout)
	defer cancel()
	now, err := rs.cfg.DBNow(ctx)
	if err != nil {
		return fmt.Errorf("lobby: start: the database's clock: %w", err)
	}
	return rs.do(sharedMsg{Op: "start", Code: h.code, Target: playerID, At: now.Add(CountdownTime).UnixMilli()})
}

// Rematch takes the room back to the waiting room for a new race of deal,
// rated or not (RoomConfig.Rated), as Room.Rematch does.
func (h *SharedRoom) Rematch(playerID string, deal uint64, verdict engine.Verdict, rated bool) error {
	return h.rs.do(sharedMsg{Op: "rematch", Code: h.code, Target: playerID, Cfg: &wireCfg{Deal: deal, Verdict: int(verdict), Rated: rated}})
}

// Say says a chat line in the room (members only, not muted, at most
// ChatBurst lines per ChatWindow from all of the player's sessions on
// every server).
func (h *SharedRoom) Say(playerID, text string) error {
	line, err := CleanChat(text)
	if err != nil {
		return err
	}
	rs := h.rs
	rs.mu.Lock()
	r, m, err := rs.localMember(h.code, playerID)
	if err == nil && r.muted[m.ID] {
		err = ErrMuted
	}
	at := rs.cfg.Clock.Now().Add(rs.offset)
	rs.mu.Unlock()
	if err != nil {
		return err
	}
	// The fold counts the line against ChatBurst (apply): it sees every
	// server's lines of the player in the same order.
	return rs.do(sharedMsg{Op: "chat", Code: h.code, Target: playerID, Text: line, At: at.UnixMilli()})
}

// Mute mutes or unmutes a member: the host only.
func (h *SharedRoom) Mute(hostID, playerID string, muted bool) error {
	return h.rs.do(sharedMsg{Op: "mute", Code: h.code, Who: &wireEntrant{ID: hostID}, Target: playerID, Muted: muted})
}

// Watch adds a spectator.
func (h *SharedRoom) Watch(viewerID string, sink Sink) (Snapshot, error) {
	if sink == nil {
		return Snapshot{}, errors.New("lobby: Watch without a sink")
	}
	rs := h.rs
	rs.mu.Lock()
	sid := rs.sidOf(sink)
	rs.mu.Unlock()
	if err := rs.do(sharedMsg{Op: "watch", Code: h.code, Target: viewerID, Sid: sid}); err != nil {
		rs.tidy()
		return Snapshot{}, err
	}
	return h.Snapshot(), nil
}

// Unwatch takes this server's spectator out.
func (h *SharedRoom) Unwatch(viewerID string) error {
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
	rs.mu.Unlock()
	if sid == "" {
		return ErrNotMember
	}
	err := rs.do(sharedMsg{Op: "unwatch", Code: h.code, Target: viewerID, Sid: sid})
	rs.tidy()
	return err
}

// Close closes the room for the whole cluster.
func (h *SharedRoom) Close(reason string) {
	ctx, cancel := context.WithTimeout(h.rs.ctx, sharedTimeout)
	defer cancel()
	if _, err := h.rs.publish(ctx, sharedMsg{Op: "close", Code: h.code, Text: reason}); err != nil {
		h.rs.logf("lobby: shared rooms: %v", err)
	}
}

// Report records the progress of a racer this server serves, sent by the
// session whose sink is from, shows it to this server's sessions at once
// and to the other servers' within ProgressEvery, as Room.Report does
// (ErrSeatTaken included). It waits for the room's lock only.
func (h *SharedRoom) Report(playerID string, from Sink, p Progress) error {
	rs := h.rs
	r := rs.lookup(h.code)
	if r == nil {
		return ErrRoomClosed
	}
	var t0 time.Time
	if rs.cfg.Trace.Enabled() {
		t0 = time.Now()
	}
	r.mu.Lock()
	done, o, err := rs.report(r, playerID, from, p)
	r.mu.Unlock()
	if err == nil {
		rs.offerProgress(r, o)
	}
	if rs.cfg.Trace.Enabled() {
		rs.cfg.Trace.Since(traceReportStage, t0)
	}
	if done {
		go rs.endRace(h.code)
	}
	return err
}

// report is Report with r's lock held; done: the race is to end; o:
// the progress to offer to the other servers once the lock is released.
func (rs *SharedRooms) report(r *sharedRoom, playerID string, from Sink, p Progress) (done bool, o progressOffer, err error) {
	r, m, err := rs.localIn(r, playerID)
	switch {
	case err != nil:
		return false, o, err
	case !sameSink(rs.sinkOf(m.inst, m.sid), from):
		return false, o, ErrSeatTaken
	case r.phase != PhaseRacing:
		return false, o, ErrNotRacing
	case m.progress.State != RacerPlaying:
		return false, o, ErrRaceOver
	case p.Removed < 0 || p.Removed > r.cards() || p.Moves < 0 || p.Pass < 0:
		return false, o, fmt.Errorf("%w: %d of %d cards removed in %d moves", ErrBadProgress, p.Removed, r.cards(), p.Moves)
	case p.State != RacerPlaying && p.State != RacerStuck && p.State != RacerCleared:
		return false, o, fmt.Errorf("%w: state %v", ErrBadProgress, p.State)
	case p.State == RacerCleared && p.Removed != r.cards():
		return false, o, fmt.Errorf("%w: cleared with %d of %d cards removed", ErrBadProgress, p.Removed, r.cards())
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
	// dies within ProgressEvery: they go out at once.
	news := p.GameID != m.progress.GameID || p.State != m.progress.State
	m.progress = p
	rs.coalesceRacer(r, m)
	return rs.checkDone(r), rs.progressOf(r, news), nil
}

// progressOffer is the progress of this server's racers in a room, to
// be offered to the coalescer (offerProgress): the room's version of it
// and whether it is news (OfferNow).
type progressOffer struct {
	version uint64
	news    bool
	msg     progressMsg
}

// progressOf is the progress of this server's racers in room r, with r's
// lock held, a version newer than any before; news goes out without
// waiting for ProgressEvery.
func (rs *SharedRooms) progressOf(r *sharedRoom, news bool) progressOffer {
	r.version++
	o := progressOffer{version: r.version, news: news, msg: progressMsg{Inst: rs.cfg.Instance, Round: r.round}}
	if rs.cfg.Trace.Enabled() {
		o.msg.T = time.Now().UnixMicro()
	}
	for _, m := range r.members {
		if m.inst != rs.cfg.Instance {
			continue
		}
		o.msg.Racers = append(o.msg.Racers, wireRacer{ID: m.ID, Removed: m.progress.Removed, Moves: m.progress.Moves,
			Pass: m.progress.Pass, Board: m.progress.Board, State: int(m.progress.State), GameID: m.progress.GameID,
			LastMS: m.lastRemoval.Milliseconds(), FinishMS: m.finish.Milliseconds()})
	}
	return o
}

// offerProgress hands o to the coalescer, without the room's lock: the
// room's other racers, the other servers' progress and snapshots do not
// wait for the coalescer's lock, which every room's offers take. Two
// racers' reports of one room may come here in either order: the newest
// version is what goes (an older one that comes late is dropped), as
// news if either was.
func (rs *SharedRooms) offerProgress(r *sharedRoom, o progressOffer) {
	r.offerMu.Lock()
	defer r.offerMu.Unlock()
	if o.version > r.offered.version {
		r.offered = o
	} else if !o.news {
		return // a newer one went already
	}
	body, err := json.Marshal(r.offered.msg)
	if err != nil {
		return
	}
	m := bus.Message{Kind: "progress", Body: body}
	if o.news {
		rs.coal.OfferNow(ProgressTopic(r.code, rs.cfg.Instance), m)
		return
	}
	rs.coal.Offer(ProgressTopic(r.code, rs.cfg.Instance), m)
}

// followProgress starts reading the room's progress topics, with rs.mu
// held (from the fold).
func (rs *SharedRooms) followProgress(r *sharedRoom) {
	r.follow, r.stop = context.WithCancel(rs.ctx)
	rs.followInstances(r)
}

// followInstances starts reading the progress topic of each server with
// a member in the room that this server does not read yet, with rs.mu
// held. A server once followed stays followed until the room ends: its
// topic is quiet when its members are gone.
func (rs *SharedRooms) followInstances(r *sharedRoom) {
	if r.follow == nil {
		return
	}
	for _, m := range r.members {
		if m.inst == rs.cfg.Instance || r.followed[m.inst] {
			continue
		}
		if r.followed == nil {
			r.followed = map[string]bool{}
		}
		r.followed[m.inst] = true
		ctx, inst := r.follow, m.inst
		rs.ended.Add(1)
		go func() {
			defer rs.ended.Done()
			rs.readProgress(ctx, r, inst)
		}()
	}
}

// readProgress applies another server's (inst) progress of room r
// until ctx ends, with the room's lock only: the fold of other rooms,
// listings and the other rooms' moves do not hold it up.
func (rs *SharedRooms) readProgress(ctx context.Context, r *sharedRoom, inst string) {
	code := r.code
	var sub bus.Subscription
	for sub == nil {
		s, err := rs.cfg.Bus.Subscribe(ctx, ProgressTopic(code, inst), 0)
		if err == nil {
			sub = s
			break
		}
		if ctx.Err() != nil {
			return
		}
		rs.logf("lobby: shared rooms: follow room %s of %s: %v", code, inst, err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
	defer sub.Close()
	for {
		ev, err := sub.Next(ctx)
		if errors.Is(err, bus.ErrGap) {
			continue
		}
		if err != nil {
			return
		}
		var m progressMsg
		if json.Unmarshal(ev.Body, &m) != nil || m.Inst != inst {
			continue
		}
		var got time.Time
		if rs.cfg.Trace.Enabled() {
			got = time.Now()
		}
		r.mu.Lock()
		if rs.cfg.Trace.Enabled() {
			rs.cfg.Trace.Since("progress: wait for the room's lock", got)
		}
		done := rs.applyProgress(r, m)
		r.mu.Unlock()
		if done {
			go rs.endRace(code)
		}
		if tr := rs.cfg.Trace; tr.Enabled() && m.T != 0 {
			tr.Note("progress: stored → taken from the bus here", got.Sub(ev.At))
			now, sent := time.Now(), time.UnixMicro(m.T)
			tr.Note("progress: report → stored (coalescing, pool)", ev.At.Sub(sent))
			tr.Note("progress: stored → applied here (commit, notify, read, fold)", now.Sub(ev.At))
			tr.Note(traceCrossStage, now.Sub(sent))
		}
	}
}

// traceCrossStage is the trace's stage of another server's progress
// from its report there to its fold here; traceReportStage the time of
// a report of this server's racer (the room's lock, the offer): their
// timelines side by side tell a second with few moves reported on both
// servers (the keys did not come) from one whose moves were slow to
// arrive.
const (
	traceCrossStage  = "progress: report → applied on another server"
	traceReportStage = "progress: a report here (room's lock, offer)"
)

// hold keeps p, its server's newest progress, for applyHeld.
func (rs *SharedRooms) hold(r *sharedRoom, p progressMsg) {
	if r.held == nil {
		r.held = map[string]progressMsg{}
	}
	r.held[p.Inst] = p
}

// applyHeld applies again the progress held for room r, with r's lock
// held, after one of its events was folded; done: the race is to end.
func (rs *SharedRooms) applyHeld(r *sharedRoom) (done bool) {
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
// not folded here, a racer whose join is not) is held and applied again
// after the room's next event (applyHeld): it may be a racer's last word,
// her finish, which no later progress would repeat. It runs with r's
// lock held; done: the race is to end (endRace, once unlocked).
func (rs *SharedRooms) applyProgress(r *sharedRoom, p progressMsg) (done bool) {
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
		p := Progress{Removed: w.Removed, Moves: w.Moves, Pass: w.Pass, Board: w.Board, State: RacerState(w.State), GameID: w.GameID}
		last, finish := time.Duration(w.LastMS)*time.Millisecond, time.Duration(w.FinishMS)*time.Millisecond
		if p == m.progress && last == m.lastRemoval && finish == m.finish {
			// The event holds all of its server's racers of the room,
			// most of them as they were: their panel lines stay.
			continue
		}
		m.progress, m.lastRemoval, m.finish = p, last, finish
		rs.coalesceRacer(r, m)
	}
	return rs.checkDone(r)
}
