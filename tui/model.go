package tui

import (
	"context"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"pyramid/lobby"
)

// Model is the root model of one session: it routes messages to its
// screens (screen.go) and does what they ask (events.go), runs the
// game's lifecycle (game.go) and saves the game through Deps.Games
// (save.go). Update does no I/O and reads no clock: time, the store and
// the solver are reached in tea.Cmds only.
//
// Bubble Tea holds the model by pointer, and it changes in place.
type Model struct {
	env  *env
	w, h int
	// cur is the screen that shows; back is where the help and the
	// confirmation return to.
	cur, back screenID
	// screens is the registry of the session's screens, nil where a
	// screen has not been built (or was let go of: see dropHidden).
	screens [numScreens]screen

	// playing is true while a game is on the table (screens[screenTable]).
	playing bool
	// The game on the table.
	token   int       // of the table's game; every game gets a new one
	started time.Time // when the game was first dealt

	// resume is the stored game being fetched to be continued;
	// unfinished are the games in progress not on the table (inprogress.go).
	resume     *SavedGame
	unfinished []storedGame
	// reloaded is set while the stored game is fetched again after a
	// save refused as stale (ErrStale): the table says so when it comes.
	reloaded bool

	// Deals asked of a command: only the latest request counts.
	dealReq int
	// seed is a clock reading taken at the start of the session: the
	// day the daily's words speak of.
	seed time.Time
	// dealSeed is the session's secret seed of new deal numbers
	// (seededDeal), read at its start (hasDealSeed from then on); dealCount
	// counts the deals made from it.
	dealSeed    [32]byte
	hasDealSeed bool
	dealCount   int

	// saves is the save queue (save.go), which holds the table's shown
	// position until the store has every move (hold.go).
	saves saveQueue

	// link is a deep link waiting for the unfinished games to load.
	link    *dealSpec
	loading bool
	// challengeRef is the challenge the deep link named, until Init asks
	// for its game (challenge.go).
	challengeRef string
	// arenaRef is the arena the deep link `arena ID` named, until Init
	// opens it (arena_link.go).
	arenaRef int64
	// quitting is set once the session is to end when its saves are
	// stored, ended once its last command is given (end); ending is the
	// shutdown in progress, or nil.
	quitting, ended bool
	ending          *ending

	// live is what the lobby was told and told us (presence.go).
	live liveState
}

// New returns the model of one session.
func New(d Deps) *Model {
	r := d.Renderer
	if r == nil {
		r = lipgloss.NewRenderer(nil)
		r.SetColorProfile(termenv.Ascii)
	}
	e := &env{
		now:      d.Now,
		rand:     d.Rand,
		ctx:      d.Context,
		solver:   d.Solver,
		games:    d.Games,
		player:   d.Player,
		renderer: r,
		pal:      paletteFor(r),
		gl:       glyphsFor(d.Unicode),

		translate:  d.Translate,
		account:    d.Account,
		connect:    d.Connect,
		inbox:      d.Inbox,
		lobby:      d.Lobby,
		races:      d.Races,
		ghosts:     d.Ghosts,
		challenges: d.Challenges,
		arenas:     d.Arenas,
		watchStep:  watchStep,
		wait:       d.After,
		await:      d.Await,
	}
	if e.wait == nil {
		e.wait = tick
	}
	if e.await == nil {
		e.await = waitIn
	}
	if e.now == nil {
		e.now = time.Now
	}
	if e.ctx == nil {
		e.ctx = context.Background()
	}
	// Saves outlive the session's context (see nextSave); only a
	// shutdown whose time is up stops them.
	e.saveStop, e.stopSaves = context.WithCancel(context.WithoutCancel(e.ctx))
	w, h := d.Width, d.Height
	if w <= 0 || h <= 0 {
		w, h = 80, 24
	}
	m := &Model{env: e, w: w, h: h, saves: saveQueue{ids: map[int]string{}, replace: map[int]replaceRef{}}}
	m.screens[screenMenu] = newMenu(e, w, h)
	m.screens[screenDealing] = &dealingScreen{chrome: chrome{env: e, w: w, h: h}}
	args := d.Args
	if name, ok := watchArgs(args); ok { // presence.go: ssh -t HOST watch NAME
		m.live.link, m.live.linkBad, args = name, name == "", nil
	}
	if ref, ok := challengeArgs(args); ok {
		m.challengeLink(ref) // challenge.go
	} else if isRaceLink(args) {
		m.raceLink(args) // race.go
	} else if id, ok := arenaLink(args); ok {
		if id == 0 {
			m.menu().say(sErr, "arena ID: the ID is a number (`arenas` lists them)")
		}
		m.arenaRef = id // arena_link.go: -1 for the list
	} else if len(args) > 0 {
		spec, err := parseLink(args)
		if err != nil {
			m.menu().say(sErr, clean(err.Error(), 300))
		} else {
			m.link = &spec
		}
	}
	m.loading = e.persist()
	if m.link != nil && !m.loading && m.link.hasNumber {
		// A deal by number needs nothing from outside: deal it now, so
		// the first frame is already the table.
		m.start(*m.link)
		m.link = nil
	}
	return m
}

// Init loads the player's unfinished games, starts the deep-linked game
// and reads the clock for a game dealt in New.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.env.readClock(0, clockSeed), m.env.readDealSeed(), m.env.waitInbox(), m.startLive(), m.raceInit(), m.env.loadDailyToday(), m.loadSettings() /* with lost.go's setting */}
	if m.loading {
		games, player, ctx := m.env.games, m.env.player.ID, m.env.ctx
		cmds = append(cmds, func() tea.Msg {
			ctx, cancel := context.WithTimeout(ctx, loadTimeout)
			defer cancel()
			gs, err := games.Unfinished(ctx, player)
			return unfinishedMsg{games: gs, err: err}
		})
	} else if m.link != nil {
		cmds = append(cmds, func() tea.Msg { return linkMsg{} })
	}
	if m.playing {
		cmds = append(cmds, m.env.readClock(m.token, clockStart))
	}
	cmds = append(cmds, m.challengeOpen(), m.arenaLinkOpen())
	return tea.Batch(cmds...)
}

// The screens the root reaches by type.
func (m *Model) menu() *menuScreen { return m.screens[screenMenu].(*menuScreen) }

func (m *Model) table() *tableScreen {
	t, _ := m.screens[screenTable].(*tableScreen)
	return t
}

func (m *Model) watch() *watchScreen {
	w, _ := m.screens[screenWatch].(*watchScreen)
	return w
}

// show makes a screen the one that shows.
func (m *Model) show(id screenID) { m.cur = id }

// Update handles a message. It is pure: no clock, no I/O.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	return m, m.handle(msg)
}

// handle is Update with what follows every message: screens that stopped
// showing are let go of, a change of the game is queued for saving, the
// lobby is told what changed, and a quitting session whose saves are all
// in ends.
func (m *Model) handle(msg tea.Msg) tea.Cmd {
	if m.env.translate != nil {
		msg = m.env.translate(msg)
	}
	if in, ok := msg.(inboxMsg); ok {
		if batch, ok := in.msg.(InboxBatch); ok {
			cmds := make([]tea.Cmd, 0, len(batch)+1)
			for _, msg := range batch {
				cmds = append(cmds, m.handle(msg))
			}
			return tea.Batch(append(cmds, m.env.waitInbox())...)
		}
		return tea.Batch(m.handle(in.msg), m.env.waitInbox())
	}
	if k, ok := msg.(tea.KeyMsg); ok && k.Type == tea.KeyRunes && len(k.Runes) > 1 && !k.Paste {
		// Keys that arrive in one read (fast typing, or several keys in
		// one SSH packet) come as one message: play them one by one.
		var cmds []tea.Cmd
		for _, r := range k.Runes {
			cmds = append(cmds, m.handle(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: k.Alt}))
		}
		return tea.Batch(cmds...)
	}
	if t := m.table(); t != nil {
		m.saves.held.arm(t, m.env.persist())
	}
	cmd := m.update(msg)
	m.dropHidden()
	return tea.Batch(cmd, m.queueChange(), m.liveChange(), m.endIfDone())
}

// update is the dispatcher: it routes each message to the screen or the
// part of the root it is for, and does nothing else.
func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return nil
	case tea.KeyMsg, tea.MouseMsg:
		return m.handleInput(msg) // the keys every screen shares, then the screen that shows
	case routed:
		return m.route(msg) // a reply for one screen
	case event:
		return m.handleEvent(msg) // events.go: what a screen asked for
	case NoticeMsg, ShutdownMsg, GameTakenMsg, endingMsg:
		return m.handleServer(msg)
	case linkMsg, unfinishedMsg, dealtMsg, resumedMsg, clockMsg, dealSeedMsg:
		return m.handleGame(msg) // game.go: the game's lifecycle
	case savedMsg:
		return m.savedReply(msg) // save.go
	case settingsMsg:
		return m.applySettings(msg) // settings.go
	case renamedMsg, redeemedMsg, RenamedMsg:
		return m.accountReply(msg) // account.go
	case lobby.PresenceChanged, lobby.Spectators, lobby.Watched, lobby.WatchEnded, lobby.DailyChanged, spectateMsg:
		return m.handleLobby(msg) // presence.go
	}
	return m.toScreen(m.cur, msg)
}

// toScreen hands a message to a screen and handles the event it raises
// at once, so that the next key already meets the screen it leads to.
func (m *Model) toScreen(id screenID, msg tea.Msg) tea.Cmd {
	s := m.screens[id]
	if s == nil {
		return nil
	}
	cmd := s.update(msg)
	if ev := s.takeEvent(); ev != nil {
		return tea.Batch(cmd, m.handleEvent(ev))
	}
	return cmd
}

// routed is a reply meant for one screen (a load it asked for), whether
// or not it shows.
type routed interface{ to() screenID }

// route hands a reply to the screen it is meant for, if it is still
// there; the table's count only while it has a game.
func (m *Model) route(msg routed) tea.Cmd {
	id := msg.to()
	if id == screenTable && !m.playing {
		return nil
	}
	return m.toScreen(id, msg)
}

// handleInput takes a key or a click for the screen that shows. The
// keys every screen shares are handled here, once, before any screen
// sees them, whatever it shows (an open prompt, a form, a window too
// small to read): ctrl+c quits (once the saves are in), ctrl+l redraws,
// and ctrl+z does nothing, for a server-side program is never suspended.
// The key maps list the first two for their help (TableKeyMap.Quit).
func (m *Model) handleInput(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyMsg); ok {
		switch k.Type {
		case tea.KeyCtrlC:
			return m.quit()
		case tea.KeyCtrlL:
			return tea.ClearScreen
		case tea.KeyCtrlZ:
			return nil
		}
	}
	if m.tooSmall() {
		return nil // input is ignored while the screen is unreadable
	}
	return m.toScreen(m.cur, msg)
}

// handleServer takes what the server tells the session.
func (m *Model) handleServer(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case NoticeMsg:
		text := clean(msg.Text, 200)
		m.say(sWarn, text)
		m.saves.held.say(sWarn, text)
	case ShutdownMsg:
		return m.shutdown(msg)
	case endingMsg:
		return m.shutdownDeadline(msg)
	case GameTakenMsg:
		if m.playing && msg.ID != "" && m.saves.ids[m.token] == msg.ID {
			m.dropGame(msg.Reason)
			return nil
		}
		m.forgetUnfinished(msg.ID)
		if m.cur == screenMenu {
			m.setContinue()
		}
	}
	return nil
}

// each calls f with every screen the session has built.
func (m *Model) each(f func(screen)) {
	for _, s := range m.screens {
		if s != nil {
			f(s)
		}
	}
}

// resize lays every screen out for a new window size.
func (m *Model) resize(w, h int) {
	m.w, m.h = max(1, w), max(1, h)
	m.each(func(s screen) { s.setSize(m.w, m.h) })
	// The held table is laid out again for the new size: it shows the
	// stored position, so drawing it anew reveals nothing the store does
	// not have yet, and the layout stays whole.
	m.saves.held.setSize(m.w, m.h)
}

// setGlyphs switches the session to another set of glyphs, the player's
// choice in the menu (Cards): from the next frame every screen draws
// with it, the table in the layout it allows (ASCII cards are one line)
// and the key maps with its arrows in their help. The env of other
// sessions is shared with none: the session gets a new one.
func (m *Model) setGlyphs(gl *glyphs) {
	e := new(env)
	*e = *m.env
	e.gl = gl
	m.env = e
	m.each(func(s screen) { s.setEnv(e) })
	m.saves.held.setEnv(e)
	if mn := m.menu(); len(mn.conts) > 0 {
		m.setContinue() // the notes have the separator in them
	}
}

// say shows a line from outside (a notice) on the current screen's
// message line; while a deal is on its way, on the menu's, which shows
// next.
func (m *Model) say(st styleID, text string) {
	if s := m.screens[m.cur]; s != nil && m.cur != screenDealing {
		s.say(st, text)
		return
	}
	m.menu().say(st, text)
}

// sayAll shows a line on every screen (and the held table): the session
// is ending, whatever the player looks at next says why.
func (m *Model) sayAll(st styleID, text string) {
	m.each(func(s screen) { s.say(st, text) })
	m.saves.held.say(st, text)
}

// dropHidden lets go of what only a screen that is not showing needs:
// the screens built afresh each time they show, and the menu's items,
// listed again when the menu shows. A session spends most of its life at
// the table and keeps none of them there.
func (m *Model) dropHidden() {
	m.keepRedeemed()
	for id := range numScreens {
		if id != m.cur && id.transient() && m.screens[id] != nil && !m.keeps(id) {
			m.screens[id] = nil
		}
	}
	mn := m.menu()
	if showing := m.cur == screenMenu; showing != (mn.items != nil) || !showing && mn.bar.out != "" {
		mn.show(showing)
	}
}

// keeps reports whether a transient screen that does not show is kept
// all the same: the watch screen under its help, a link code being
// checked.
func (m *Model) keeps(id screenID) bool {
	switch id {
	case screenWatch:
		return m.cur == screenHelp && m.back == screenWatch
	case screenRedeem:
		f, _ := m.screens[screenRedeem].(*redeemScreen)
		return f != nil && f.pending
	}
	return false
}

// needs is the smallest window the current screen is readable in.
func (m *Model) needs() (w, h int) {
	if w := m.watch(); m.cur == screenWatch && w != nil {
		return w.needs()
	}
	if r := m.race(); m.cur == screenRace && r != nil {
		return r.needs() // the race's game is not the table's: no held table
	}
	if held := m.saves.held.shown; held != nil && m.cur != screenConfirm {
		return held.needs()
	}
	if s := m.screens[m.cur]; s != nil && (m.cur != screenTable || m.playing) {
		return s.needs()
	}
	return minScreenWidth, 16
}

// tooSmall reports whether the window is below what the screen needs.
func (m *Model) tooSmall() bool {
	w, h := m.needs()
	return m.w < w || m.h < h
}

// View draws the current screen. Without Unicode, the few non-ASCII
// characters of shared texts (the engine's rule descriptions, labels) are
// replaced by ASCII of the same width.
func (m *Model) View() string {
	v := m.view()
	if !m.env.gl.unicode {
		v = asciiFold(asciiReplacer.Replace(v))
	}
	return v
}

// ViewParts appends View to dst in parts joined by newlines, and returns
// it (server.PartsViewer: the session's renderer asks): the race's frame
// comes in the parts it keeps from frame to frame (its board, each
// racer's line, the chat), so that the renderer compares them with the
// last frame's without joining them (several frames a second for every
// racer of the server); any other screen's view is one part. The strings
// are never changed afterwards.
func (m *Model) ViewParts(dst []string) []string {
	if r := m.race(); m.cur == screenRace && r != nil && r.inRace() && m.env.gl.unicode &&
		(m.ending == nil || m.ending.farewell == "") && !m.tooSmall() {
		return r.appendRace(dst)
	}
	return append(dst, m.View())
}

func (m *Model) view() string {
	if m.ending != nil && m.ending.farewell != "" {
		return m.ending.farewell
	}
	if m.tooSmall() {
		w, h := m.needs()
		return tooSmall(m.w, m.h, w, h, m.env.gl)
	}
	if w := m.watch(); m.cur == screenWatch && w != nil {
		// The solver's line, not the player's game: the held table,
		// which keeps a move from showing before it is stored, is not
		// what this screen shows.
		return w.view()
	}
	if r := m.race(); m.cur == screenRace && r != nil {
		return r.view() // the race's game is not the table's: no held table
	}
	if held := m.saves.held.shown; held != nil && m.cur != screenConfirm {
		return held.view()
	}
	if s := m.screens[m.cur]; s != nil {
		return s.view()
	}
	return m.menu().view()
}

// centered draws a message in the middle of an otherwise empty screen,
// with a footer line.
func centered(w, h int, msg, foot string) string {
	var b strings.Builder
	out := lines{b: &b}
	msg = cut(msg, w, "")
	out.fill(max(0, h/2-1))
	out.add(strings.Repeat(" ", max(0, (w-cells(msg))/2)) + msg)
	out.fill(h - 1)
	out.add(cut(" "+foot, w, ""))
	return b.String()
}
