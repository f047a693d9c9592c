package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"pyramid/engine"
)

// screen is which screen the model shows.
type screen uint8

const (
	screenMenu screen = iota
	screenTable
	screenHelp
	screenConfirm
	screenDealing
	screenStats
	screenBoard
	screenName
	screenLink
	screenWatch
	screenRedeem
)

// Replies of the model's commands.
type (
	// dealtMsg brings a new deal's number, read from the clock or the
	// solver in a tea.Cmd.
	dealtMsg struct {
		req    int
		spec   dealSpec
		number uint64
		day    string
		now    time.Time
		note   string
	}
	// unfinishedMsg brings the player's unfinished games from the store.
	unfinishedMsg struct {
		games []SavedGame
		err   error
	}
	// savedMsg is the store's answer to a save.
	savedMsg struct {
		token int
		id    string
		err   error
	}
)

// pendingSave is a save waiting for its turn: a session has at most one
// call to Games.Save in flight, so the store sees its saves in order.
type pendingSave struct {
	token int
	game  SavedGame
	// played is the time played before since; the command adds the time
	// from since to its clock reading.
	played time.Duration
	since  time.Time
}

// Model is the root model of one session: it owns the screens, starts
// games, and saves them through Deps.Games. Update does no I/O and reads
// no clock: time, the store and the solver are reached in tea.Cmds only.
type Model struct {
	env    *env
	w, h   int
	screen screen
	back   screen // where help and confirmation return to

	// menu and table are kept behind pointers, so that the copy of the
	// model that every Update makes and Bubble Tea keeps is small. The
	// menu is replaced, never changed in place; the table is copied by
	// the first change in an Update (see tbl).
	menu     *Menu
	table    *Table // nil until the first game
	ownTable bool   // table is this Update's own copy
	playing  bool   // a game is on the table
	// help and confirm are nil unless they show: they are built afresh
	// each time.
	help    *HelpScreen
	confirm *Confirm
	// watch is the watch screen while it shows (or the help over it),
	// else nil: the solver's line is held only while it is watched.
	watch *Watch

	// The screens of the player's account (Deps.Account), nil until the
	// player first opens them. They are kept once opened: their request
	// counters tell late answers from current ones.
	stats   *StatsScreen
	board   *BoardScreen
	rename  *NameForm
	linking *LinkScreen
	// redeem is the form that uses a link code while it shows, or while
	// its code is being checked or has been accepted: it is built afresh
	// each time (see keepRedeemed).
	redeem *RedeemForm

	// The game on the table.
	token   int       // of the table's game; every game gets a new one
	started time.Time // when the game was first dealt
	day     string    // the daily deal's date
	saved   int       // table version last queued for saving

	// resume is the stored game Continue opens when nothing is on the
	// table yet; unfinished are all the stored games loaded at the start.
	resume     *SavedGame
	unfinished []SavedGame

	// Deals asked of a command: only the latest request counts.
	dealReq int
	// seed is a clock reading taken at the start of the session: new deal
	// numbers derive from it and a counter, so a new deal needs no round
	// trip through a command (keys typed meanwhile would be lost).
	seed      time.Time
	dealCount int

	// Saving.
	ids      map[int]string // stored game ID by game token
	inFlight bool
	queue    []pendingSave
	// hold is the table as it was before the first move the store has not
	// acknowledged yet, or nil. While a save of the game on the table is
	// queued or in flight, View draws hold instead of the live screen: no
	// position reaches the player before it is stored, so a move whose
	// redraw the player saw survives a crash of the server.
	hold *Table

	// link is a deep link waiting for the unfinished games to load.
	link     *dealSpec
	loading  bool
	quitting bool
}

// New returns the model of one session.
func New(d Deps) Model {
	r := d.Renderer
	if r == nil {
		r = lipgloss.NewRenderer(nil)
		r.SetColorProfile(termenv.Ascii)
	}
	e := &env{
		now:      d.Now,
		ctx:      d.Context,
		solver:   d.Solver,
		games:    d.Games,
		player:   d.Player,
		renderer: r,
		pal:      paletteFor(r),
		gl:       glyphsFor(d.Unicode),

		translate: d.Translate,
		account:   d.Account,
		connect:   d.Connect,
		inbox:     d.Inbox,
		watchStep: watchStep,
	}
	if e.now == nil {
		e.now = time.Now
	}
	if e.ctx == nil {
		e.ctx = context.Background()
	}
	w, h := d.Width, d.Height
	if w <= 0 || h <= 0 {
		w, h = 80, 24
	}
	m := Model{env: e, w: w, h: h, ids: map[int]string{}}
	m.menu = ref(newMenu(e, w, h))
	if len(d.Args) > 0 {
		spec, err := parseLink(d.Args)
		if err != nil {
			m.editMenu().say(sErr, clean(err.Error(), 300))
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
	m.ownTable = false // Bubble Tea keeps this model: its table is shared from now on
	return m
}

// Init loads the player's unfinished games, starts the deep-linked game
// and reads the clock for a game dealt in New.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.env.readClock(0, clockSeed), m.env.waitInbox()}
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
	return tea.Batch(cmds...)
}

// linkMsg starts the deep link that needs a command (a new or daily deal).
type linkMsg struct{}

// Update handles a message. It is pure: no clock, no I/O.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.handle(msg)
	m.ownTable = false // the model returned shares its table with the next copy
	return m, cmd
}

// tbl returns the table for this Update to change. The models Bubble
// Tea holds share their table, so the first change in an Update copies
// it; later ones change that copy.
func (m *Model) tbl() *Table {
	if !m.ownTable {
		t := new(Table)
		*t = *m.table
		m.table, m.ownTable = t, true
	}
	return m.table
}

// handle is Update on the model in place: Update's copy of the model. The
// methods that handle a message change the model through a pointer
// rather than return a new one, so that no call on the way copies it.
func (m *Model) handle(msg tea.Msg) tea.Cmd {
	if m.env.translate != nil {
		msg = m.env.translate(msg)
	}
	if in, ok := msg.(inboxMsg); ok {
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
	cmd := m.update(msg)
	m.dropHidden()
	var before *Table
	if m.table != nil && m.table.before != nil {
		before = m.table.before
		m.tbl().before = nil
	}
	if m.playing && m.table.version != m.saved {
		m.saved = m.table.version
		// A lost position is stored as playing: the player may still
		// undo. It becomes lost for good when the player deals anew.
		st := StatusOf(m.table.d.status)
		if st == StatusLost {
			st = StatusPlaying
		}
		cmd = tea.Batch(cmd, m.queueSave(st))
		if m.hold == nil && before != nil && before.token == m.token && m.env.persist() {
			m.hold = before
		}
	}
	return cmd
}

// StatusOf spells a game status as SavedGame.Status does.
func StatusOf(s engine.Status) string {
	switch s {
	case engine.Won:
		return StatusWon
	case engine.Lost:
		return StatusLost
	}
	return StatusPlaying
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return nil
	case tea.KeyMsg:
		if m.tooSmall() {
			switch msg.Type {
			case tea.KeyCtrlC:
				return m.quit()
			case tea.KeyCtrlL:
				return tea.ClearScreen
			}
			return nil // keys are ignored while the screen is unreadable
		}
		if msg.Type == tea.KeyCtrlZ {
			return nil // never suspend a server-side program
		}
	case tea.MouseMsg:
		if m.tooSmall() {
			return nil
		}
	case linkMsg:
		if m.link != nil {
			spec := *m.link
			m.link = nil
			return m.start(spec)
		}
		return nil
	case unfinishedMsg:
		return m.loaded(msg)
	case dealtMsg:
		return m.dealt(msg)
	case resumedMsg:
		return m.resumed(msg)
	case savedMsg:
		return m.savedReply(msg)
	case clockMsg:
		if msg.what == clockSeed {
			if m.seed.IsZero() {
				m.seed = msg.now
			}
			return nil
		}
		if msg.token == m.token && msg.what == clockStart && m.started.IsZero() {
			m.started = msg.now
		}
	case NoticeMsg:
		text := clean(msg.Text, 200)
		m.say(sWarn, text)
		m.sayHeld(sWarn, text)
		return nil
	case ShutdownMsg:
		return m.shutdown(msg)
	case quitMsg:
		return m.quit()
	case GameTakenMsg:
		if m.playing && msg.ID != "" && m.ids[m.token] == msg.ID {
			m.dropGame()
		}
		return nil
	case backMsg:
		m.screen = screenMenu
		m.setContinue()
		return nil
	case newDealMsg:
		if !m.playing {
			return nil
		}
		spec := dealSpec{rules: m.table.game.Rules()}
		spec.daily = spec.rules.Daily
		return m.askStart(spec)
	case helpMsg:
		m.openHelp()
		return nil
	case helpDoneMsg:
		m.screen = m.back
		return nil
	case confirmMsg:
		m.screen = m.back
		if msg.yes {
			return m.start(m.confirm.spec)
		}
		return nil
	case menuPlayMsg:
		return m.askStart(msg.spec)
	case menuContinueMsg:
		return m.resumeGame()
	case menuSettingsMsg:
		if m.playing {
			m.setScheme()
		}
		if gl := glyphsFor(m.menu.unicode()); gl != m.env.gl {
			m.setGlyphs(gl)
		}
		return nil
	case menuAccountMsg:
		return m.openAccount(msg.kind)
	case statsMsg, boardMsg, linkCodeMsg:
		m.accountLoaded(msg)
		return nil
	case renamedMsg:
		m.renamed(msg)
		return nil
	case redeemedMsg:
		m.redeemed(msg)
		return nil
	case solvedMsg:
		m.solvedReply(msg)
		return nil
	case watchMsg:
		return m.askLine()
	case lineMsg:
		return m.lineReply(msg)
	case watchDoneMsg:
		m.screen = screenTable
		return nil
	}
	var cmd tea.Cmd
	var event tea.Msg
	switch m.screen {
	case screenMenu:
		event, cmd = m.updateMenu(msg)
	case screenTable:
		// A stored game keeps the table as it was before a move, to show
		// until the move is stored (see hold).
		if m.table == nil {
			break
		}
		t := m.tbl()
		t.wantBefore = m.hold == nil && m.env.persist()
		cmd = t.update(msg)
		t.wantBefore = false
		event, t.event = t.event, nil
	case screenHelp, screenConfirm, screenStats, screenBoard, screenName, screenLink, screenRedeem:
		event, cmd = m.updateScreen(msg)
	case screenWatch:
		if m.watch != nil {
			cmd = m.watch.update(msg)
			event, m.watch.event = m.watch.event, nil
		}
	case screenDealing:
		if k, ok := msg.(tea.KeyMsg); ok && (k.Type == tea.KeyCtrlC) {
			return m.quit()
		}
		if k, ok := msg.(tea.KeyMsg); ok && (k.String() == "q" || k.Type == tea.KeyEsc) {
			m.dealReq++ // the answer, when it comes, is ignored
			m.screen = screenMenu
		}
	}
	if event != nil {
		// A screen's request is handled now, not through a command, so
		// that the next key already meets the screen it leads to.
		cmd2 := m.update(event)
		return tea.Batch(cmd, cmd2)
	}
	if m.playing {
		// The table's messages (hints, clock) reach it whatever the screen.
		switch msg.(type) {
		case hintMsg, clockMsg:
			if m.screen != screenTable {
				m.tbl().update(msg)
			}
		}
	}
	return cmd
}

// The functions below handle messages apart from update, so that the
// copies they make of a screen are on the stack only when the message
// comes, not under every key (update's frame is all its temporaries).

// shutdown says why the session ends, on every screen, and quits once
// the last save is stored.
func (m *Model) shutdown(msg ShutdownMsg) tea.Cmd {
	text := clean(msg.Text, 200)
	if text == "" {
		text = "the server is shutting down"
	}
	if m.table != nil {
		m.tbl().say(sWarn, "%s", text)
	}
	if m.watch != nil {
		m.watch.board.say(sWarn, "%s", text)
	}
	m.editMenu().say(sWarn, text)
	m.say(sWarn, text)
	m.sayHeld(sWarn, text)
	m.quitting = true // the text says why; quit adds nothing to it
	return m.quit()
}

// setContinue has the menu's Continue describe the game to go back to.
func (m *Model) setContinue() {
	m.editMenu().setContinue(m.continueNote())
}

// openHelp shows the help for the table's keys and, with a game, its
// rules.
func (m *Model) openHelp() {
	m.back = m.screen
	var rules *engine.Rules
	if m.playing {
		r := m.table.game.Rules()
		rules = &r
	}
	km := NewTableKeyMap(m.menu.Scheme, m.env.gl)
	m.help = ref(newHelpScreen(m.env, km, rules, m.w, m.h))
	m.screen = screenHelp
}

// setScheme gives the table the menu's movement keys.
func (m *Model) setScheme() {
	m.tbl().setScheme(m.menu.Scheme)
}

// setGlyphs switches the session to another set of glyphs, the player's
// choice in the menu (Cards): from the next frame every screen draws
// with it, the table in the layout it allows (ASCII cards are one line)
// and the key maps with its arrows in their help.
//
// The env is shared by the models Bubble Tea holds and never changes,
// so the session gets a new one, and each screen it keeps a copy that
// points at it. The help, the confirmation and the watch screen are not
// among them: they are kept only while they show (dropHidden), and the
// switch is made from the menu.
func (m *Model) setGlyphs(gl *glyphs) {
	e := new(env)
	*e = *m.env
	e.gl = gl
	m.env = e
	if m.table != nil {
		// The held table is of the table's game: it has its title.
		title := titleOf(m.table.game.Rules(), m.table.game.Deal(), m.day, gl.sep)
		m.tbl().setGlyphs(e, m.menu.Scheme, title)
		if m.hold != nil {
			held := new(Table)
			*held = *m.hold
			held.setGlyphs(e, m.menu.Scheme, title)
			m.hold = held
		}
	}
	mn := m.editMenu()
	mn.setGlyphs(e)
	if mn.cont != "" {
		mn.setContinue(m.continueNote()) // the note has the separator in it
	}
	if m.stats != nil || m.board != nil || m.rename != nil || m.linking != nil {
		m.setAccountGlyphs()
	}
}

// setAccountGlyphs has the account's screens draw with the session's
// glyphs, apart from setGlyphs for the reason resizeAccount is apart
// from resize.
func (m *Model) setAccountGlyphs() {
	e := m.env
	if m.stats != nil {
		s := *m.stats
		s.setGlyphs(e)
		m.stats = &s
	}
	if m.board != nil {
		b := *m.board
		b.setGlyphs(e)
		m.board = &b
	}
	if m.rename != nil {
		f := *m.rename
		f.env = e
		m.rename = &f
	}
	if m.linking != nil {
		l := *m.linking
		l.env = e
		m.linking = &l
	}
	if m.redeem != nil {
		f := *m.redeem
		f.env = e
		m.redeem = &f
	}
}

// updateMenu passes a message to the menu and returns what the menu asks
// of its owner.
func (m *Model) updateMenu(msg tea.Msg) (event tea.Msg, cmd tea.Cmd) {
	mn, cmd := m.menu.Update(msg)
	event, mn.event = mn.event, nil
	m.menu = &mn
	return event, cmd
}

// updateScreen passes a message to a screen the model keeps behind a
// pointer, and returns what the screen asks of its owner. It is apart
// from update so that the copies it makes of those screens (a name form
// is 5 KB) are on the stack only while such a screen shows.
func (m *Model) updateScreen(msg tea.Msg) (event tea.Msg, cmd tea.Cmd) {
	switch m.screen {
	case screenHelp:
		h, c := m.help.Update(msg)
		event, h.event = h.event, nil
		m.help, cmd = &h, c
	case screenConfirm:
		f, c := m.confirm.Update(msg)
		event, f.event = f.event, nil
		m.confirm, cmd = &f, c
	case screenStats:
		s, c := m.stats.Update(msg)
		event, s.event = s.event, nil
		m.stats, cmd = &s, c
	case screenBoard:
		b, c := m.board.Update(msg)
		event, b.event = b.event, nil
		m.board, cmd = &b, c
	case screenName:
		f, c := m.rename.Update(msg)
		event, f.event = f.event, nil
		m.rename, cmd = &f, c
	case screenLink:
		l, c := m.linking.Update(msg)
		event, l.event = l.event, nil
		m.linking, cmd = &l, c
	case screenRedeem:
		f, c := m.redeem.Update(msg)
		event, f.event = f.event, nil
		m.redeem, cmd = &f, c
	}
	return event, cmd
}

// resize lays every screen out for a new window size.
func (m *Model) resize(w, h int) {
	m.w, m.h = max(1, w), max(1, h)
	if m.menu.w != m.w || m.menu.h != m.h {
		mn := m.editMenu()
		mn.w, mn.h = m.w, m.h
	}
	if m.playing && (m.table.w != m.w || m.table.h != m.h) {
		m.tbl().setSize(m.w, m.h)
	}
	if m.help != nil {
		m.help = ref(m.help.SetSize(m.w, m.h))
	}
	if m.confirm != nil {
		m.confirm = ref(m.confirm.SetSize(m.w, m.h))
	}
	if m.stats != nil || m.board != nil || m.rename != nil || m.linking != nil || m.redeem != nil {
		m.resizeAccount()
	}
	if m.watch != nil {
		m.watch.setSize(m.w, m.h)
	}
	if m.hold != nil && (m.hold.w != m.w || m.hold.h != m.h) {
		// The held table is laid out again for the new size: it shows
		// the stored position, so drawing it anew reveals nothing the
		// store does not have yet, and the layout stays whole.
		held := new(Table)
		*held = *m.hold
		held.setSize(m.w, m.h)
		m.hold = held
	}
}

// resizeAccount lays the account's screens out for the window size. It
// is apart from resize so that the copies it makes are on the stack only
// for a player who opened them.
func (m *Model) resizeAccount() {
	if m.stats != nil {
		m.stats = ref(m.stats.SetSize(m.w, m.h))
	}
	if m.board != nil {
		m.board = ref(m.board.SetSize(m.w, m.h))
	}
	if m.rename != nil {
		m.rename = ref(m.rename.SetSize(m.w, m.h))
	}
	if m.linking != nil {
		m.linking = ref(m.linking.SetSize(m.w, m.h))
	}
	if m.redeem != nil {
		m.redeem = ref(m.redeem.SetSize(m.w, m.h))
	}
}

// dropHidden lets go of what only a screen that is not showing needs:
// the help and the confirmation, built anew each time they show, and the
// menu's items, listed again when the menu shows. A session spends most
// of its life at the table and keeps none of them there.
func (m *Model) dropHidden() {
	m.keepRedeemed()
	if m.screen != screenHelp {
		m.help = nil
	}
	if m.screen != screenConfirm {
		m.confirm = nil
	}
	if m.watch != nil && m.screen != screenWatch && (m.screen != screenHelp || m.back != screenWatch) {
		m.watch = nil
	}
	if showing := m.screen == screenMenu; showing != (m.menu.items != nil) || !showing && m.menu.bar.out != "" {
		m.editMenu().show(showing)
	}
}

// editMenu replaces the menu with a copy made on the heap and returns it
// to change: the models Bubble Tea holds share the menu, and keep it as
// it was.
func (m *Model) editMenu() *Menu {
	c := new(Menu)
	*c = *m.menu
	m.menu = c
	return c
}

// ref returns a pointer to a copy of v. The model keeps the screens it
// seldom shows behind pointers and replaces such a screen rather than
// changing it, so that a Model keeps the value semantics Bubble Tea
// expects while its copies (one per Update) stay small.
func ref[T any](v T) *T { return &v }

// sayHeld sets the message line of the held table too, so that a notice
// shows while a move is being stored.
func (m *Model) sayHeld(st styleID, text string) {
	if m.hold != nil {
		held := *m.hold
		held.say(st, "%s", text)
		m.hold = &held
	}
}

// quit ends the session once every queued save is stored: the session's
// context ends with the program, and a save cut off by it would lose the
// player's last moves. Keys still work meanwhile; their moves are saved
// before the end too.
func (m *Model) quit() tea.Cmd {
	if !m.inFlight && len(m.queue) == 0 {
		return tea.Quit
	}
	if !m.quitting {
		m.quitting = true
		if m.table != nil {
			m.tbl().say(sInfo, "saving your game%s", m.env.gl.ell)
		}
		if m.watch != nil {
			m.watch.board.say(sInfo, "saving your game%s", m.env.gl.ell)
		}
		m.editMenu().say(sInfo, "saving your game"+m.env.gl.ell)
		m.sayAccount(sInfo, "saving your game"+m.env.gl.ell)
		m.sayHeld(sInfo, "saving your game"+m.env.gl.ell)
	}
	return nil
}

// needs is the smallest window the current screen is readable in.
func (m *Model) needs() (w, h int) {
	if m.screen == screenWatch && m.watch != nil {
		return m.watch.needs()
	}
	if m.hold != nil {
		return m.hold.needs()
	}
	if m.screen == screenTable && m.playing {
		return m.table.needs()
	}
	return minTableWidth, 16
}

// tooSmall reports whether the window is below what the screen needs.
func (m *Model) tooSmall() bool {
	w, h := m.needs()
	return m.w < w || m.h < h
}

// View draws the current screen. Without Unicode, the few non-ASCII
// characters of shared texts (the engine's rule descriptions, labels) are
// replaced by ASCII of the same width.
func (m Model) View() string {
	v := m.view()
	if !m.env.gl.unicode {
		v = asciiReplacer.Replace(v)
	}
	return v
}

func (m *Model) view() string {
	if m.tooSmall() {
		w, h := m.needs()
		return tooSmall(m.w, m.h, w, h, m.env.gl)
	}
	if m.screen == screenWatch && m.watch != nil {
		// The solver's line, not the player's game: the held table,
		// which keeps a move from showing before it is stored, is not
		// what this screen shows.
		return m.watch.view()
	}
	if m.hold != nil {
		return m.hold.view()
	}
	switch m.screen {
	case screenTable:
		if m.table != nil {
			return m.table.view()
		}
	case screenHelp, screenConfirm, screenStats, screenBoard, screenName, screenLink, screenRedeem:
		return m.viewScreen()
	case screenDealing:
		msg := "Dealing" + m.env.gl.ell
		if m.resume != nil {
			msg = "Fetching your game" + m.env.gl.ell
		} else if m.menu.Winnable && m.env.solver != nil {
			msg = "Finding a deal the solver can win" + m.env.gl.ell
		}
		return centered(m.w, m.h, msg, "q: back to the menu")
	}
	return m.menu.View()
}

// viewScreen draws a screen the model keeps behind a pointer, apart from
// view for the reason updateScreen is apart from update.
func (m *Model) viewScreen() string {
	switch m.screen {
	case screenHelp:
		return m.help.View()
	case screenConfirm:
		return m.confirm.View()
	case screenStats:
		return m.stats.View()
	case screenBoard:
		return m.board.View()
	case screenName:
		return m.rename.View()
	case screenLink:
		return m.linking.View()
	case screenRedeem:
		return m.redeem.View()
	}
	return ""
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

// continueNote describes the game Continue returns to, or "".
func (m *Model) continueNote() string {
	switch {
	case m.playing && m.table.d.status != engine.Won:
		g := m.table.game
		return fmt.Sprintf("%s%s%d %s", m.table.title, m.env.gl.sep, g.MovesMade(), plural(g.MovesMade(), "move", "moves"))
	case m.resume != nil:
		return m.storedTitle(*m.resume)
	}
	return ""
}

// storedTitle describes a stored game: rule set, deal and moves.
func (m *Model) storedTitle(sg SavedGame) string {
	r, err := engine.ParseRules(sg.Record.Rules)
	if err != nil {
		return ""
	}
	d := engine.Deal{Number: sg.Record.Deal, Numbered: sg.Record.DealText == ""}
	n := len(sg.Record.Moves)
	return fmt.Sprintf("%s%s%d %s", titleOf(r, d, sg.Daily, m.env.gl.sep), m.env.gl.sep, n, plural(n, "move", "moves"))
}

// askStart starts spec, after a confirmation when it would abandon a game
// in progress (changing rule set mid-game asks first, as the seeds do).
func (m *Model) askStart(spec dealSpec) tea.Cmd {
	var detail string
	switch {
	case m.playing && m.table.d.status == engine.Playing && m.table.game.MovesMade() > 0:
		g := m.table.game
		detail = fmt.Sprintf("The game in progress (%s, %d %s) will be abandoned.", m.table.title, g.MovesMade(), plural(g.MovesMade(), "move", "moves"))
	case !m.playing && m.resume != nil && m.resume.Record.Rules == spec.rules.ID() && !spec.daily:
		detail = "Your unfinished game (" + m.storedTitle(*m.resume) + ") will be abandoned; Continue in the menu goes back to it."
	default:
		return m.start(spec)
	}
	q := "Start a new " + spec.rules.Title() + " game?"
	if m.playing && m.table.game.Rules().ID() == spec.rules.ID() {
		q = "Start a new deal?"
	}
	m.back = m.screen
	m.confirm = ref(newConfirm(m.env, q, detail, spec, m.w, m.h))
	m.screen = screenConfirm
	return nil
}

// start deals spec: at once for a deal number, through a command for a
// new or daily deal (the clock and the solver live outside Update).
func (m *Model) start(spec dealSpec) tea.Cmd {
	var cmds []tea.Cmd
	if m.playing && m.table.d.status != engine.Won && m.table.game.MovesMade() > 0 {
		st := StatusAbandoned
		if m.table.d.status == engine.Lost {
			st = StatusLost
		}
		cmds = append(cmds, m.queueSave(st))
	}
	if !m.playing && m.resume != nil && m.resume.Record.Rules == spec.rules.ID() && !spec.daily {
		cmds = append(cmds, m.abandonStored(*m.resume))
		m.resume = nil
	}
	if m.menu.rules != spec.rules {
		m.editMenu().rules = spec.rules
	}
	winnable := m.menu.Winnable && m.env.solver != nil
	if !spec.hasNumber && !spec.daily && !winnable && !m.seed.IsZero() {
		spec.number, spec.hasNumber = dealFromClock(m.seed.Add(time.Duration(m.dealCount))), true
		m.dealCount++
	}
	if spec.hasNumber {
		g, err := engine.NewNumbered(spec.rules, spec.number)
		if err != nil {
			m.editMenu().say(sErr, clean(err.Error(), 200))
			m.screen = screenMenu
			return tea.Batch(cmds...)
		}
		m.seat(g, "", time.Time{}, 0, "")
		return tea.Batch(append(cmds, m.env.readClock(m.token, clockStart))...)
	}
	m.dealReq++
	req := m.dealReq
	m.screen = screenDealing
	e := m.env
	cmds = append(cmds, func() tea.Msg {
		now := e.now()
		msg := dealtMsg{req: req, spec: spec, now: now}
		switch {
		case spec.daily:
			msg.day = now.UTC().Format("2006-01-02")
			msg.number = engine.DailyNumber(now)
			if e.solver != nil {
				ctx, cancel := context.WithTimeout(e.ctx, dailyTimeout)
				defer cancel()
				if n, err := e.solver.DailyDeal(ctx, spec.rules, now); err == nil {
					msg.number = n
				}
			}
		case winnable:
			start := dealFromClock(now)
			msg.number = start
			ctx, cancel := context.WithTimeout(e.ctx, dealTimeout)
			defer cancel()
			n, err := e.solver.NextWinnable(ctx, spec.rules, start)
			if err != nil {
				msg.note = "the solver found no winnable deal in time: this one may not be winnable"
			} else {
				msg.number = n
				msg.note = "the solver can win this deal"
			}
		default:
			msg.number = dealFromClock(now)
		}
		return msg
	})
	return tea.Batch(cmds...)
}

// dealt seats the deal a command found.
func (m *Model) dealt(msg dealtMsg) tea.Cmd {
	if msg.req != m.dealReq || m.screen != screenDealing {
		return nil
	}
	if msg.spec.daily {
		for _, sg := range m.unfinished {
			if sg.Daily == msg.day && sg.Record.Rules == msg.spec.rules.ID() {
				m.resume = &sg
				return m.resumeGame()
			}
		}
	}
	g, err := engine.NewNumbered(msg.spec.rules, msg.number)
	if err != nil {
		m.screen = screenMenu
		m.editMenu().say(sErr, clean(err.Error(), 200))
		return nil
	}
	m.seat(g, msg.day, msg.now, 0, "")
	t := m.tbl()
	t.since = msg.now
	if msg.note != "" {
		t.say(sInfo, "%s", msg.note)
	}
	return nil
}

// seat puts a game on the table and shows it. After a lost game, the
// new table says what the solver found about the deal left behind.
func (m *Model) seat(g *engine.Game, day string, started time.Time, played time.Duration, id string) {
	var left *Table
	if m.playing && m.table.d.status == engine.Lost && m.table.answer != answerNone {
		left = m.table
	}
	m.token++
	m.hold = nil // it showed the game that leaves the table
	m.day = day
	m.started = started
	if id != "" {
		m.ids[m.token] = id
	}
	title := titleOf(g.Rules(), g.Deal(), day, m.env.gl.sep)
	m.table, m.ownTable = newTable(m.env, m.menu.Scheme, g, m.token, title, played, m.w, m.h), true
	m.saved = m.table.version
	if left != nil {
		if left.answer.decided() {
			m.table.say(sInfo, "%s", left.answer.afterNote())
		} else {
			m.table.after = left.token // the answer is on its way
		}
	}
	m.playing = true
	m.resume = nil
	m.screen = screenTable
	if m.menu.rules != g.Rules() {
		m.editMenu().rules = g.Rules()
	}
}

// loaded takes the player's unfinished games: the newest becomes the
// menu's Continue, and a deep link to one of them continues it.
func (m *Model) loaded(msg unfinishedMsg) tea.Cmd {
	m.loading = false
	m.unfinished = msg.games
	if msg.err != nil {
		m.editMenu().say(sWarn, clean("could not load your games: "+msg.err.Error(), 200))
	}
	if m.link != nil {
		spec := *m.link
		m.link = nil
		for _, sg := range msg.games {
			if sg.Record.Rules == spec.rules.ID() && spec.hasNumber && sg.Record.Deal == spec.number && sg.Record.DealText == "" {
				m.resume = &sg
				return m.resumeGame()
			}
		}
		if len(msg.games) > 0 && !m.playing {
			m.resume = &msg.games[0]
		}
		return m.start(spec)
	}
	if len(msg.games) > 0 && !m.playing {
		m.resume = &msg.games[0]
		m.editMenu().setContinue(m.continueNote())
	}
	return nil
}

// resumedMsg brings a stored game the session took over.
type resumedMsg struct {
	req  int
	game SavedGame
	err  error
}

// resumeGame goes back to the game on the table, or takes the stored one
// over (through a command) and seats it.
func (m *Model) resumeGame() tea.Cmd {
	if m.playing {
		m.screen = screenTable
		return nil
	}
	if m.resume == nil || !m.env.persist() {
		return nil
	}
	m.dealReq++
	req, id := m.dealReq, m.resume.ID
	games, player, ctx := m.env.games, m.env.player.ID, m.env.ctx
	m.screen = screenDealing
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, loadTimeout)
		defer cancel()
		sg, err := games.Resume(ctx, player, id)
		return resumedMsg{req: req, game: sg, err: err}
	}
}

// resumed seats a stored game the session took over.
func (m *Model) resumed(msg resumedMsg) tea.Cmd {
	if msg.req != m.dealReq || m.screen != screenDealing {
		return nil
	}
	m.resume = nil
	var g *engine.Game
	err := msg.err
	if err == nil {
		g, err = engine.Replay(msg.game.Record)
	}
	if err != nil {
		m.screen = screenMenu
		mn := m.editMenu()
		mn.setContinue("")
		mn.say(sErr, clean("could not restore your game: "+err.Error(), 200))
		return nil
	}
	sg := msg.game
	m.seat(g, sg.Daily, sg.Started, sg.Played, sg.ID)
	t := m.tbl()
	t.say(sInfo, "welcome back: your game is as you left it (undo goes back to the start)")
	// A game stored at a lost position ended there: ask about its deal
	// as the lost screen does.
	return tea.Batch(m.env.readClock(m.token, clockStart), t.askDeal())
}

// solvedReply takes the solver's answer about a deal: for the game on
// the table, or for the lost game the player dealt anew from, which the
// new table tells of.
func (m *Model) solvedReply(msg solvedMsg) {
	if !m.playing {
		return
	}
	switch {
	case msg.token == m.token:
		m.tbl().solved(msg)
	case msg.token == m.table.after && msg.token != 0:
		t := m.tbl()
		t.after = 0
		if t.sel == engine.NoPlace && !t.promptOpen {
			t.say(sInfo, "%s", answerOf(msg.verdict, msg.err).afterNote())
		}
	}
}
