package tui

import (
	"context"
	"errors"
	"strings"
	"sync"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
	"pyramid/lobby"
)

// Replies about the watchable setting.
type (
	// watchableMsg brings the setting "Others may watch me" as stored.
	watchableMsg struct {
		on  bool
		err error
	}
	// watchableSetMsg is the answer to a change of it.
	watchableSetMsg struct {
		on  bool
		err error
	}
	// menuLobbyMsg: the player opens the Lobby screen.
	menuLobbyMsg struct{}
	// dailyPlayingMsg brings how many play the daily deal now.
	dailyPlayingMsg struct{ n int }
)

func (dailyPlayingMsg) to() screenID { return screenLeaders }

// liveState is what the session last told the lobby, and what the lobby
// told it. Model.live holds it; only Update changes it.
type liveState struct {
	// box hands what the lobby should know to the commands that tell it.
	box *liveBox
	// told is what the model last asked the box to tell.
	told     lobby.Doing
	toldOK   bool
	cur      screenID // the screen that showed at the last Update
	viewer   bool     // presence viewer
	daily    bool     // daily board viewer
	online   int      // from lobby.PresenceChanged
	watchers int      // spectators of this session, from lobby.Spectators
	// pub says what the spectators were last sent: the game's token and
	// version, or pubNone.
	pubToken, pubVersion int
	// link is the name of the deep link `watch NAME`, until it is
	// asked for.
	link    string
	linkBad bool
	// back is where the spectate screen returns to: the Lobby or the
	// menu. asking is set while a Watch is on its way, and early keeps
	// the newest board that came before its answer (the lobby sends
	// boards as soon as it has added the spectator).
	back   screenID
	asking bool
	early  *lobby.Watched
}

// pubNone is pubToken when no game was published.
const pubNone = -1

// liveBox is the newest of what the lobby should know, for the commands
// that tell it. Commands run in goroutines of their own, in no set
// order: each command tells the lobby what the box holds then, under the
// box's lock, so the lobby always ends up with the newest, never with
// an older value that a late command carried.
type liveBox struct {
	mu      sync.Mutex
	doing   *lobby.Doing
	viewer  *bool
	daily   *bool
	board   *lobby.Board
	unwatch bool
}

// flush tells lb what the box holds, and empties it.
func (b *liveBox) flush(lb Lobby) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.doing != nil {
		lb.SetDoing(*b.doing)
		b.doing = nil
	}
	if b.viewer != nil {
		lb.WatchPresence(*b.viewer)
		b.viewer = nil
	}
	if b.daily != nil {
		lb.WatchDaily(*b.daily)
		b.daily = nil
	}
	if b.unwatch {
		lb.Unwatch()
		b.unwatch = false
	}
	if b.board != nil {
		lb.Publish(*b.board)
		b.board = nil
	}
}

// liveChange tells the lobby what changed in this Update: what the
// session does, whether it wants presence and the daily board's events,
// and, when somebody watches, the game's new position. It runs after
// every message (see handle) and returns one command, or nil.
func (m *Model) liveChange() tea.Cmd {
	lb := m.env.lobby
	if lb == nil {
		return nil
	}
	lv := &m.live
	if lv.box == nil {
		lv.box = &liveBox{}
		lv.pubToken = pubNone
	}
	box := lv.box
	box.mu.Lock()
	// The box gets copies made where something changed: a variable
	// whose address it takes would be allocated on every message, and
	// this runs after every key.
	dirty := false
	switch d, ok := m.doing(); {
	case !ok:
		// A screen whose presence the server tells (a spectator's or a
		// ghost's race): what it told is not lv.told, so the next screen
		// known here tells anew.
		lv.toldOK = false
	case !lv.toldOK || d != lv.told:
		lv.told, lv.toldOK = d, true
		box.doing, dirty = ptr(d), true
	}
	if viewer := m.cur == screenMenu || m.cur == screenLobby || m.cur == screenLeaders; viewer != lv.viewer {
		lv.viewer = viewer
		box.viewer, dirty = ptr(viewer), true
	}
	if daily := m.cur == screenLeaders; daily != lv.daily {
		lv.daily = daily
		box.daily, dirty = ptr(daily), true
	}
	if b, ok := m.boardChange(); ok {
		box.board, dirty = ptr(b), true
	}
	box.mu.Unlock()
	if t := m.table(); t != nil {
		t.watchers = lv.watchers
	}
	var count tea.Cmd
	if m.cur == screenLeaders && lv.cur != screenLeaders {
		count = m.env.countDaily()
	}
	lv.cur = m.cur
	if !dirty {
		return count
	}
	return tea.Batch(count, func() tea.Msg {
		box.flush(lb)
		return nil
	})
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }

// doing is what the session does as the lobby shows it; ok is false on
// a screen whose presence the server tells (a spectator's or a ghost's
// race, see raceScreen.doing).
func (m *Model) doing() (d lobby.Doing, ok bool) {
	cur := m.cur
	if cur == screenHelp || cur == screenConfirm {
		cur = m.back
	}
	switch cur {
	case screenTable, screenWatch:
		if !m.playing {
			return lobby.Doing{What: lobby.AtMenu}, true
		}
		g := m.table().game
		d = lobby.Doing{What: lobby.Playing, Rules: g.Rules().ID(), Removed: g.Removed(), Finished: g.Status() != engine.Playing}
		if deal := g.Deal(); deal.Numbered {
			d.Deal = deal.Number
		} else {
			d.Custom = true
		}
		// A daily's number stays hidden until its day is over: a player
		// who finished would tell it to those still to play; a
		// challenge's until the challenge is, which this session does
		// not learn: it stays hidden here.
		t := m.table()
		over := d.Finished && t.day == ""
		if t.challenge != "" {
			over = false
		}
		return d.HideDeal(lobby.DealShown(t.chosen, over)), true
	case screenSpectate:
		if s := m.spectate(); s != nil && s.ended == "" {
			return lobby.Doing{What: lobby.Watching, Watched: s.name}, true
		}
		return lobby.Doing{What: lobby.AtMenu}, true
	case screenMenu, screenDealing, screenStats, screenLeaders, screenName, screenLink, screenRedeem, screenLobby, screenArena:
		return lobby.Doing{What: lobby.AtMenu}, true
	case screenRace:
		if rs := m.race(); rs != nil {
			return rs.doing()
		}
	}
	return lobby.Doing{}, false
}

// doing is what a racer does as the lobby shows it: racing in the room,
// on the deal of its round, with the cards the room has of the player.
// The server tells the same when the player takes a seat or moves; this
// keeps it true across a rematch, whose new deal comes to every racer
// before any of them moves. A ghost race, which only this session knows
// of, is racing in no room. ok is false for a spectator and before the
// seat, which the server alone tells.
func (rs *raceScreen) doing() (d lobby.Doing, ok bool) {
	s := &rs.snap
	if rs.ghost != nil && s.RulesID != "" {
		d = lobby.Doing{What: lobby.Racing, Rules: s.RulesID, Deal: s.Deal, Removed: rs.mine().Removed}
		if t := rs.table; t != nil && !t.game.Deal().Numbered {
			d.Deal, d.Custom = 0, true
		}
		return d, true
	}
	if mode := rs.mode(); mode == modeJoining || mode == modeCode || mode == modeSpectating || s.Code == "" {
		return lobby.Doing{}, false
	}
	return lobby.RacingIn(*s, rs.mine().Removed), true
}

// boardChange returns the board to send the spectators, when there are
// any and it changed since they were last sent one: the game while the
// player is at it, no game otherwise.
func (m *Model) boardChange() (lobby.Board, bool) {
	lv := &m.live
	if lv.watchers == 0 {
		lv.pubToken = pubNone - 1 // a new spectator gets a board at once
		return lobby.Board{}, false
	}
	if d, ok := m.doing(); ok && d.What == lobby.Playing && m.table().challenge == "" {
		// A challenge's game is shown to nobody: its opponent, still to
		// play the deal, would learn it.
		t := m.table()
		if lv.pubToken == m.token && lv.pubVersion == t.version {
			return lobby.Board{}, false
		}
		lv.pubToken, lv.pubVersion = m.token, t.version
		return lobby.Board{Record: t.game.Record(), Daily: t.day, Chosen: t.chosen}, true
	}
	if lv.pubToken == pubNone {
		return lobby.Board{}, false
	}
	lv.pubToken = pubNone
	return lobby.Board{}, true
}

// spectate is the spectate screen, or nil.
func (m *Model) spectate() *spectateScreen {
	s, _ := m.screens[screenSpectate].(*spectateScreen)
	return s
}

// lobbyList is the Lobby screen, or nil.
func (m *Model) lobbyList() *lobbyScreen {
	l, _ := m.screens[screenLobby].(*lobbyScreen)
	return l
}

// handleLobby takes the lobby's events, and the answer to a request to
// watch a player.
func (m *Model) handleLobby(msg tea.Msg) tea.Cmd {
	lv := &m.live
	switch msg := msg.(type) {
	case lobby.PresenceChanged:
		lv.online = msg.Online
		m.menu().online = msg.Online
		switch m.cur {
		case screenLobby:
			return m.lobbyList().load()
		case screenLeaders:
			return m.env.countDaily()
		}
	case lobby.Spectators:
		lv.watchers = msg.N
	case lobby.Watched:
		if s := m.spectate(); s != nil && s.ended == "" {
			s.watched(msg)
		} else if lv.asking {
			lv.early = &msg
		}
	case lobby.WatchEnded:
		if s := m.spectate(); s != nil {
			s.end(msg.Reason)
		} else if rs := m.race(); rs != nil && rs.mode() == modeSpectating {
			// A race room watched: the player went racing elsewhere.
			code, races := rs.snap.Code, rs.races
			seated := m.raceLeft(raceLeftMsg{st: sWarn, text: msg.Reason})
			return tea.Batch(seated, func() tea.Msg { _ = races.Leave(code); return nil })
		}
	case lobby.DailyChanged:
		if b, ok := m.screens[screenLeaders].(*leadersScreen); ok && m.cur == screenLeaders && msg.Rules == leadersRules && b.date == b.today {
			return b.load("")
		}
	case spectateMsg:
		return m.watchReply(msg)
	}
	return nil
}

// closeSpectate closes the spectate screen: back where the player asked
// from, and the lobby is told the session watches no more.
func (m *Model) closeSpectate() tea.Cmd {
	m.screens[screenSpectate] = nil
	switch m.live.back {
	case screenLobby:
		return tea.Batch(m.unwatch(), m.openLobby())
	case screenLeaders:
		m.show(screenLeaders) // the daily board, live again
		return m.unwatch()
	}
	m.show(screenMenu)
	m.setContinue()
	return m.unwatch()
}

// openLobby shows the Lobby screen and loads it.
func (m *Model) openLobby() tea.Cmd {
	l := m.lobbyList()
	if l == nil {
		l = newLobbyScreen(m.env, m.w, m.h)
		m.screens[screenLobby] = l
	}
	m.show(screenLobby)
	return l.load()
}

// askWatch asks the lobby to watch name.
func (m *Model) askWatch(name string) tea.Cmd {
	lb := m.env.lobby
	if lb == nil {
		return nil
	}
	lv := &m.live
	lv.back, lv.asking, lv.early = screenMenu, true, nil
	if m.cur == screenLobby || m.cur == screenLeaders {
		lv.back = m.cur
	}
	races := m.env.races
	return func() tea.Msg {
		for _, p := range lb.Who() {
			if p.What == lobby.Racing && p.Private && strings.EqualFold(p.Name, strings.TrimSpace(name)) {
				return spectateMsg{name: name, err: errors.New(privateRace(p.Name))}
			}
		}
		if races != nil {
			for _, p := range lb.Who() {
				if p.What == lobby.Racing && p.Room != "" && strings.EqualFold(p.Name, strings.TrimSpace(name)) {
					// A racer's board is in their room: watch the race.
					return spectateMsg{name: name, room: p.Room, racer: p.ID}
				}
			}
		}
		w, err := lb.Watch(name)
		return spectateMsg{name: name, watched: w, err: err}
	}
}

// privateRace is the refusal to watch a racer in a private room without
// its code: the code is the room's key, for its members to give.
func privateRace(name string) string {
	return clean(name, 16) + " races in a private room: to watch, ask for its code (race watch CODE)"
}

// watchReply opens the spectate screen, or says why not on the screen
// that asked.
func (m *Model) watchReply(msg spectateMsg) tea.Cmd {
	early := m.live.early
	m.live.asking, m.live.early = false, nil
	if msg.err != nil {
		text := Reason(msg.err)
		switch {
		case errors.Is(msg.err, lobby.ErrNotOnline):
			text = "nobody called " + clean(msg.name, 16) + " is online"
		case errors.Is(msg.err, lobby.ErrNotWatchable):
			text = clean(msg.name, 16) + " does not let others watch their games"
		}
		m.say(sErr, clean(text, 200))
		return nil
	}
	if m.cur != screenMenu && m.cur != screenLobby && m.cur != screenLeaders {
		return m.unwatch() // the player went elsewhere meanwhile
	}
	if msg.room != "" {
		return m.openRace(menuRaceMsg{code: msg.room, watch: true, racer: msg.racer})
	}
	s := newSpectate(m.env, msg.watched, m.w, m.h)
	if early != nil {
		s.watched(*early)
	}
	m.screens[screenSpectate] = s
	m.show(screenSpectate)
	return nil
}

// unwatch tells the lobby the session watches no more.
func (m *Model) unwatch() tea.Cmd {
	lb, box := m.env.lobby, m.live.box
	if lb == nil || box == nil {
		return nil
	}
	box.mu.Lock()
	box.unwatch = true
	box.mu.Unlock()
	return func() tea.Msg {
		box.flush(lb)
		return nil
	}
}

// countDaily asks how many play the daily deal now, for the daily
// board.
func (e *env) countDaily() tea.Cmd {
	lb := e.lobby
	if lb == nil {
		return nil
	}
	return func() tea.Msg { return dailyPlayingMsg{n: lb.PlayingRules(leadersRules)} }
}

// loadWatchable reads the setting "Others may watch me".
func (e *env) loadWatchable() tea.Cmd {
	lb := e.lobby
	if lb == nil {
		return nil
	}
	ctx := e.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, loadTimeout)
		defer cancel()
		on, err := lb.Watchable(ctx)
		return watchableMsg{on: on, err: err}
	}
}

// setWatchable keeps the setting; the menu takes the answer.
func (e *env) setWatchable(on bool) tea.Cmd {
	lb := e.lobby
	if lb == nil {
		return nil
	}
	ctx := e.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, saveTimeout)
		defer cancel()
		return watchableSetMsg{on: on, err: lb.SetWatchable(ctx, on)}
	}
}

// startLive is what Init asks of the lobby: the setting, and the deep
// link `watch NAME`.
func (m *Model) startLive() tea.Cmd {
	if m.env.lobby == nil {
		if m.live.link != "" || m.live.linkBad {
			m.menu().say(sErr, "watching is not available on this server")
		}
		return nil
	}
	cmds := []tea.Cmd{m.env.loadWatchable()}
	if m.live.linkBad {
		m.menu().say(sErr, "watch needs a player's name: watch NAME")
	}
	if name := m.live.link; name != "" {
		m.live.link = ""
		cmds = append(cmds, m.askWatch(name))
	}
	return tea.Batch(cmds...)
}
