package lobby

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"pyramid/arena"
	"pyramid/engine"
	"pyramid/keys"
)

// The ops of arenas (arena.go).
const (
	// OpArenaJoin: a player (Who) joins an arena (Arena) or comes back
	// to it, with their line as the store has it (Lines, at most one).
	OpArenaJoin OpKind = "arenajoin"
	// OpArenaPause: a player (Target) of an arena (Arena.ID) pauses, or
	// resumes (Pause false).
	OpArenaPause OpKind = "arenapause"
	// OpArenaLeave: a player (Target) leaves an arena (Arena.ID): no more
	// pairing; their points stay.
	OpArenaLeave OpKind = "arenaleave"
	// OpArenaPair: the lease holder pairs free players (Players) of an
	// arena (Arena.ID) into a race in a new room (Code, RoomID, Cfg)
	// whose countdown ends at At.
	OpArenaPair OpKind = "arenapair"
	// OpArenaScore: the lease holder scored an arena race and tells the
	// racers' new lines (Lines).
	OpArenaScore OpKind = "arenascore"
	// OpArenaEnd: the arena (Arena.ID) ended and its last races are over.
	OpArenaEnd OpKind = "arenaend"
	// OpBerserk: a racer (Target) of an arena race (Code) gives up undo
	// in it, before it starts.
	OpBerserk OpKind = "berserk"
	// OpArenaDone: a racer (Target) of an arena race (Code, Round) of an
	// arena (Arena.ID) cleared the pyramid or got stuck at At, with the
	// progress Racer: their game is over, so they are free for the next
	// pairing while the others race on; the race's points come when it
	// ends.
	OpArenaDone OpKind = "arenadone"
)

// Errors of arenas, meant for players as they are.
var (
	ErrArenaOver     = errors.New("the arena is over")
	ErrArenaNotYet   = errors.New("the arena has not started")
	ErrNotInArena    = errors.New("you are not in this arena")
	ErrArenaGuest    = errors.New("arenas need a key: connect with your SSH key to play (guests may watch the games)")
	ErrNotArenaRace  = errors.New("berserk is for arena races")
	ErrBerserkLate   = errors.New("too late to go berserk: the race has started")
	ErrArenaPairing  = errors.New("lobby: arena pairing refused")
	errArenaNoPlayer = errors.New("lobby: a player of the pairing is not free")
)

// ArenaForget is how long an arena that ended stays in the rooms for its
// results screens.
const ArenaForget = time.Hour

// arenaRun is an arena as the fold knows it.
type arenaRun struct {
	info    ArenaInfo
	players map[string]*arenaPlayer
	// order is the players by standing, nil when a change made it
	// stale (standings).
	order []*arenaPlayer
	// ranks is each player's rank in order (standings), made with it.
	ranks map[string]int
	// board is the standings as every viewer sees them, made once after
	// each change (arenaChanged drops it) for all the views until the
	// next: an arena of a thousand players is not sorted and walked for
	// each of them.
	board *arenaBoard
	over  bool
	// inFlight is the players of the pairings the lease holder logged
	// (pairArena) and has not applied yet, since when (on this server's
	// clock): the next pairing, which may come before those are applied,
	// leaves them out rather than pair them twice (pairFlight).
	inFlight map[string]time.Time
	// wake is the lease holder's timer for the arena's next pairing, due
	// at wakeAt on the cluster's clock (schedulePairing); nil when none.
	wake   *pairWake
	wakeAt time.Time
	// told is when this server last told the arena's sessions that it
	// changed, on its own clock; telling is set while a notice for the
	// changes since waits to go (arenaChanged).
	told    time.Time
	telling bool
}

// arenaPlayer is one player of an arena.
type arenaPlayer struct {
	Entrant
	inst, sid string // the session serving them; sid "" when none
	state     ArenaState
	line      arena.Line
	reached   time.Time // when their points last went up (the tie-break)
	freeSince time.Time // on the cluster's clock
	code      string    // the room of their race, while ArenaPlaying
	last      []string  // whom they raced last
	prev      []string  // whom they raced in the game before (raced)
	// told is the line the last notice to their session carried
	// (tellArena), toldSid that session.
	told    arena.Line
	toldSid string
	// pauseNext: they paused during a race: paused when it ends.
	pauseNext bool
	// idle: they were paused for not moving in their race
	// (arenaForfeit), until they resume, join again or are paired.
	idle bool
}

// standing is p's line as screens show it, without its rank.
func (p *arenaPlayer) standing() ArenaStanding {
	return ArenaStanding{ID: p.ID, Name: p.Name, Line: p.line, Reached: p.reached, State: p.state, Code: p.code, Idle: p.idle}
}

// better reports whether a stands above b: a player with a game above
// one without (who has no line in the store's standings, and no rank),
// then more points, then fewer games, then the one who reached their
// points first, then by ID.
func (a *arenaPlayer) better(b *arenaPlayer) bool {
	switch {
	case (a.line.Games == 0) != (b.line.Games == 0):
		return a.line.Games > 0
	case a.line.Points != b.line.Points:
		return a.line.Points > b.line.Points
	case a.line.Games != b.line.Games:
		return a.line.Games < b.line.Games
	case !a.reached.Equal(b.reached):
		return a.reached.Before(b.reached)
	}
	return a.ID < b.ID
}

// standings returns the players in order, with each one's rank (equal
// points, games and time reached share one, as in the store; a player
// with no game has rank 0).
func (ar *arenaRun) standings() ([]*arenaPlayer, map[string]int) {
	if ar.order == nil {
		ar.order = make([]*arenaPlayer, 0, len(ar.players))
		for _, p := range ar.players {
			ar.order = append(ar.order, p)
		}
		slices.SortFunc(ar.order, func(a, b *arenaPlayer) int {
			if a.better(b) {
				return -1
			}
			if b.better(a) {
				return 1
			}
			return 0
		})
		ar.ranks = nil
	}
	if ar.ranks == nil {
		ar.ranks = make(map[string]int, len(ar.order))
		for i, p := range ar.order {
			switch {
			case p.line.Games == 0:
				ar.ranks[p.ID] = 0
			case i > 0 && ar.order[i-1].line.Points == p.line.Points && ar.order[i-1].line.Games == p.line.Games &&
				ar.order[i-1].reached.Equal(p.reached):
				ar.ranks[p.ID] = ar.ranks[ar.order[i-1].ID]
			default:
				ar.ranks[p.ID] = i + 1
			}
		}
	}
	return ar.order, ar.ranks
}

// opArena is an arena as an op carries it.
func opArena(a ArenaInfo) *ArenaInfo {
	a.Name = keys.Clean(a.Name, arena.MaxNameLen)
	return &a
}

// arenaOf returns the arena an op is about, or nil.
func (rs *Rooms) arenaOf(m RoomOp) *arenaRun {
	if m.Arena == nil {
		return nil
	}
	return rs.arenas[m.Arena.ID]
}

// applyArena folds the ops of arenas, with rs.mu held; handled is false
// for any other op.
func (rs *Rooms) applyArena(m RoomOp) (handled bool, err error) {
	switch m.Kind {
	case OpArenaJoin:
		return true, rs.arenaJoin(m)
	case OpArenaPause, OpArenaLeave:
		ar := rs.arenaOf(m)
		if ar == nil {
			return true, ErrNotInArena
		}
		p := ar.players[m.Target]
		if p == nil || p.sid == "" || m.Sid != "" && (p.inst != m.Inst || p.sid != m.Sid) {
			return true, ErrNotInArena
		}
		if m.Kind == OpArenaLeave {
			p.sid, p.pauseNext = "", false
			if p.state != ArenaPlaying {
				p.state = ArenaAway
			}
			rs.forgetUnused()
		} else {
			rs.arenaPause(p, m.Pause, m.At)
			rs.schedulePairing(ar)
		}
		rs.arenaChanged(ar)
		return true, nil
	case OpArenaPair:
		return true, rs.arenaPair(m)
	case OpArenaForfeit:
		return true, rs.arenaForfeit(m) // arena_forfeit.go
	case OpArenaScore:
		ar := rs.arenaOf(m)
		if ar == nil {
			return true, nil
		}
		for _, l := range m.Lines {
			if p := ar.players[l.ID]; p != nil && l.Games >= p.line.Games {
				p.line, p.reached = l.Line, l.Reached
			}
		}
		ar.order = nil
		rs.arenaChanged(ar)
		return true, nil
	case OpArenaEnd:
		ar := rs.arenaOf(m)
		if ar == nil || ar.over {
			return true, nil
		}
		ar.over = true
		for _, p := range ar.players {
			if s := rs.sessionOf(p.inst, p.sid); s != nil {
				rs.post(s, ArenaEnded{ID: ar.info.ID})
			}
		}
		rs.arenaChanged(ar)
		for id, o := range rs.arenas {
			if o.over && m.At.Sub(o.info.End) > ArenaForget {
				delete(rs.arenas, id)
				rs.arenaViews.Delete(id)
			}
		}
		rs.forgetUnused()
		return true, nil
	case OpArenaDone:
		rs.arenaDone(m)
		return true, nil
	case OpBerserk:
		r := rs.rooms[m.Code]
		if r == nil {
			return true, fmt.Errorf("%w %s", ErrNoRoom, m.Code)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		mb := r.member(m.Target)
		switch {
		case r.cfg.Arena.ID == 0:
			return true, ErrNotArenaRace
		case mb == nil || !mb.present():
			return true, ErrNotMember
		case r.phase != PhaseCountdown && r.phase != PhaseWaiting:
			return true, ErrBerserkLate
		}
		if !mb.berserk {
			mb.berserk = true
			rs.changed(r)
		}
		return true, nil
	}
	return false, nil
}

// arenaJoin folds a player's joining an arena.
func (rs *Rooms) arenaJoin(m RoomOp) error {
	if m.Arena == nil || m.Who == nil || m.Arena.ID == 0 {
		return ErrNotInArena
	}
	if m.Who.Guest {
		return ErrArenaGuest
	}
	if m.At.Before(m.Arena.Start) {
		return ErrArenaNotYet
	}
	ar := rs.arenas[m.Arena.ID]
	if ar == nil {
		if !m.At.Before(m.Arena.End) {
			return ErrArenaOver
		}
		ar = &arenaRun{info: *m.Arena, players: map[string]*arenaPlayer{}}
		ar.info.Name = keys.Clean(ar.info.Name, arena.MaxNameLen)
		rs.arenas[ar.info.ID] = ar
	}
	if ar.over || !m.At.Before(ar.info.End) {
		return ErrArenaOver
	}
	p := ar.players[m.Who.ID]
	if p == nil {
		p = &arenaPlayer{}
		ar.players[m.Who.ID] = p
		ar.order = nil
	}
	if p.sid != "" && (p.inst != m.Inst || p.sid != m.Sid) {
		if s := rs.sessionOf(p.inst, p.sid); s != nil {
			rs.post(s, ArenaTakenOver{ID: ar.info.ID})
		}
	}
	p.Entrant = Entrant{ID: m.Who.ID, Name: keys.Clean(m.Who.Name, keys.MaxNameWidth), Addr: m.Who.Addr}
	p.inst, p.sid, p.pauseNext, p.idle = m.Inst, m.Sid, false, false
	for _, l := range m.Lines {
		if l.ID == p.ID && l.Games > p.line.Games {
			p.line, p.reached = l.Line, l.Reached
			ar.order = nil
		}
	}
	if p.state != ArenaPlaying {
		p.state, p.freeSince = ArenaFree, m.At
	}
	rs.arenaChanged(ar)
	rs.schedulePairing(ar)
	return nil
}

// arenaPause pauses p (or resumes, paused false) at at.
func (rs *Rooms) arenaPause(p *arenaPlayer, paused bool, at time.Time) {
	p.idle = false
	switch {
	case p.state == ArenaPlaying:
		p.pauseNext = paused
	case paused:
		p.state = ArenaPaused
	default:
		p.state, p.freeSince = ArenaFree, at
	}
}

// arenaPair folds the lease holder's pairing: a new room for the players,
// all free and with a session, its countdown under way.
func (rs *Rooms) arenaPair(m RoomOp) error {
	ar := rs.arenaOf(m)
	if ar != nil {
		// Whatever the verdict, the pairing is applied: its players are
		// in flight no more (a waiter that gave up on it, the log being
		// slow, does not know when that is).
		defer rs.landed(ar, m.Players)
	}
	switch {
	case ar == nil || ar.over || m.Cfg == nil || len(m.Players) == 0 || len(m.Players) > arena.MaxRacers:
		return ErrArenaPairing
	case rs.rooms[m.Code] != nil:
		return errCodeTaken
	}
	var ps []*arenaPlayer
	for _, id := range m.Players {
		p := ar.players[id]
		if p == nil || p.state != ArenaFree || p.sid == "" || slices.Contains(ps, p) {
			return errArenaNoPlayer
		}
		ps = append(ps, p)
	}
	rules, err := engine.ParseRules(m.Cfg.RulesID)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadRoomConfig, err)
	}
	cfg, err := RoomConfig{Rules: rules, Deal: m.Cfg.Deal, Verdict: m.Cfg.Verdict, Rated: m.Cfg.Rated,
		TimeLimit: m.Cfg.TimeLimit, MaxPlayers: max(len(ps), MinRacers)}.normalize()
	if err != nil {
		return err
	}
	cfg.Arena = ar.info
	created := m.Logged.Add(-rs.offset)
	if m.Logged.IsZero() {
		created = rs.cfg.Clock.Now()
	}
	r := &room{code: m.Code, id: m.RoomID, created: created, cfg: cfg, round: 1, host: ps[0].ID, chatLim: map[string]*chatLimiter{},
		lastAt: m.At, hostActed: m.At}
	r.mu.Lock()
	defer r.mu.Unlock()
	rs.rooms[m.Code] = r
	rs.byCode.Store(m.Code, r)
	open := rs.sortedRooms()
	for _, p := range ps {
		r.members = append(r.members, &member{Entrant: p.Entrant, inst: p.inst, sid: p.sid})
		rs.leaveOthersIn(open, r, p.ID, p.inst, p.sid)
		p.state, p.code, p.pauseNext = ArenaPlaying, m.Code, false
		if s := rs.sessionOf(p.inst, p.sid); s != nil {
			rs.post(s, ArenaPaired{ID: ar.info.ID, Code: m.Code})
		}
	}
	rs.countdown(r, m.At)
	rs.arenaChanged(ar)
	return nil
}

// arenaRaceOver frees the racers of an arena race that ended (or whose
// room closed), with rs.mu and the room's lock held, at at on the
// cluster's clock.
func (rs *Rooms) arenaRaceOver(r *room, at time.Time) {
	ar := rs.arenas[r.cfg.Arena.ID]
	if ar == nil {
		return
	}
	var ids []string
	for _, mb := range r.members {
		ids = append(ids, mb.ID)
	}
	for _, id := range ids {
		if p := ar.players[id]; p != nil && p.code == r.code {
			p.freeAfter(ids, at)
		}
	}
	rs.arenaChanged(ar)
	rs.schedulePairing(ar)
}

// freeAfter frees p after their game in a race with the racers ids (p
// among them) at at: free for the next pairing, or paused if they asked
// for it meanwhile, or away without a session.
func (p *arenaPlayer) freeAfter(ids []string, at time.Time) {
	p.code = ""
	p.raced(ids)
	switch {
	case p.sid == "":
		p.state = ArenaAway
	case p.pauseNext:
		p.state, p.pauseNext = ArenaPaused, false
	default:
		p.state, p.freeSince = ArenaFree, at
	}
}

// arenaDone folds a racer's game over in an arena race that runs on
// (OpArenaDone), with rs.mu held: the racer is freed for the next
// pairing at once, not when the slowest racer is done. Their place and
// points come with the race's end (arenaRaceOver leaves them be then).
func (rs *Rooms) arenaDone(m RoomOp) {
	ar := rs.arenaOf(m)
	p := ar.player(m.Target)
	r := rs.rooms[m.Code]
	if p == nil || p.state != ArenaPlaying || p.code != m.Code || r == nil {
		return
	}
	r.mu.Lock()
	ids := make([]string, 0, len(r.members))
	for _, mb := range r.members {
		ids = append(ids, mb.ID)
	}
	if rs.finalProgress(r, m) && rs.checkDone(r) {
		rs.endAfter(r.code)
	}
	r.mu.Unlock()
	p.freeAfter(ids, m.At)
	rs.arenaChanged(ar)
	rs.schedulePairing(ar)
}

// finalProgress applies the progress an arena done carries (m.Racer) to
// its racer, with r's lock held, as applyProgress would when it came on
// its own: the pairing that follows takes the racer out of r, so the
// race must know how their game ended before then. It reports whether
// it changed the racer.
func (rs *Rooms) finalProgress(r *room, m RoomOp) bool {
	w := m.Racer
	if w == nil || w.ID != m.Target || r.round != m.Round || r.phase != PhaseRacing || w.Progress.State == RacerPlaying {
		return false
	}
	mb := r.member(m.Target)
	if mb == nil || mb.inst != m.Inst {
		return false
	}
	return rs.setProgress(r, mb, *w, false)
}

// arenaGameOver tells the rooms that a racer of arena race r finished
// their game (OpArenaDone), with how it ended, after their report,
// without a lock held.
func (rs *Rooms) arenaGameOver(r *room, playerID string) {
	if r.cfg.Arena.ID == 0 {
		return
	}
	r.mu.Lock()
	mb, round := r.member(playerID), r.round
	var final *RacerReport
	if mb != nil {
		final = &RacerReport{ID: playerID, Progress: mb.progress, LastRemoval: mb.lastRemoval, Finish: mb.finish}
	}
	r.mu.Unlock()
	rs.log.Post("arenadone/"+r.code+"/"+playerID, RoomOp{Kind: OpArenaDone, Code: r.code, Round: round,
		Arena: &ArenaInfo{ID: r.cfg.Arena.ID}, Target: playerID, Racer: final, At: rs.now()})
}

// arenaGone folds the end of a server for the arenas: its sessions' players
// are away; alive as for gone, it returns the joins to log again.
func (rs *Rooms) arenaGone(inst string, alive bool) []comeback {
	var back []comeback
	for _, id := range rs.arenaIDs() {
		ar := rs.arenas[id]
		changed := false
		for _, p := range ar.players {
			if p.sid == "" || p.inst != inst {
				continue
			}
			if s := rs.sessionOf(inst, p.sid); alive && s != nil && !ar.over {
				back = append(back, comeback{arena: ar.info, who: p.Entrant, sink: s.sink})
			}
			p.sid, changed = "", true
			if p.state != ArenaPlaying {
				p.state = ArenaAway
			}
		}
		if changed {
			rs.arenaChanged(ar)
		}
	}
	return back
}

// arenaIDs is the arenas' IDs in order, for folds that visit them alike
// everywhere.
func (rs *Rooms) arenaIDs() []int64 {
	ids := make([]int64, 0, len(rs.arenas))
	for id := range rs.arenas {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// arenaChanged tells this server's sessions in the arena that it changed.
func (rs *Rooms) arenaChanged(ar *arenaRun) {
	ar.board = nil
	rs.viewsOf(ar.info.ID).changed.Add(1)
	rs.arenaWatched(ar.info.ID)
	if ar.telling {
		return // the notice on its way tells this change too
	}
	now := rs.cfg.Clock.Now()
	wait := ar.told.Add(ArenaTellEvery).Sub(now)
	if wait <= 0 {
		ar.told = now
		rs.tellArena(ar)
		return
	}
	ar.telling = true
	rs.cfg.Clock.AfterFunc(wait, func() {
		rs.mu.Lock()
		defer rs.mu.Unlock()
		ar.telling, ar.told = false, rs.cfg.Clock.Now()
		rs.tellArena(ar)
	})
}

// ArenaTellEvery is how often at most a server tells an arena's sessions
// that it changed. Each notice has every player's screen ask for a view
// (and the screens that show the arena draw it): with every change told
// at once, the views of the players' joins, pairings and scores would
// grow as the square of the players. The first change after a quiet
// spell is told at once, the others together at the end of the spell.
const ArenaTellEvery = time.Second

// tellArena posts ArenaChanged to this server's sessions in the arena,
// with rs.mu held, with the snapshot their views will read; a racer
// hears of it only when their own line changed: a thousand racers'
// screens asking for the standings at every notice would each be drawn
// again for nothing.
func (rs *Rooms) tellArena(ar *arenaRun) {
	rs.viewsOf(ar.info.ID).snap.Store(rs.arenaSnapshot(ar))
	var ev Event = ArenaChanged{ID: ar.info.ID}
	key := ArenaKey(ar.info.ID)
	for _, p := range ar.players {
		s := rs.sessionOf(p.inst, p.sid)
		if s == nil {
			continue
		}
		if p.state == ArenaPlaying && p.toldSid == p.sid && p.told == p.line {
			// A racer's screen shows the standings after the race; under
			// it, only their own points (the race's header).
			continue
		}
		p.told, p.toldSid = p.line, p.sid
		s.sink.Coalesce(key, ev)
	}
}

// JoinArena puts the player in the arena (or back: their line is the
// store's, line), served by sink, and returns the arena as they see it.
func (rs *Rooms) JoinArena(info ArenaInfo, p Entrant, sink Sink, line ArenaStanding) (ArenaView, error) {
	if sink == nil {
		return ArenaView{}, errors.New("lobby: JoinArena without a sink")
	}
	line.ID = p.ID
	rs.mu.Lock()
	sid, at := rs.sidOf(sink), rs.nowLocked()
	rs.mu.Unlock()
	err := rs.log.Do(RoomOp{Kind: OpArenaJoin, Sid: sid, Who: opEntrant(p), Arena: opArena(info), Lines: []ArenaStanding{line}, At: at})
	rs.doneWith(sid)
	if err != nil {
		return ArenaView{}, err
	}
	v, _ := rs.freshArenaView(info.ID, p.ID, DefaultArenaTop)
	return v, nil
}

// PauseArena pauses the player's pairing in the arena, or resumes it.
func (rs *Rooms) PauseArena(id int64, playerID string, paused bool) error {
	return rs.log.Do(RoomOp{Kind: OpArenaPause, Arena: &ArenaInfo{ID: id}, Target: playerID, Pause: paused, At: rs.now()})
}

// LeaveArena takes the player's session (sink) out of the arena's
// pairing; their points stay.
func (rs *Rooms) LeaveArena(id int64, playerID string, sink Sink) error {
	rs.mu.Lock()
	sid := rs.sidOf(sink)
	rs.mu.Unlock()
	defer rs.doneWith(sid)
	return rs.log.Do(RoomOp{Kind: OpArenaLeave, Arena: &ArenaInfo{ID: id}, Target: playerID, Sid: sid, At: rs.now()})
}

// Berserk has the racer give up undo in the arena race of the room, before
// it starts, for a bonus point if they clear.
func (rs *Rooms) Berserk(code, playerID string) error {
	return rs.log.Do(RoomOp{Kind: OpBerserk, Code: code, Target: playerID})
}

// Berserk reports whether the racer gave up undo in the room's arena
// race (OpBerserk). It waits for the room's lock only.
func (h *Room) Berserk(playerID string) bool {
	r := h.rs.lookup(h.code)
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.member(playerID)
	return m != nil && m.berserk
}

// DefaultArenaTop is how many lines of the standings a view shows at the
// top.
const DefaultArenaTop = 10

// arenaNear is how many lines around the viewer's own a view shows when
// the viewer is below the top.
const arenaNear = 2

// arenaBoard is an arena's standings with what every view shares.
type arenaBoard struct {
	lines     []ArenaStanding // every player's line, in order, ranked
	index     map[string]int  // a player's place in lines
	playing   int
	topGame   string
	topNames  []string
	topPlayer string
}

// boardOf returns the arena's standings as views share them, made anew
// after a change, with rs.mu held.
func (rs *Rooms) boardOf(ar *arenaRun) *arenaBoard {
	if ar.board != nil {
		return ar.board
	}
	order, ranks := ar.standings()
	b := &arenaBoard{lines: make([]ArenaStanding, len(order)), index: make(map[string]int, len(order))}
	for i, p := range order {
		s := p.standing()
		s.Rank = ranks[p.ID]
		b.lines[i], b.index[p.ID] = s, i
		if p.state == ArenaPlaying {
			b.playing++
			if b.topGame == "" && p.code != "" {
				b.topGame, b.topPlayer = p.code, p.ID
				if r := rs.rooms[p.code]; r != nil {
					// Only those still racing in it: a racer whose game
					// is over (or who forfeited it) is in it no more.
					for _, mb := range r.members {
						if q := ar.players[mb.ID]; q != nil && q.state == ArenaPlaying && q.code == p.code {
							b.topNames = append(b.topNames, mb.Name)
						}
					}
				}
			}
		}
	}
	ar.board = b
	return b
}

// arenaViews is an arena's standings as its views read them: after each
// notice every player's screen asks for a view, and the views read the
// snapshot the notice was made with, without the rooms' lock, so that
// they do not queue for the lock the rooms' ops need. A view is as fresh
// as the last notice (ArenaTellEvery), which the changes since are told
// by in turn; the joining player's own view is made fresh.
type arenaViews struct {
	snap atomic.Pointer[arenaSnap]
	// changed counts the arena's changes (arenaChanged): a snapshot made
	// before the last of them is stale, and a view made anew.
	changed atomic.Uint64
	// making is closed once the snapshot being made anew (after a change)
	// is stored, nil when none is; under mu. The views that find it
	// stale meanwhile wait for that one rather than each for the rooms'
	// lock: a thousand screens asking at once after a notice would queue
	// there before the fold's next op.
	mu     sync.Mutex
	making chan struct{}
}

// arenaSnap is an arena's standings as a notice told them.
type arenaSnap struct {
	version uint64 // arenaViews.changed when it was made
	info    ArenaInfo
	over    bool
	offset  time.Duration // the rooms' offset to the cluster's clock when it was made
	board   *arenaBoard
	free    []time.Time // each line's FreeSince, on this server's clock
}

// viewsOf returns the arena's views, made on first use.
func (rs *Rooms) viewsOf(id int64) *arenaViews {
	if v, ok := rs.arenaViews.Load(id); ok {
		return v.(*arenaViews)
	}
	v, _ := rs.arenaViews.LoadOrStore(id, &arenaViews{})
	return v.(*arenaViews)
}

// arenaSnapshot makes the snapshot of ar's standings, with rs.mu held.
func (rs *Rooms) arenaSnapshot(ar *arenaRun) *arenaSnap {
	b := rs.boardOf(ar)
	sn := &arenaSnap{version: rs.viewsOf(ar.info.ID).changed.Load(), info: ar.info, over: ar.over, offset: rs.offset, board: b, free: make([]time.Time, len(b.lines))}
	for i, l := range b.lines {
		if p := ar.players[l.ID]; p != nil {
			sn.free[i] = p.freeSince.Add(-rs.offset)
		}
	}
	return sn
}

// ArenaView returns the arena as playerID sees it (a visitor: ""), with
// the top lines of the standings; ok is false for an arena the rooms do
// not know (nobody joined it since this server started). The views after
// a change share one snapshot of the standings, read without the rooms'
// lock; the first view after the next change makes the next.
func (rs *Rooms) ArenaView(id int64, playerID string, top int) (ArenaView, bool) {
	vs := rs.viewsOf(id)
	if sn := vs.snap.Load(); sn != nil && sn.version == vs.changed.Load() {
		return rs.readView(sn, playerID, top), true
	}
	vs.mu.Lock()
	if making := vs.making; making != nil {
		// Another view is making the snapshot: it holds, or waits for,
		// the rooms' lock, so that what it makes is as fresh as this
		// call.
		vs.mu.Unlock()
		<-making
		if sn := vs.snap.Load(); sn != nil {
			return rs.readView(sn, playerID, top), true
		}
		return ArenaView{}, false
	}
	making := make(chan struct{})
	vs.making = making
	vs.mu.Unlock()
	defer func() {
		vs.mu.Lock()
		vs.making = nil
		vs.mu.Unlock()
		close(making)
	}()
	return rs.freshArenaView(id, playerID, top)
}

// freshArenaView is ArenaView as the arena stands now, its snapshot made
// anew.
func (rs *Rooms) freshArenaView(id int64, playerID string, top int) (ArenaView, bool) {
	rs.mu.Lock()
	ar := rs.arenas[id]
	if ar == nil {
		rs.mu.Unlock()
		return ArenaView{}, false
	}
	sn := rs.arenaSnapshot(ar)
	rs.viewsOf(id).snap.Store(sn)
	rs.mu.Unlock()
	return rs.readView(sn, playerID, top), true
}

// readView is the view of playerID of the snapshot.
func (rs *Rooms) readView(sn *arenaSnap, playerID string, top int) ArenaView {
	b := sn.board
	n := len(b.lines)
	v := ArenaView{Arena: sn.info, Now: rs.cfg.Clock.Now().Add(sn.offset), Over: sn.over, Players: n, Playing: b.playing,
		TopGame: b.topGame, TopNames: slices.Clone(b.topNames), TopPlayer: b.topPlayer, Top: slices.Clone(b.lines[:min(top, n)])}
	if mine, ok := b.index[playerID]; ok && playerID != "" {
		v.You, v.FreeSince = b.lines[mine], sn.free[mine]
		if mine >= top {
			v.Near = slices.Clone(b.lines[max(top, mine-arenaNear):min(n, mine+arenaNear+1)])
		}
	}
	return v
}

// SeedArena gives this server's view of the arena the lines the store has
// of players not joined since it started (a server that started during
// the arena), as away; lines it has already stay.
func (rs *Rooms) SeedArena(info ArenaInfo, lines []ArenaStanding) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	ar := rs.arenas[info.ID]
	if ar == nil {
		ar = &arenaRun{info: info, players: map[string]*arenaPlayer{}}
		ar.info.Name = keys.Clean(ar.info.Name, arena.MaxNameLen)
		rs.arenas[info.ID] = ar
	}
	for _, l := range lines {
		if p := ar.players[l.ID]; p != nil {
			continue
		}
		ar.players[l.ID] = &arenaPlayer{Entrant: Entrant{ID: l.ID, Name: keys.Clean(l.Name, keys.MaxNameWidth)}, state: ArenaAway,
			line: l.Line, reached: l.Reached}
		ar.order, ar.board = nil, nil
		rs.viewsOf(info.ID).changed.Add(1)
	}
}

// arenaDuties is the lease holder's work for the arenas, with rs.mu held
// at clusterNow: an arena past its end whose races are over, and
// scored (or their store failed), ends; the
// free players of the others are paired (the pairings it returns, for
// pairArena once unlocked). Between two duties the arenas' own timers
// pair them as soon as they may be (schedulePairing).
func (rs *Rooms) arenaDuties(clusterNow time.Time) (ends []int64, pairs []arenaPairing) {
	for _, id := range rs.arenaIDs() {
		ar := rs.arenas[id]
		if ar.over {
			continue
		}
		if !clusterNow.Before(ar.info.End) {
			playing := slices.ContainsFunc(ar.order0(), func(p *arenaPlayer) bool { return p.state == ArenaPlaying })
			if !playing && rs.recording[id] == 0 {
				ends = append(ends, id)
			}
			continue
		}
		if p, ok := rs.pairDue(ar, clusterNow); ok {
			pairs = append(pairs, p)
		}
	}
	return ends, pairs
}

// free is the arena's players free to be paired (with a session, and in
// no pairing being logged) at now on this server's clock, in standings
// order, with the rank Pair takes, with rs.mu held.
func (ar *arenaRun) free(now time.Time) []arena.Free {
	order, ranks := ar.standings()
	var free []arena.Free
	for i, p := range order {
		if since, ok := ar.inFlight[p.ID]; p.state != ArenaFree || p.sid == "" || ok && now.Sub(since) < pairFlight {
			continue
		}
		rank := ranks[p.ID]
		if rank == 0 {
			rank = len(order) + i // no game yet: after everybody ranked
		}
		free = append(free, arena.Free{ID: p.ID, Rank: rank, Since: p.freeSince, Last: p.recent()})
	}
	return free
}

// pairDue pairs the arena's free players if their time came at
// clusterNow (arena.Pair), with rs.mu held: the pairing it returns is
// for pairArena once unlocked, its players in flight until the op of
// their race is applied. When nobody is due, the arena's timer is set
// for when somebody is.
func (rs *Rooms) pairDue(ar *arenaRun, clusterNow time.Time) (arenaPairing, bool) {
	if ar.over || !ar.info.PairsAt(clusterNow) {
		return arenaPairing{}, false
	}
	now := rs.cfg.Clock.Now()
	for id, since := range ar.inFlight {
		if now.Sub(since) >= pairFlight {
			delete(ar.inFlight, id)
		}
	}
	free := ar.free(now)
	groups := arena.Pair(free, clusterNow)
	if len(groups) == 0 {
		rs.wakePairing(ar, arena.PairAt(free))
		return arenaPairing{}, false
	}
	if ar.inFlight == nil {
		ar.inFlight = map[string]time.Time{}
	}
	for _, g := range groups {
		for _, id := range g {
			ar.inFlight[id] = now
		}
	}
	return arenaPairing{info: ar.info, groups: groups}, true
}

// pairFlight is how long at most a player stays in flight (inFlight):
// the op of their race was published, but this server never applied it
// (a publish that failed after all). Applied, it takes them out of
// flight whatever its verdict.
const pairFlight = 30 * time.Second

// pairRetry is the least wait of a pairing timer set for a moment
// already past (players left over from a pairing whose race could not be
// logged): the timer is not a loop around a log that refuses.
const pairRetry = 250 * time.Millisecond

// schedulePairing sets the arena's timer for the moment its free players
// are to be paired (arena.PairAt), on the lease holder, with rs.mu held:
// a player who became free is paired GatherTime later, not at the
// holder's next duties, which come only every few seconds.
func (rs *Rooms) schedulePairing(ar *arenaRun) {
	if !rs.holder.Load() || ar.over {
		return
	}
	rs.wakePairing(ar, arena.PairAt(ar.free(rs.cfg.Clock.Now())))
}

// wakePairing sets the arena's timer for at on the cluster's clock (zero:
// none needed) unless one is set for then or before, with rs.mu held.
func (rs *Rooms) wakePairing(ar *arenaRun, at time.Time) {
	if at.IsZero() || !rs.holder.Load() || ar.wake != nil && !ar.wakeAt.After(at) {
		return
	}
	if ar.wake != nil {
		ar.wake.timer.Stop()
	}
	now := rs.nowLocked()
	wait := at.Sub(now)
	if wait < pairRetry && !at.After(now) {
		wait = pairRetry
	}
	id, w := ar.info.ID, &pairWake{}
	// The timer's call waits for rs.mu, held here until w is the arena's.
	w.timer = rs.cfg.Clock.AfterFunc(wait, func() { rs.pairWoken(id, w) })
	ar.wake, ar.wakeAt = w, at
}

// pairWake is one pairing timer of an arena.
type pairWake struct{ timer Timer }

// pairWoken is an arena's pairing timer going off: the holder pairs the
// players due (pairDue), or sets the timer again.
func (rs *Rooms) pairWoken(id int64, w *pairWake) {
	rs.mu.Lock()
	ar := rs.arenas[id]
	if ar == nil || ar.wake != w {
		rs.mu.Unlock()
		return // stopped, or replaced by an earlier one
	}
	ar.wake = nil
	var p arenaPairing
	ok := false
	if rs.holder.Load() {
		p, ok = rs.pairDue(ar, rs.nowLocked())
	}
	rs.mu.Unlock()
	if ok {
		go rs.pairArena(p)
	}
}

// player returns the arena's player with this ID, or nil (a nil arena
// has none).
func (ar *arenaRun) player(id string) *arenaPlayer {
	if ar == nil {
		return nil
	}
	return ar.players[id]
}

// sessionPlayer returns the player the session (inst, sid) serves in
// the arena, or nil.
func (ar *arenaRun) sessionPlayer(inst, sid string) *arenaPlayer {
	for _, p := range ar.players {
		if p.sid == sid && p.inst == inst {
			return p
		}
	}
	return nil
}

// Pairing reports whether the lease holder is pairing free players of an
// arena now (its duties or the arena's timer started it, and it has not
// logged all its races yet): a test waits for it to be done.
func (rs *Rooms) Pairing() bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, ar := range rs.arenas {
		if len(ar.inFlight) > 0 {
			return true
		}
	}
	return false
}

// order0 is the players in any order, without sorting.
func (ar *arenaRun) order0() []*arenaPlayer {
	out := make([]*arenaPlayer, 0, len(ar.players))
	for _, p := range ar.players {
		out = append(out, p)
	}
	return out
}

// arenaPairing is the groups of an arena to pair into races.
type arenaPairing struct {
	info   ArenaInfo
	groups [][]string
}

// pairWorkers is how many races of one pairing the lease holder logs at
// once. Each waits for its op to be applied (the bus's round trip and
// the rooms' lock): one after another, the pairing of many players whose
// races ended together took as many such waits as groups.
const pairWorkers = 16

// pairArena logs a race for each group of the pairing (the lease holder,
// unlocked), pairWorkers at a time. Each group is out of flight once its
// race's op is applied (arenaPair), whatever its verdict: a player of a
// group refused (another left it) is free to be paired again at once. A
// group whose op was not logged at all is out of flight at once.
func (rs *Rooms) pairArena(p arenaPairing) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, pairWorkers)
	for _, g := range p.groups {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if !rs.pairGroup(p.info, g) {
				rs.mu.Lock()
				if ar := rs.arenas[p.info.ID]; ar != nil {
					rs.landed(ar, g)
				}
				rs.mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// pairGroup logs the race of one group of a pairing: a deal the server
// picks (ArenaDeal) in a new room. It reports whether it logged an op.
func (rs *Rooms) pairGroup(info ArenaInfo, g []string) (logged bool) {
	deal, verdict := rs.arenaDeal(info.RulesID)
	for range 5 {
		rs.mu.Lock()
		code, err := newCode(rs.cfg.Rand, func(c string) bool { return rs.rooms[c] != nil })
		at := rs.nowLocked().Add(CountdownTime)
		rs.mu.Unlock()
		if err != nil {
			rs.logf("lobby: arena %d: a room code: %v", info.ID, err)
			return logged
		}
		logged = true
		limit := info.Event().TimeLimit(at)
		err = rs.log.Do(RoomOp{Kind: OpArenaPair, Code: code, RoomID: newRoomID(), Arena: &ArenaInfo{ID: info.ID}, Players: g, At: at,
			Cfg: &OpConfig{RulesID: info.RulesID, Deal: deal, Verdict: verdict, Rated: true, TimeLimit: limit, MaxPlayers: max(len(g), MinRacers)}})
		if errors.Is(err, errCodeTaken) {
			continue // two groups drew one code: the second draws again
		}
		if err != nil && !errors.Is(err, errArenaNoPlayer) {
			rs.logf("lobby: arena %d: pair %s: %v", info.ID, strings.Join(g, ", "), err)
		}
		return logged
	}
	return logged
}

// landed takes the group of a pairing out of flight once its op was
// applied or could not be logged, with rs.mu held; whoever of it is
// still free is paired again.
func (rs *Rooms) landed(ar *arenaRun, g []string) {
	again := false
	for _, pid := range g {
		delete(ar.inFlight, pid)
		if p := ar.players[pid]; p != nil && p.state == ArenaFree {
			again = true
		}
	}
	if again {
		rs.schedulePairing(ar)
	}
}

// arenaDeal is the deal of a new arena race: RoomsConfig.ArenaDeal's, or
// a deal drawn at random without it.
func (rs *Rooms) arenaDeal(rulesID string) (uint64, engine.Verdict) {
	if rs.cfg.ArenaDeal != nil {
		return rs.cfg.ArenaDeal(rulesID)
	}
	return engine.DrawDeal(nil), engine.Unknown
}

// arenaEndOnce is the once key of an arena's end.
func arenaEndOnce(id int64) string { return "arenaend/" + strconv.FormatInt(id, 10) }

// arenaWatchers is the sinks of this server that follow arenas without
// playing in them (a web page's viewers), by arena: they hear
// ArenaChanged whenever the arena or the moves of its races change.
type arenaWatchers struct {
	mu    sync.Mutex
	sinks map[int64]map[*arenaWatch]bool
}

// arenaWatch is one sink following one arena.
type arenaWatch struct{ sink Sink }

// WatchArena has sink hear ArenaChanged{ID: id}, coalesced under
// ArenaKey(id), whenever the arena's players or standings change or a
// racer of one of its races on any server moves, until stop is called.
// It never blocks; the sink takes part in nothing.
func (rs *Rooms) WatchArena(id int64, sink Sink) (stop func()) {
	w := &arenaWatch{sink: sink}
	ws := &rs.watchers
	ws.mu.Lock()
	if ws.sinks == nil {
		ws.sinks = map[int64]map[*arenaWatch]bool{}
	}
	if ws.sinks[id] == nil {
		ws.sinks[id] = map[*arenaWatch]bool{}
	}
	ws.sinks[id][w] = true
	ws.mu.Unlock()
	return func() {
		ws.mu.Lock()
		defer ws.mu.Unlock()
		delete(ws.sinks[id], w)
		if len(ws.sinks[id]) == 0 {
			delete(ws.sinks, id)
		}
	}
}

// arenaWatched tells the arena's watchers that it changed.
func (rs *Rooms) arenaWatched(id int64) {
	ws := &rs.watchers
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if len(ws.sinks[id]) == 0 {
		return
	}
	var ev Event = ArenaChanged{ID: id}
	key := ArenaKey(id)
	for w := range ws.sinks[id] {
		w.sink.Coalesce(key, ev)
	}
}
