package tui

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"pyramid/arena"
	"pyramid/lobby"
)

// The arena screen: the list of arenas (the menu's Arenas), the arena the
// player joined (its standings, the player's state, the top game to
// watch) and its results once it is over. The arena lives on the server
// (Deps.Arenas); its events come through the inbox as ArenaEventMsg. The
// races it pairs the player into are played on the race screen
// (race_arena.go), which comes back here after each.

// Replies of the arena screen's commands, and its own events.
type (
	// arenaListMsg brings the arenas to list, and the clock's reading
	// when they came (for "starts in", "left").
	arenaListMsg struct {
		events []arena.Event
		now    time.Time
		err    error
	}
	// arenaViewMsg brings the arena as it stands for the player; local
	// is the session's clock when it came, which the view's Now is
	// measured against (the time left ticks on the session's clock).
	// join is set for the answer of a join.
	arenaViewMsg struct {
		id    int64
		view  lobby.ArenaView
		local time.Time
		err   error
		join  bool
	}
	// arenaDoneMsg is the reply of a pause or resume.
	arenaDoneMsg struct {
		what string
		err  error
	}
	// arenaClockMsg is a tick of the arena's time left.
	arenaClockMsg struct{ now time.Time }
	// arenaLeftMsg is the reply of the player's leave, for the menu,
	// which shows by then.
	arenaLeftMsg struct{ err error }
	// menuArenasMsg: the menu's Arenas.
	menuArenasMsg struct{}
	// arenaPairedMsg: the server paired the player into the race in
	// room code.
	arenaPairedMsg struct{ code string }
	// arenaWatchMsg: the player watches the arena's top game, in room
	// code.
	arenaWatchMsg struct{ code string }
	// arenaMenuMsg: the player goes from the arena screen back to the
	// menu.
	arenaMenuMsg struct{}
	// arenaPointsMsg: the player's points changed, for the header of
	// the arena race that shows.
	arenaPointsMsg struct{ points int }
)

func (ArenaEventMsg) to() screenID { return screenArena }
func (arenaListMsg) to() screenID  { return screenArena }
func (arenaViewMsg) to() screenID  { return screenArena }
func (arenaDoneMsg) to() screenID  { return screenArena }
func (arenaClockMsg) to() screenID { return screenArena }
func (arenaLeftMsg) to() screenID  { return screenMenu }

// FrameSlack is how long the frame after a tick of the arena's time
// left may wait for another (server.FrameSlacker), as the race's ticks.
func (arenaClockMsg) FrameSlack() time.Duration { return clockTickSlack }

// arenaTimeout bounds an arena call that may wait.
const arenaTimeout = 10 * time.Second

// arenaStage is what the arena screen shows.
type arenaStage uint8

const (
	arenaListing arenaStage = iota // the list of arenas
	arenaJoining                   // a join is on its way
	arenaIn                        // the arena the player joined
	arenaOver                      // the arena's results
)

// arenaScreen is the arena screen. It is built when the player opens the
// menu's Arenas and let go of when they go back to the menu; while the
// player races, it waits under the race screen and takes the arena's
// events.
type arenaScreen struct {
	chrome
	arenas Arenas
	stage  arenaStage

	// The list: the arenas, the clock when they came, the cursor.
	list    []arena.Event
	listNow time.Time
	loaded  bool
	cur     int
	// awaiting is the arena the player asked to join before it started:
	// the screen joins it as it starts.
	awaiting int64

	// id is the arena joined; av its last view, from which name and
	// rules come; offset is the view's clock less the session's, so
	// that now (the cluster's time as the screen shows it) ticks on the
	// session's clock.
	id      int64
	av      lobby.ArenaView
	hasView bool
	offset  time.Duration
	now     time.Time
	ticking bool
	// shown is whether the screen shows: a hidden one does not tick.
	shown bool

	keys arenaKeys
	bar  *helpBar
}

// arenaKeys are the arena screen's keys.
type arenaKeys struct {
	Up, Down, Join, Watch, Pause, Leave, Menu key.Binding
}

func newArenaKeys(gl *glyphs) arenaKeys {
	k := arenaKeys{
		Up:    key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓", "choose")),
		Down:  key.NewBinding(key.WithKeys("down", "j")),
		Join:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "join")),
		Watch: key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "watch")),
		Pause: key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pause")),
		Leave: key.NewBinding(key.WithKeys("q", "esc"), key.WithHelp("q", "leave")),
		Menu:  key.NewBinding(key.WithKeys("q", "esc", "enter"), key.WithHelp("q", "menu")),
	}
	if !gl.unicode {
		k.Up.SetHelp("up/down", "choose")
	}
	return k
}

func newArenaScreen(e *env, w, h int) *arenaScreen {
	return &arenaScreen{chrome: chrome{env: e, w: w, h: h}, arenas: e.arenas, keys: newArenaKeys(e.gl), bar: newHelpBar()}
}

// setEnv draws the screen with the glyphs of e.
func (a *arenaScreen) setEnv(e *env) {
	a.env = e
	a.keys = newArenaKeys(e.gl)
}

// The model's side.

// arena returns the arena screen, or nil.
func (m *Model) arena() *arenaScreen {
	a, _ := m.screens[screenArena].(*arenaScreen)
	return a
}

// inArena reports whether the player is in an arena (or at its
// results): leaving a race goes back to it.
func (m *Model) inArena() bool {
	a := m.arena()
	return a != nil && (a.stage == arenaIn || a.stage == arenaOver)
}

// openArenas shows the list of arenas; a player in an arena goes back
// to it.
func (m *Model) openArenas() tea.Cmd {
	if m.env.arenas == nil {
		return nil
	}
	if m.inArena() {
		return m.showArena()
	}
	a := newArenaScreen(m.env, m.w, m.h)
	m.screens[screenArena] = a
	m.show(screenArena)
	a.shown = true
	return a.loadList()
}

// showArena shows the arena screen again (back from a race or a watched
// game), with its view asked anew.
func (m *Model) showArena() tea.Cmd {
	a := m.arena()
	if a == nil {
		m.show(screenMenu)
		return nil
	}
	m.screens[screenRace] = nil
	m.show(screenArena)
	a.shown = true
	a.msg = "" // what it said before the race is old news
	return tea.Batch(a.askView(), a.tick())
}

// arenaMenu takes the player from the arena screen back to the menu.
func (m *Model) arenaMenu() {
	m.screens[screenArena] = nil
	m.show(screenMenu)
	m.setContinue()
}

// openArenaRace opens the race screen for the arena race in room code
// (the server seated the player already: Join returns the seat). A room
// the race screen shows (the last race's results, a game watched) is
// left first; a race the player still plays is not given up for it.
func (m *Model) openArenaRace(code string) tea.Cmd {
	races := m.env.races
	if races == nil {
		if a := m.arena(); a != nil {
			a.say(sErr, "paired into room "+clean(code, 8)+", but this server has no race rooms")
		}
		return nil
	}
	old := ""
	if rs := m.race(); rs != nil {
		if rs.snap.Code == code && rs.stage == stageRoom {
			return nil // the same room: the event came twice
		}
		if rs.racing() {
			return nil
		}
		if rs.stage == stageRoom && !rs.over {
			old = rs.snap.Code
		}
	}
	rs := newRaceScreen(m.env, races, m.menu().Scheme, m.w, m.h)
	if a := m.arena(); a != nil && a.hasView && a.av.You.ID != "" {
		rs.ar.points, rs.ar.hasPoints = a.av.You.Points, true
	}
	m.screens[screenRace] = rs
	if a := m.arena(); a != nil {
		a.shown = false // its tick on the way stops
	}
	m.show(screenRace)
	req := raceReq{kind: raceJoin, code: code}
	rs.stage = stageJoining
	ctx := m.env.ctx
	return func() tea.Msg {
		if old != "" {
			_ = races.Leave(old)
		}
		seat, err := takeSeat(ctx, races, req)
		return raceSeatMsg{seat: seat, err: err, joined: code}
	}
}

// The screen.

// loadList asks for the arenas to list.
func (a *arenaScreen) loadList() tea.Cmd {
	ars, ctx, now := a.arenas, a.env.ctx, a.env.now
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, arenaTimeout)
		defer cancel()
		evs, err := ars.List(ctx)
		return arenaListMsg{events: evs, now: now(), err: err}
	}
}

// join asks to join arena id.
func (a *arenaScreen) join(id int64) tea.Cmd {
	a.stage, a.id, a.awaiting = arenaJoining, id, 0
	a.msg = ""
	ars, ctx, now := a.arenas, a.env.ctx, a.env.now
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, arenaTimeout)
		defer cancel()
		v, err := ars.Join(ctx, id)
		return arenaViewMsg{id: id, view: v, local: now(), err: err, join: true}
	}
}

// askView asks for the arena as it stands.
func (a *arenaScreen) askView() tea.Cmd {
	ars, ctx, now, id := a.arenas, a.env.ctx, a.env.now, a.id
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, arenaTimeout)
		defer cancel()
		v, err := ars.View(ctx, id)
		return arenaViewMsg{id: id, view: v, local: now(), err: err}
	}
}

// tick keeps the time left going while the arena shows and runs, and
// the list's "starts in" and "left" while it shows.
func (a *arenaScreen) tick() tea.Cmd {
	listing := a.stage == arenaListing && a.loaded
	if a.ticking || !a.shown || a.stage != arenaIn && !listing {
		return nil
	}
	a.ticking = true
	now := a.env.now
	return a.env.wait(time.Second, func() tea.Msg { return arenaClockMsg{now: now()} })
}

// update handles keys, the arena's events and the replies.
func (a *arenaScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case arenaListMsg:
		a.loaded, a.list, a.listNow = true, msg.events, msg.now
		a.cur = max(0, min(a.cur, len(a.list)-1))
		if msg.err != nil {
			a.say(sErr, clean("the arenas: "+Reason(msg.err), 200))
		}
		if a.awaiting != 0 {
			a.await(a.awaiting)
		}
		return a.tick()
	case arenaViewMsg:
		return a.viewed(msg)
	case arenaDoneMsg:
		if msg.err != nil {
			a.say(sErr, clean(msg.what+": "+Reason(msg.err), 200))
			return nil
		}
		return a.askView()
	case arenaClockMsg:
		a.ticking = false
		if a.stage == arenaListing {
			return a.listTicked(msg.now)
		}
		if a.hasView {
			a.now = msg.now.Add(a.offset)
		}
		return a.tick()
	case ArenaEventMsg:
		return a.onEvent(msg.Event)
	case tea.KeyMsg:
		return a.key(msg)
	}
	return nil
}

// viewed takes a view of the arena, or the error of a join.
func (a *arenaScreen) viewed(msg arenaViewMsg) tea.Cmd {
	if msg.id != a.id || a.stage == arenaListing {
		return nil
	}
	if msg.err != nil {
		if msg.join && errors.Is(msg.err, lobby.ErrArenaOver) {
			// An arena that is over has results to show (ssh -t HOST
			// arena ID after its end): its view, not a refusal.
			return a.askView()
		}
		if msg.join || a.stage == arenaJoining {
			a.stage = arenaListing
			a.say(sErr, clean(Reason(msg.err), 200))
			if errors.Is(msg.err, lobby.ErrArenaNotYet) {
				a.awaiting = msg.id // told as the list comes
			}
			return a.loadList()
		}
		a.say(sWarn, clean("the arena: "+Reason(msg.err), 200))
		return nil
	}
	if a.hasView && msg.view.You.Points != a.av.You.Points {
		a.event = arenaPointsMsg{points: msg.view.You.Points}
	}
	a.av, a.hasView = msg.view, true
	a.offset, a.now = 0, msg.local
	if !msg.view.Now.IsZero() {
		a.offset, a.now = msg.view.Now.Sub(msg.local), msg.view.Now
	}
	switch {
	case msg.view.Over:
		a.stage = arenaOver
	case a.stage == arenaJoining && msg.view.You.State == lobby.ArenaPlaying && msg.view.You.Code != "":
		// Back after a drop, in the middle of a race: its seat waits.
		a.stage = arenaIn
		a.event = arenaPairedMsg{code: msg.view.You.Code}
	case a.stage == arenaJoining:
		a.stage = arenaIn
		a.say(sOK, "you are in: the server pairs you with the players nearest you in the standings")
	}
	return a.tick()
}

// onEvent takes one of the arena's events.
func (a *arenaScreen) onEvent(ev lobby.Event) tea.Cmd {
	switch ev := ev.(type) {
	case lobby.ArenaChanged:
		if ev.ID != a.id || a.stage == arenaListing || a.stage == arenaJoining {
			return nil
		}
		// Asked for hidden too (under a race): the race's header shows
		// the player's points.
		return a.askView()
	case lobby.ArenaPaired:
		if ev.ID != a.id || a.stage != arenaIn {
			return nil
		}
		a.event = arenaPairedMsg{code: ev.Code}
	case lobby.ArenaEnded:
		if ev.ID != a.id || a.stage == arenaListing {
			return nil
		}
		a.stage = arenaOver
		a.say(sInfo, "the arena is over")
		return a.askView()
	case lobby.ArenaTakenOver:
		if ev.ID != a.id || a.stage != arenaIn {
			return nil
		}
		// Another session of the player joined: it is paired now, not
		// this one, which goes back to the list.
		a.stage = arenaListing
		a.say(sInfo, "you joined this arena in another session: it plays there now")
		return a.loadList()
	}
	return nil
}

// key handles a key.
func (a *arenaScreen) key(k tea.KeyMsg) tea.Cmd {
	switch a.stage {
	case arenaListing:
		return a.listKey(k)
	case arenaJoining:
		if key.Matches(k, a.keys.Leave) {
			a.event = arenaMenuMsg{}
		}
		return nil
	case arenaOver:
		if key.Matches(k, a.keys.Menu) {
			a.event = arenaMenuMsg{}
		}
		return nil
	}
	switch {
	case key.Matches(k, a.keys.Leave):
		ars, id := a.arenas, a.id
		a.event = arenaMenuMsg{}
		return func() tea.Msg { return arenaLeftMsg{err: ars.Leave(id)} }
	case key.Matches(k, a.keys.Pause):
		paused := a.av.You.State != lobby.ArenaPaused
		ars, id := a.arenas, a.id
		what := "pause"
		if !paused {
			what = "resume"
		}
		return func() tea.Msg { return arenaDoneMsg{what: what, err: ars.Pause(id, paused)} }
	case key.Matches(k, a.keys.Join) && a.av.You.State == lobby.ArenaPlaying && a.av.You.Code != "":
		// The player left their race for this screen: it runs on.
		a.event = arenaPairedMsg{code: a.av.You.Code}
	case key.Matches(k, a.keys.Watch):
		switch {
		case a.av.TopGame == "":
			a.say(sInfo, "no game to watch right now")
		case a.av.You.State == lobby.ArenaPlaying && a.av.You.Code == a.av.TopGame:
			a.say(sInfo, "the top game is yours")
		default:
			a.event = arenaWatchMsg{code: a.av.TopGame}
		}
	}
	return nil
}

// listKey handles a key in the list of arenas.
func (a *arenaScreen) listKey(k tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(k, a.keys.Up):
		a.cur = max(0, a.cur-1)
	case key.Matches(k, a.keys.Down):
		a.cur = max(0, min(len(a.list)-1, a.cur+1))
	case key.Matches(k, a.keys.Join):
		if a.cur >= len(a.list) {
			return nil
		}
		ev := a.list[a.cur]
		switch ev.PhaseAt(a.listNow) {
		case arena.Upcoming:
			a.await(ev.ID)
			return nil
		case arena.Running:
			return a.join(ev.ID)
		}
		a.say(sInfo, clean(ev.Name, arena.MaxNameLen)+" is over")
	case key.Matches(k, a.keys.Leave):
		a.event = arenaMenuMsg{}
	}
	return nil
}

// await has the screen join arena id as it starts, and says so; an
// arena no longer in the list, or no longer to come, is not awaited.
func (a *arenaScreen) await(id int64) {
	a.awaiting = 0
	i := slices.IndexFunc(a.list, func(ev arena.Event) bool { return ev.ID == id })
	if i < 0 {
		return
	}
	ev := a.list[i]
	switch ev.PhaseAt(a.listNow) {
	case arena.Upcoming:
		a.say(sInfo, clean(ev.Name, arena.MaxNameLen)+" starts at "+ev.Start.UTC().Format("15:04")+" UTC: you join it then if you stay on this screen")
	case arena.Running:
		// Started here, not yet on the server's clock: the next tick
		// joins it.
	default:
		return
	}
	a.awaiting, a.cur = id, i
}

// listTicked moves the list's clock on to now: the arena the player
// awaits is joined as it starts, and the list is asked anew when one of
// its arenas starts or ends (the next of a series comes with it).
func (a *arenaScreen) listTicked(now time.Time) tea.Cmd {
	before := a.listNow
	a.listNow = now
	for _, ev := range a.list {
		if ev.ID == a.awaiting && ev.PhaseAt(now) == arena.Running {
			return a.join(ev.ID)
		}
	}
	for _, ev := range a.list {
		if ev.PhaseAt(before) != ev.PhaseAt(now) {
			return a.loadList()
		}
	}
	return a.tick()
}

// timeLeft is the arena's time left as the screen shows it.
func (a *arenaScreen) timeLeft() time.Duration {
	return max(0, a.av.Arena.End.Sub(a.now))
}

// needs is the smallest window the arena screens are readable in: their
// lines are cut or wrapped, and the standings take the lines left.
func (a *arenaScreen) needs() (w, h int) { return minTableWidth, 14 }
