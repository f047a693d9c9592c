package tui

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
	"pyramid/lobby"
)

// The race screen: a room's waiting room, its countdown, the race (the
// player's own game drawn through a table, with a panel of every racer)
// and the results, with the room's chat under each. The room lives on
// the server (Deps.Races); its events come through the inbox as
// RaceEventMsg.

// Replies of the race screen's commands, and its own events.
type (
	// raceSeatMsg brings the player's seat in a room (or why not).
	raceSeatMsg struct {
		seat RaceSeat
		err  error
		// refresh: the seat asked for again after missed events.
		refresh bool
		// joined is the code of a room the player asked to join; late is
		// set for a room whose race had started when they asked, which
		// they watch instead.
		joined string
		late   bool
	}
	// raceDoneMsg is the reply of a room call; play is set for the
	// reports of the game, chat for a chat line's or command's (its
	// error goes with the next key or line).
	raceDoneMsg struct {
		what  string
		note  string
		err   error
		chat  bool
		play  bool
		seq   int // of a report
		round int // of a report
	}
	// raceClockMsg brings the clock's reading for the countdown and the
	// time left: the tick's command reads the clock once the tick has
	// come (env.wait).
	raceClockMsg struct {
		now time.Time
		// slack: the frame may wait (FrameSlack) for another that goes
		// out anyway: a tick of the race's time left, not of the
		// countdown.
		slack bool
	}
	// menuRaceMsg: the menu's New race… (join false), Join a race… or
	// Back to race CODE (code set).
	menuRaceMsg struct {
		join  bool
		code  string
		watch bool   // watch the room code (the Lobby's w on a racer)
		racer string // the racer whose board a spectator sees first (a player ID)
	}
	// raceMovedMsg: the seat in room from went to another session of
	// the player, which is seated in room into now (empty: in none).
	raceMovedMsg struct{ from, into string }
	// raceSeatedMsg brings the code of the room the player has a seat
	// in, or "", for the menu; with no seat, ended is the room of the
	// player's last race when it ended without them (Races.Ended), or "".
	raceSeatedMsg struct{ code, ended string }
	// raceBoardMsg brings a racer's game, for a spectator.
	raceBoardMsg struct {
		id  string
		rec engine.Record
		err error
	}
)

// The race screen's replies and the room's events name the screen they
// are for (routed): the root hands them to it whether or not it shows,
// and drops them once the player left the room.
func (RaceEventMsg) to() screenID   { return screenRace }
func (raceSeatMsg) to() screenID    { return screenRace }
func (raceDoneMsg) to() screenID    { return screenRace }
func (raceClockMsg) to() screenID   { return screenRace }
func (raceMovedMsg) to() screenID   { return screenRace }
func (raceBoardMsg) to() screenID   { return screenRace }
func (ghostLoadedMsg) to() screenID { return screenRace }
func (ghostTickMsg) to() screenID   { return screenRace }
func (ghostClockMsg) to() screenID  { return screenRace }
func (ghostPlayedMsg) to() screenID { return screenRace }

// raceTimeout bounds a room call that may wait on the solver or the
// store (a new room, a rematch, a report).
const raceTimeout = 20 * time.Second

// How the frames after a room's events and the race clock's ticks are
// paced (the session's renderer asks: server.FrameGapper and
// server.FrameSlacker). A racer's opponents move several times a second,
// the clock ticks once a second and the racer's own keys come more often
// still; every frame is a render and a write, so what only changes the
// panel shares a frame where it can.
const (
	// raceEventGap is the least time between the last frame and the
	// frame of an opponent's progress, a chat line or a new snapshot of
	// the room: one that comes alone is drawn at once, those that come
	// close behind another frame wait for the gap and share a frame. It
	// is short enough for the panel to read as live.
	raceEventGap = 50 * time.Millisecond
	// raceTickSlack is a tick of the race's time left: the seconds go
	// on once a second, each shown with the next frame that goes out
	// within raceTickSlack (the tick's phase is the session's, not the
	// deadline's, so the second shown was up to a second late anyway).
	raceTickSlack = clockTickSlack
)

// FrameSlack is how long the frame after a tick may wait (see
// raceTickSlack; server.FrameSlacker); the countdown's ticks go at once.
func (msg raceClockMsg) FrameSlack() time.Duration {
	if msg.slack {
		return raceTickSlack
	}
	return 0
}

// slackEvent reports whether msg is a room event whose frame is paced by
// raceEventGap: one that only changes the panel, the chat or the room's
// line. The start, the end, a seat taken over and a closed room
// go at once.
func slackEvent(msg tea.Msg) bool {
	ev, ok := msg.(RaceEventMsg)
	if !ok {
		return false
	}
	switch ev.Event.(type) {
	case lobby.RacerProgress, lobby.ChatLine, lobby.RoomChanged:
		return true
	}
	return false
}

// raceStage is how far the player is on the way into a room.
type raceStage uint8

const (
	stageJoining raceStage = iota // the seat (or the ghost) is on its way
	stageCode                     // the join form: type a code
	stageRoom                     // in a room: the room's phase decides
)

// raceMode is the race screen's state: what it shows and what its keys
// do (key hands each to its own method). It follows from the stage, the
// player's part in the room and the room's phase, which the server
// decides (mode).
type raceMode uint8

const (
	modeJoining    raceMode = iota // the seat (or the ghost) is on its way: q goes back
	modeCode                       // the join form: the player types a room's code
	modeWaiting                    // the waiting room and its countdown: ready, start, chat
	modeRacing                     // the player's own game, with the panel and the chat
	modeSpectating                 // a spectator's view of the room, a racer's board while the race runs
	modeResults                    // the results (a closed room's, as stored, when over): rematch, chat
)

// mode is the screen's state now.
func (rs *raceScreen) mode() raceMode {
	switch {
	case rs.stage == stageJoining:
		return modeJoining
	case rs.stage == stageCode:
		return modeCode
	case rs.watching:
		return modeSpectating
	}
	switch rs.snap.Phase {
	case lobby.PhaseRacing:
		if rs.table != nil {
			return modeRacing
		}
	case lobby.PhaseResults:
		return modeResults
	}
	return modeWaiting // the race's deal did not come: the room shows
}

// raceScreen is the race screen. It is built when the player asks for a
// race and let go of when they leave the room.
type raceScreen struct {
	// par is the race deal's par once the analyst knows it (par.go), 0
	// until then; parRound is the round it was asked for, plus one (0:
	// not asked yet).
	par, parRound int

	chrome
	races  Races
	scheme KeyScheme
	stage  raceStage
	req    *raceReq // the request to send at Init (a deep link)

	you string // the player's ID in the room; empty for a spectator
	// takenWhileJoining is the code of a room whose SeatTakenOver came
	// before the seat did (another session of the player joined it in the
	// same moment): the seat, when it comes, is that session's already.
	takenWhileJoining string
	// over: the room is gone and the screen shows its last race's stored
	// results (RaceSeat.Over): no rematch, no chat; guests raced too
	// (RaceSeat.Guests).
	over   bool
	guests int
	// watching is set for a spectator, who sees the board of the racer
	// watched (an ID of snap.Members).
	watching bool
	watched  string
	snap     lobby.Snapshot
	racers   []lobby.Racer // snap.Members with the progress since
	// chat is the room's lines and the screen's own (race_chat.go),
	// oldest first; chatBack is how many of its rows the player scrolled
	// back, chatErr the chat's error on the message line, which the next
	// key or line takes off.
	chat     []lobby.ChatLine
	chatBack int
	chatErr  string

	// The player's game of the current round, nil outside a race.
	table *tableScreen
	round int
	seq   int
	// held is the table as it was before the first change the server
	// has not taken yet (hold.go): a move shows once the server has it,
	// stored and told to the room. One report is in flight at a time
	// (sending), so that the store sees the game's changes in order; a
	// change made meanwhile waits in next, the newest only.
	held    heldTable
	sending bool
	next    *raceReport
	// mineHeld is the player's own line of the panel as the room last
	// told it while a change was held: it shows with the board once the
	// server has every change (the room tells it before the store
	// answers), so that a move is one frame, not two.
	mineHeld *lobby.RacerProgress

	now     time.Time
	ticking bool

	input     Prompt // the chat line, or the join form's code
	inputOpen bool
	leaving   bool // q was pressed once during the race

	keys    raceKeys
	bar     *helpBar
	barKeys []key.Binding // raceBar's, drawn at once
	// vc keeps the race frame's parts (race_frame.go), nil until the
	// race first shows.
	vc *raceFrame

	// ghost is set in a ghost race (ghost.go): a race against a recorded
	// game, which no room holds.
	ghost *ghostRun

	// ar is what the screen keeps of an arena's race (race_arena.go).
	ar arenaRace
}

// raceKeys are the race screen's own keys.
type raceKeys struct {
	Chat, Ready, Start, Rematch, Leave, Help key.Binding
}

func newRaceKeys() raceKeys {
	return raceKeys{
		Chat:    key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "chat")),
		Ready:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "ready")),
		Start:   key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "start")),
		Rematch: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "rematch")),
		Leave:   key.NewBinding(key.WithKeys("q", "esc"), key.WithHelp("q", "leave")),
		Help:    key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
	}
}

// setScheme moves the race's table with the keys of s from now on.
func (rs *raceScreen) setScheme(s KeyScheme) {
	rs.scheme = s
	if rs.table != nil {
		rs.table.setScheme(s)
	}
}

func newRaceScreen(e *env, races Races, scheme KeyScheme, w, h int) *raceScreen {
	return &raceScreen{chrome: chrome{env: e, w: w, h: h}, races: races, scheme: scheme,
		keys: newRaceKeys(), bar: newHelpBar(), input: Prompt{Label: "say: "}}
}

// The model's side: requests, replies and events.

// race returns the race screen, or nil.
func (m *Model) race() *raceScreen {
	r, _ := m.screens[screenRace].(*raceScreen)
	return r
}

// raceLink takes a race deep link at the start of the session: the race
// screen shows at once, and Init sends the request.
func (m *Model) raceLink(args []string) {
	if len(args) > 1 && strings.EqualFold(args[1], "ghost") {
		m.ghostLink(args[2:]) // ghost.go
		return
	}
	if m.env.races == nil {
		m.menu().say(sErr, "this server has no race rooms")
		return
	}
	req, err := parseRaceLink(args[1:])
	if err != nil {
		m.menu().say(sErr, clean(err.Error(), 300))
		return
	}
	rs := newRaceScreen(m.env, m.env.races, m.menu().Scheme, m.w, m.h)
	rs.req = &req
	m.screens[screenRace] = rs
	m.show(screenRace)
}

// raceInit is the command that sends the deep link's request, or asks
// whether the player has a seat in a race (one they dropped out of).
func (m *Model) raceInit() tea.Cmd {
	rs := m.race()
	if rs != nil && rs.ghost != nil && rs.stage == stageJoining {
		return tea.Batch(rs.ghostLoad(), m.env.askSeated()) // ghost.go
	}
	if rs == nil || rs.req == nil {
		return m.env.askSeated()
	}
	req := *rs.req
	rs.req = nil
	return rs.ask(req)
}

// openRace shows the race screen for what the menu, the Lobby or a
// spectate request asked: a new room, the join form, a room by its code,
// or a room to watch. A player in a room goes back to it.
func (m *Model) openRace(mr menuRaceMsg) tea.Cmd {
	if m.env.races == nil {
		return nil
	}
	rs := m.race()
	if rs == nil || rs.stage != stageRoom {
		rs = newRaceScreen(m.env, m.env.races, m.menu().Scheme, m.w, m.h)
		m.screens[screenRace] = rs
	}
	m.show(screenRace)
	switch {
	case rs.stage == stageRoom:
		return nil // back to the room the player is in
	case mr.watch:
		rs.watched = mr.racer
		return rs.ask(raceReq{kind: raceWatch, code: mr.code})
	case mr.code != "":
		return rs.ask(raceReq{kind: raceJoin, code: mr.code})
	case mr.join:
		rs.openCode()
		return nil
	}
	return rs.ask(raceReq{kind: raceNew, opt: RoomOptions{Rules: m.menu().ownRules()}})
}

// raceLeft is the root's part when the player leaves the race screen.
func (m *Model) raceLeft(msg raceLeftMsg) tea.Cmd {
	if m.inArena() {
		return m.arenaBack(msg) // race_arena.go
	}
	if rs := m.race(); rs != nil && rs.mode() == modeResults && rs.ghost == nil {
		m.menu().leftRoom(rs.snap.Code) // seen: the menu offers them no more
	}
	m.screens[screenRace] = nil
	m.show(screenMenu)
	if msg.text != "" {
		m.menu().say(msg.st, clean(msg.text, 200))
	}
	m.setContinue()
	if msg.asked {
		return nil // the leave asks, once the seat is left
	}
	return m.env.askSeated()
}

// raceLeftMsg: the race screen closed, saying why.
type raceLeftMsg struct {
	st   styleID
	text string
	// asked: the leave's command brings the seat the player has after
	// it (raceSeatedMsg), so the root asks for none.
	asked bool
}

// The screen.

// ask sends a request for a seat.
func (rs *raceScreen) ask(req raceReq) tea.Cmd {
	rs.stage = stageJoining
	rs.msg = ""
	rs.watching = req.kind == raceWatch
	races, ctx := rs.races, rs.env.ctx
	return func() tea.Msg {
		seat, err := takeSeat(ctx, races, req)
		msg := raceSeatMsg{seat: seat, err: err, late: req.late}
		if req.kind == raceJoin {
			msg.joined = req.code
		}
		return msg
	}
}

// takeSeat makes the room call a request asks for, within raceTimeout.
func takeSeat(ctx context.Context, races Races, req raceReq) (RaceSeat, error) {
	ctx, cancel := context.WithTimeout(ctx, raceTimeout)
	defer cancel()
	switch req.kind {
	case raceNew:
		return races.Create(ctx, req.opt)
	case raceJoin:
		return races.Join(ctx, req.code)
	case raceWatch:
		return races.Watch(ctx, req.code)
	}
	return races.Quick(ctx)
}

// refresh asks for the room again, after the session missed some of its
// events: the seat (or the view) is the session's already, so this only
// brings the room as it stands.
func (rs *raceScreen) refresh() tea.Cmd {
	req := raceReq{kind: raceJoin, code: rs.snap.Code}
	if rs.watching {
		req.kind = raceWatch
	}
	races, ctx := rs.races, rs.env.ctx
	return func() tea.Msg {
		seat, err := takeSeat(ctx, races, req)
		return raceSeatMsg{seat: seat, err: err, refresh: true}
	}
}

// openCode shows the join form.
func (rs *raceScreen) openCode() {
	rs.stage = stageCode
	rs.input = Prompt{Label: "room code: "}
	rs.inputOpen = true
}

// call runs a room call in a command.
func (rs *raceScreen) call(what string, f func() error) tea.Cmd {
	return func() tea.Msg { return raceDoneMsg{what: what, err: f()} }
}

// update handles keys, the room's events and the replies.
func (rs *raceScreen) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	if rs.ghost != nil {
		cmd = rs.ghostUpdate(msg) // ghost.go
		rs.layOut()
		return cmd
	}
	switch msg := msg.(type) {
	case raceSeatMsg:
		cmd = rs.seated(msg)
	case raceBoardMsg:
		rs.board(msg)
	case RaceEventMsg:
		cmd = rs.onEvent(msg.Event)
	case raceDoneMsg:
		cmd = rs.done(msg)
	case raceMovedMsg:
		if msg.from == rs.snap.Code {
			rs.event = raceLeftMsg{st: sWarn, text: msg.text()}
		}
	case raceClockMsg:
		rs.now = msg.now
		rs.ticking = false
		cmd = rs.tick()
	case tea.KeyMsg:
		cmd = rs.key(msg)
	case tea.MouseMsg:
		if rs.racing() && !rs.inputOpen {
			cmd = rs.toTable(msg)
		}
	case parMsg:
		if msg.key == rs.round {
			rs.par = msg.par
		}
	case arenaNextMsg:
		cmd = rs.arenaNext(msg) // race_arena.go
	}
	cmd = tea.Batch(cmd, rs.armNext())
	if t := rs.table; t != nil && rs.parRound != rs.round+1 {
		// A new race deal: ask for its par, which the results show.
		rs.parRound, rs.par = rs.round+1, 0
		cmd = tea.Batch(cmd, rs.env.askPar(screenRace, rs.round, t.game.Rules(), t.game.Deal()))
	}
	rs.showMine()
	rs.layOut()
	return cmd
}

// seated takes the seat the server gave, or says why there is none.
func (rs *raceScreen) seated(msg raceSeatMsg) tea.Cmd {
	if msg.refresh {
		if msg.err == nil && msg.seat.Snapshot.Code == rs.snap.Code {
			rs.chat = mergeChat(rs.chat, msg.seat.Snapshot.Chat)
			rs.setSnap(msg.seat.Snapshot, msg.seat.Resume)
		}
		return rs.tick()
	}
	if msg.joined != "" && errors.Is(msg.err, lobby.ErrRaceUnderway) {
		// A room whose race started before the player got in (the
		// Lobby listed it waiting): they watch it.
		return rs.ask(raceReq{kind: raceWatch, code: msg.joined, late: true})
	}
	if msg.err != nil {
		rs.event = raceLeftMsg{st: sErr, text: Reason(msg.err)}
		return nil
	}
	if taken := rs.takenWhileJoining; taken != "" {
		rs.takenWhileJoining = ""
		if taken == msg.seat.Snapshot.Code {
			// Another session took this seat over before this one had it.
			rs.snap.Code = taken
			return rs.seatMoved(taken)
		}
	}
	rs.stage = stageRoom
	rs.inputOpen = false
	rs.you = msg.seat.You
	rs.over, rs.guests = msg.seat.Over, msg.seat.Guests
	rs.chat, rs.chatBack = slices.Clone(msg.seat.Snapshot.Chat), 0
	rs.snap = lobby.Snapshot{}
	rs.setSnap(msg.seat.Snapshot, msg.seat.Resume)
	rs.seq = max(rs.seq, msg.seat.Seq)
	if rs.watching && msg.late {
		rs.say(sInfo, "the race in room "+msg.seat.Snapshot.Code+" had started: you watch it (tab: the next racer's board)")
		return tea.Batch(rs.tick(), rs.fetchBoard())
	}
	if rs.watching {
		rs.say(sInfo, "you watch room "+msg.seat.Snapshot.Code+": tab switches between the racers' boards")
		return tea.Batch(rs.tick(), rs.fetchBoard())
	}
	switch msg.seat.Snapshot.Phase {
	case lobby.PhaseWaiting, lobby.PhaseCountdown:
		if rs.inArenaRoom() {
			rs.say(sInfo, "paired: b before the start goes berserk (no undo, +1 on a clear)")
		} else if msg.seat.Snapshot.Phase == lobby.PhaseWaiting {
			rs.say(sInfo, "room "+msg.seat.Snapshot.Code+": share the code (c copies it); r marks you ready")
		}
	case lobby.PhaseRacing:
		if msg.seat.Resume != nil {
			rs.say(sInfo, "welcome back: your race game is as you left it")
		}
	}
	return rs.tick()
}

// setSnap takes a snapshot of the room (resume is the player's game, on a
// comeback): the game is dealt when the race starts.
func (rs *raceScreen) setSnap(s lobby.Snapshot, resume *engine.Record) {
	if s.Seq < rs.snap.Seq && s.Round == rs.snap.Round {
		return // an older one came late
	}
	// An arena's room has a host in name only (the arena starts its
	// races, and there is no rematch): its passing is not news.
	if prev := rs.snap.Host; prev != "" && prev != s.Host && s.Host == rs.you && rs.you != "" && s.Code == rs.snap.Code && s.Arena.ID == 0 {
		rs.say(sInfo, "you host the room now: s starts the race once everybody is ready")
	}
	rs.snap = s
	if rs.table != nil && rs.round == s.Round {
		rs.table.raceOver = s.DealShown()
	}
	rs.racers = slices.Clone(s.Members)
	rs.mineHeld = nil // the snapshot's line of the player is as new
	switch s.Phase {
	case lobby.PhaseWaiting:
		if rs.table != nil && rs.round != s.Round {
			rs.table = nil // a rematch: a new deal comes with the next start
			if rs.watching {
				rs.say(sInfo, "a rematch on a new deal: the race shows here when the host starts it")
			} else {
				rs.say(sInfo, "a rematch on a new deal: r marks you ready")
			}
		}
	case lobby.PhaseRacing, lobby.PhaseResults:
		if rs.table == nil || rs.round != s.Round {
			rs.deal(s, resume)
		}
	}
}

// deal seats the player's game of the race.
func (rs *raceScreen) deal(s lobby.Snapshot, resume *engine.Record) {
	r, err := engine.ParseRules(s.RulesID)
	if err != nil {
		rs.say(sErr, clean("the race's rules: "+err.Error(), 200))
		return
	}
	var g *engine.Game
	if resume != nil && resume.Rules == s.RulesID && resume.Deal == s.Deal {
		g, err = engine.Replay(*resume)
	}
	if g == nil || err != nil {
		if g, err = engine.NewNumbered(r, s.Deal); err != nil {
			rs.say(sErr, clean("the race's deal: "+err.Error(), 200))
			return
		}
	}
	title, hidden := rs.raceTitles(r, g.Deal()) // race_arena.go: an arena's names it
	t := rs.newRaceTable(g, s, title)
	t.hideDeal(!s.Rated, hidden)
	rs.table, rs.round, rs.next = t, s.Round, nil
	rs.held.drop()
}

// newRaceTable is a table for a game of the room's round s.Round, the
// player's own or a watched racer's, under title.
func (rs *raceScreen) newRaceTable(g *engine.Game, s lobby.Snapshot, title string) *tableScreen {
	t := newTable(rs.env, rs.scheme, g, -1000-s.Round, "", 0, rs.w, rs.h)
	t.title, t.undoLimit = title, "a race"
	t.hideDeal(true, "") // the title names no deal: the caller hides one it names
	t.raceTable, t.raceOver = true, s.DealShown()
	// The verdict is the room's: the table asks the solver nothing.
	t.answer = answerOf(s.Verdict, nil)
	return t
}

// event takes one of the room's events.
func (rs *raceScreen) onEvent(ev lobby.Event) tea.Cmd {
	switch ev := ev.(type) {
	case lobby.RoomChanged:
		if ev.Snapshot.Code == rs.snap.Code {
			rs.setSnap(ev.Snapshot, nil)
		}
	case lobby.RacerProgress:
		if ev.Code == rs.snap.Code && ev.Round == rs.snap.Round && ev.Racer.ID == rs.you && rs.held.shown != nil && !rs.watching {
			mine := ev          // a copy: taking ev's own address would put every event of this case on the heap
			rs.mineHeld = &mine // shown with the board (showMine)
			break
		}
		if ev.Code == rs.snap.Code && ev.Round == rs.snap.Round {
			for i := range rs.racers {
				if rs.racers[i].ID == ev.Racer.ID {
					rs.racers[i] = ev.Racer
				}
			}
			if rs.watching && ev.Racer.ID == rs.watched {
				return tea.Batch(rs.tick(), rs.fetchBoard())
			}
		}
	case lobby.CountdownStarted:
		if ev.Code == rs.snap.Code {
			rs.snap.StartsAt = ev.StartsAt
			rs.say(sInfo, "get ready!")
		}
	case lobby.RaceStarted:
		if ev.Code == rs.snap.Code && ev.Round == rs.snap.Round {
			rs.snap.Phase, rs.snap.Deadline = lobby.PhaseRacing, ev.Deadline
			if rs.table == nil || rs.round != ev.Round {
				rs.deal(rs.snap, nil)
			}
			if rs.watching {
				rs.say(sOK, "the race is on: tab switches between the racers' boards")
				return tea.Batch(rs.tick(), rs.fetchBoard())
			}
			rs.say(sOK, "go!")
		}
	case lobby.RaceEnded:
		if ev.Code == rs.snap.Code && ev.Round == rs.snap.Round {
			rs.snap.Phase, rs.snap.Results = lobby.PhaseResults, ev.Results
			rs.inputOpen = false
			if rs.inArenaRoom() && !rs.watching {
				rs.say(sInfo, "the race is over: next game soon")
			} else {
				rs.say(sInfo, "the race is over")
			}
		}
	case lobby.ChatLine:
		if ev.Code == rs.snap.Code && ev.FromID != "" {
			rs.clearChatErr()
			rs.addChat(ev)
		}
	case lobby.RaceVoided:
		if ev.Code == rs.snap.Code && ev.Round == rs.snap.Round {
			rs.say(sWarn, voidedNote(ev.Outage))
		}
	case lobby.HostPassed:
		if ev.Code == rs.snap.Code {
			if ev.ToID == rs.you && !rs.watching {
				rs.say(sInfo, clean(ev.From, 16)+" was idle: you host the room now; s starts the race once everybody is ready")
			} else {
				rs.say(sInfo, clean(ev.From, 16)+" was idle: "+clean(ev.To, 16)+" hosts the room now")
			}
		}
	case lobby.SeatTakenOver:
		if rs.stage == stageJoining {
			rs.takenWhileJoining = ev.Code
			return nil
		}
		if ev.Code == rs.snap.Code {
			if rs.watching {
				rs.event = raceLeftMsg{st: sWarn, text: "you watch room " + ev.Code + " in another session"}
				return nil
			}
			// Another session of the player took the seat over, or went
			// into another room (one room at a time): the room the player
			// is seated in now tells which.
			return rs.seatMoved(ev.Code)
		}
	case lobby.RoomClosed:
		if ev.Code == rs.snap.Code && rs.inArenaRoom() && rs.mode() == modeResults {
			break // an arena's room closes after its race: the results stay until the arena shows
		}
		if ev.Code == rs.snap.Code {
			rs.event = raceLeftMsg{st: sWarn, text: "room " + ev.Code + " closed: " + ev.Reason}
		}
	case lobby.Removed:
		if ev.Code == rs.snap.Code {
			rs.event = raceLeftMsg{st: sWarn, text: "the host removed you from room " + ev.Code}
		}
	case lobby.Forfeited:
		if ev.Code == rs.snap.Code && ev.Round == rs.snap.Round && !rs.watching {
			rs.event = raceLeftMsg{st: sWarn, text: forfeitNote} // race_arena.go
		}
	case lobby.Missed:
		if ev.Code == rs.snap.Code {
			return rs.refresh()
		}
	}
	return rs.tick()
}

// voidedNote is what a racer reads when the race is to count for nobody
// (lobby.RaceVoided): a server of the race lost the database for outage.
func voidedNote(outage time.Duration) string {
	const what = "this race will not count: the database was out of reach"
	if outage < time.Second {
		return what + " for a while"
	}
	return what + " for " + outage.Round(time.Second).String()
}

// seatMoved asks where the seat in room from went: to another session
// of the player in that room, or with them into another room.
func (rs *raceScreen) seatMoved(from string) tea.Cmd {
	races := rs.races
	return func() tea.Msg {
		to, _ := races.Seated()
		return raceMovedMsg{from: from, into: to}
	}
}

// text says where the player's race went.
func (msg raceMovedMsg) text() string {
	if msg.into != "" && msg.into != msg.from {
		return "you left room " + msg.from + " for room " + msg.into + " in another session"
	}
	return "your race continues in another session"
}

// done takes the reply of a room call.
func (rs *raceScreen) done(msg raceDoneMsg) tea.Cmd {
	if msg.play {
		return rs.reported(msg)
	}
	if msg.what == berserkWhat {
		rs.berserkDone(msg) // race_arena.go
		return nil
	}
	switch {
	case errors.Is(msg.err, ErrTakenOver):
		rs.event = raceLeftMsg{st: sWarn, text: "your race continues in another session"}
	case msg.err != nil && msg.chat:
		rs.chatError(clean(msg.what+": "+msg.err.Error(), 200))
	case msg.err != nil:
		rs.say(sErr, clean(msg.what+": "+Reason(msg.err), 200))
	case msg.note != "":
		rs.say(sWarn, clean(msg.note, 300))
	}
	return nil
}

// tick keeps the clock going while the countdown or the race runs.
func (rs *raceScreen) tick() tea.Cmd {
	if mode := rs.mode(); rs.ticking || mode == modeJoining || mode == modeCode {
		return nil
	}
	var d time.Duration
	switch rs.snap.Phase {
	case lobby.PhaseCountdown:
		d = countdownTick(rs.now, rs.snap.StartsAt)
	case lobby.PhaseRacing:
		d = time.Second
	default:
		return nil
	}
	rs.ticking = true
	// One command waits and reads the clock: one message a tick, not a
	// tick and then its reading (every racer of the server ticks).
	now, slack := rs.env.now, rs.snap.Phase == lobby.PhaseRacing
	return rs.env.wait(d, func() tea.Msg { return raceClockMsg{now: now(), slack: slack} })
}

// countdownTick is the wait from now for the countdown's next reading:
// a moment after the second it shows changes, which is the only reading
// that changes the screen (every racer of a race counts down at once).
// Without a reading yet, or past the start (the race's start comes as
// an event), it reads again in a fifth of a second.
func countdownTick(now, startsAt time.Time) time.Duration {
	left := startsAt.Sub(now)
	if now.IsZero() || left <= 0 {
		return 200 * time.Millisecond
	}
	d := left % time.Second
	if d == 0 {
		d = time.Second
	}
	return min(d+countdownLate, time.Second)
}

// countdownShown is the second the countdown shows: the seconds left,
// rounded up, at most the countdown's length (all of it before the
// first reading).
func (rs *raceScreen) countdownShown() int {
	n := countdownSecond(rs.snap.StartsAt.Sub(rs.now))
	if rs.now.IsZero() || n > int(lobby.CountdownTime/time.Second) {
		n = int(lobby.CountdownTime / time.Second)
	}
	return max(n, 0)
}

// countdownSecond is the second a countdown with left to go shows.
func countdownSecond(left time.Duration) int { return int((left + time.Second - 1) / time.Second) }

// countdownLate is how long after the countdown's second changes it is
// read: a timer that fires a little early would read the old second.
const countdownLate = 20 * time.Millisecond

// setSize lays the screen out.
func (rs *raceScreen) setSize(w, h int) {
	rs.w, rs.h = w, h
	rs.layOut()
}

// setEnv draws with another env.
func (rs *raceScreen) setEnv(e *env) {
	rs.env = e
	if rs.table != nil {
		rs.table.setEnv(e)
	}
	rs.held.setEnv(e)
	rs.layOut()
}
