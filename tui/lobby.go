package tui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
	"pyramid/lobby"
)

// lobbyMsg brings the lobby's snapshot: who is online, the public rooms.
type lobbyMsg struct {
	req   int
	who   []lobby.Presence
	rooms []lobby.RoomInfo
}

func (lobbyMsg) to() screenID { return screenLobby }

// lobbyScreen lists who is online and what each is doing, and the public
// race rooms waiting for players. It reloads on every
// lobby.PresenceChanged, which the lobby sends a viewer at most once per
// lobby.PresenceEvery: a burst of joins costs one redraw. w or enter on a
// player watches their game; the cursor goes on down to the rooms, where
// enter joins a waiting room (as the race screen's join does) and watches
// one whose race runs.
type lobbyScreen struct {
	chrome
	req   int
	ready bool
	who   []lobby.Presence
	rooms []lobby.RoomInfo
	cur   int // the line under the cursor: a player of who, then a room of shownRooms
	top   int // the first player shown
	up    key.Binding
	down  key.Binding
	watch key.Binding
	// challenge challenges the player under the cursor (tui/challenge.go).
	challenge key.Binding
	// arenas opens the list of arenas to join (arena.go), on a server
	// that has them.
	arenas key.Binding
	back   key.Binding
	bar    *helpBar

	// shown are the player lines (not the cursor's) the last view drew,
	// by what they show, drawn again at no cost when the player's line
	// did not change: the Lobby redraws twice a second while a thousand
	// players move, and a few lines change each time. linesKey is what
	// else a line depends on; spare is the next view's map.
	shown, spare map[lobby.Presence]string
	linesKey     linesKey
}

// linesKey is what a Lobby line depends on beside the player's presence.
type linesKey struct {
	w  int
	gl *glyphs
}

// newLobbyScreen builds the screen; load fills it.
func newLobbyScreen(e *env, w, h int) *lobbyScreen {
	l := &lobbyScreen{
		chrome:    chrome{w: w, h: h},
		up:        key.NewBinding(key.WithKeys("up", "k")),
		down:      key.NewBinding(key.WithKeys("down", "j")),
		watch:     key.NewBinding(key.WithKeys("w", "enter"), key.WithHelp("w", "watch")),
		challenge: key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "challenge")),
		arenas:    key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "arenas")),
		back:      key.NewBinding(key.WithKeys("q", "esc"), key.WithHelp("q", "menu")),
		bar:       newHelpBar(),
	}
	l.setEnv(e)
	return l
}

// setEnv draws the screen with the glyphs of e.
func (l *lobbyScreen) setEnv(e *env) {
	l.env = e
	if e.gl.unicode {
		l.up.SetHelp("↑/↓", "choose")
	} else {
		l.up.SetHelp("up/down", "choose")
	}
}

// load asks the lobby for its snapshot.
func (l *lobbyScreen) load() tea.Cmd {
	lb := l.env.lobby
	if lb == nil {
		return nil
	}
	l.req++
	req := l.req
	return func() tea.Msg {
		return lobbyMsg{req: req, who: lb.Listed(), rooms: lb.PublicRooms()}
	}
}

// loaded takes the snapshot, keeping the cursor on the same player.
func (l *lobbyScreen) loaded(msg lobbyMsg) {
	if msg.req != l.req {
		return
	}
	was, wasRoom := whoKey{}, ""
	if l.cur < len(l.who) {
		was = keyOf(l.who[l.cur])
	} else if r, ok := l.curRoom(); ok {
		wasRoom = r.Code
	}
	l.who, l.rooms, l.ready = msg.who, msg.rooms, true
	l.cur = 0
	for i, p := range l.who {
		if was != (whoKey{}) && keyOf(p) == was {
			l.cur = i
		}
	}
	for i, r := range l.shownRooms() {
		if wasRoom != "" && r.Code == wasRoom {
			l.cur = len(l.who) + i
		}
	}
	l.scroll()
}

// whoKey names a line of who across reloads: the player, or for a
// guest (no ID) its session on its server. Session numbers alone are
// each server's own, and a player's shown session can change.
type whoKey struct {
	player, instance string
	session          uint64
}

// keyOf is p's whoKey.
func keyOf(p lobby.Presence) whoKey {
	if p.ID != "" {
		return whoKey{player: p.ID}
	}
	return whoKey{instance: p.Instance, session: p.Session}
}

// maxLobbyRooms is the most rooms the Lobby lists.
const maxLobbyRooms = 4

// shownRooms are the rooms the screen lists.
func (l *lobbyScreen) shownRooms() []lobby.RoomInfo {
	return l.rooms[:min(len(l.rooms), maxLobbyRooms)]
}

// lines is how many lines the cursor moves over: players, then rooms.
func (l *lobbyScreen) lines() int { return len(l.who) + len(l.shownRooms()) }

// curRoom is the room under the cursor, if it is on one.
func (l *lobbyScreen) curRoom() (lobby.RoomInfo, bool) {
	i := l.cur - len(l.who)
	if rooms := l.shownRooms(); i >= 0 && i < len(rooms) {
		return rooms[i], true
	}
	return lobby.RoomInfo{}, false
}

// rows is how many players fit: the window less the title, the count,
// the column heads, the rooms, the message line and the help bar.
func (l *lobbyScreen) rows() int {
	rooms := 2 + max(1, len(l.shownRooms()))
	return max(1, l.h-5-rooms)
}

// scroll keeps the cursor in view.
func (l *lobbyScreen) scroll() {
	n := l.rows()
	l.top = max(0, min(l.top, len(l.who)-n))
	cur := min(l.cur, len(l.who)-1) // on a room, the players stay put
	if cur < 0 {
		return
	}
	if cur < l.top {
		l.top = cur
	}
	if cur >= l.top+n {
		l.top = cur - n + 1
	}
}

func (l *lobbyScreen) setSize(w, h int) {
	l.w, l.h = w, h
	l.scroll()
}

// update moves the cursor, watches, or goes back.
func (l *lobbyScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case lobbyMsg:
		l.loaded(msg)
		return nil
	case challengeOfferedMsg:
		l.said(msg) // challenge.go
		return nil
	}
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, l.up):
		l.cur = max(0, l.cur-1)
		l.scroll()
	case key.Matches(k, l.down):
		l.cur = max(0, min(l.lines()-1, l.cur+1))
		l.scroll()
	case key.Matches(k, l.watch):
		if r, ok := l.curRoom(); ok {
			l.msg = ""
			l.event = menuRaceMsg{code: r.Code, watch: r.Phase == lobby.PhaseCountdown || r.Phase == lobby.PhaseRacing}
			return nil
		}
		if l.cur < len(l.who) {
			p := l.who[l.cur]
			if l.isYou(p) {
				l.say(sWarn, "that is you")
				return nil
			}
			l.msg = ""
			if p.What == lobby.Racing && p.Private {
				l.say(sWarn, privateRace(p.Name))
				return nil
			}
			if p.What == lobby.Racing && p.Room != "" && l.env.races != nil {
				// A racer's board is in their room: watch the race.
				l.event = menuRaceMsg{code: p.Room, watch: true, racer: p.ID}
				return nil
			}
			l.event = spectateOpenMsg{name: p.Name}
		}
	case key.Matches(k, l.challenge) && l.canChallenge():
		return l.offer(l.who[l.cur])
	case key.Matches(k, l.arenas) && l.env.arenas != nil:
		l.msg = ""
		l.event = menuArenasMsg{}
	case key.Matches(k, l.back):
		l.event = backMsg{}
	}
	return nil
}

// isYou reports whether a line is the player's own.
func (l *lobbyScreen) isYou(p lobby.Presence) bool {
	me := l.env.player
	return !me.Guest && me.ID != "" && p.ID == me.ID
}

// view draws the screen, exactly h lines.
func (l *lobbyScreen) view() string {
	e := l.env
	pal := e.pal
	var body []string
	body = append(body, "    "+pal.style(sBold, padRight("player", lobbyNameW)+"  doing"))
	switch {
	case !l.ready:
		body = append(body, "    loading"+e.gl.ell)
	case len(l.who) == 0:
		body = append(body, "    nobody is online")
	}
	n := l.rows()
	if k := (linesKey{w: l.w, gl: e.gl}); k != l.linesKey || l.shown == nil {
		l.shown, l.spare, l.linesKey = map[lobby.Presence]string{}, map[lobby.Presence]string{}, k
	}
	for i := l.top; i < len(l.who) && i < l.top+n; i++ {
		p := l.who[i]
		if i == l.cur {
			body = append(body, l.row(p, true))
			continue
		}
		line, ok := l.shown[p]
		if !ok {
			line = l.row(p, false)
		}
		l.spare[p] = line
		body = append(body, line)
	}
	l.shown, l.spare = l.spare, l.shown
	clear(l.spare)
	for len(body) < n+1 {
		body = append(body, "")
	}
	body = append(body, "", " "+pal.style(sBold, "Race rooms waiting for players"))
	if len(l.rooms) == 0 {
		body = append(body, "    "+pal.style(sDim, "no public room is waiting right now"))
	}
	for i, r := range l.shownRooms() {
		line := l.room(r)
		if len(l.who)+i == l.cur {
			body = append(body, "  > "+pal.style(sMenuCur, line))
		} else {
			body = append(body, "    "+line)
		}
	}
	sub := strconv.Itoa(len(l.who)) + " online"
	msg, st := l.msg, l.msgSt
	if msg == "" {
		msg, st = "w on a player watches their game, read-only; enter on a room joins it", sDim
		if r, ok := l.curRoom(); ok {
			msg = "enter joins room " + clean(r.Code, 8)
			if r.Phase == lobby.PhaseCountdown || r.Phase == lobby.PhaseRacing {
				msg = "enter watches the race in room " + clean(r.Code, 8)
			}
		}
	}
	l.watch.SetEnabled(l.lines() > 0)
	watch := l.watch
	if r, ok := l.curRoom(); ok {
		watch.SetHelp("enter", "join")
		if r.Phase == lobby.PhaseCountdown || r.Phase == lobby.PhaseRacing {
			watch.SetHelp("enter", "watch")
		}
	}
	l.challenge.SetEnabled(l.canChallenge())
	l.arenas.SetEnabled(e.arenas != nil)
	return drawPage(e, l.w, l.h, "Pyramid Solitaire"+e.gl.sep+"lobby", sub, body, msg, st, l.bar,
		[]key.Binding{l.up, watch, l.challenge, l.arenas, l.back})
}

// lobbyNameW is the width of the Lobby's name column: a name of 16
// cells, or a guest's of 10 and " (guest)".
const lobbyNameW = 18

// row draws one player.
func (l *lobbyScreen) row(p lobby.Presence, cur bool) string {
	pal := l.env.pal
	name := clean(p.Name, 16)
	if p.Guest {
		name = clean(p.Name, 10) + " (guest)"
	}
	if l.isYou(p) {
		name = clean(p.Name, 10) + " (you)"
	}
	name = padRight(name, lobbyNameW)
	var b strings.Builder
	if cur {
		b.WriteString("  > ")
		b.WriteString(pal.style(sMenuCur, name))
	} else {
		b.WriteString("    ")
		b.WriteString(name)
	}
	b.WriteString("  ")
	doing, w := describeDoing(p.Doing, l.env.gl), max(1, l.w-lobbyNameW-8)
	if p.What == lobby.Racing && cells(doing) > w {
		// The room says which deal: its number goes before the cards.
		doing = strings.Replace(doing, l.env.gl.sep+dealLabel(p.Deal, !p.Hidden), "", 1)
	}
	b.WriteString(cut(doing, w, l.env.gl.ell))
	return b.String()
}

// room draws one public room.
func (l *lobbyScreen) room(r lobby.RoomInfo) string {
	gl := l.env.gl
	phase := ""
	if r.Phase != lobby.PhaseWaiting {
		phase = gl.sep + r.Phase.String()
	}
	if !r.Rated {
		phase += gl.sep + "unrated" // its host chose the deal
	}
	return clean(r.Code, 8) + "  " + padRight(clean(r.RulesTitle, 20), 20) + "  " +
		strconv.Itoa(r.Players) + "/" + strconv.Itoa(r.MaxPlayers) + " players" + gl.sep + "host " + clean(r.Host, 16) + phase
}

// racePhaseWords is how the Lobby and who begin the line of a racer in
// a room, up to the room: "room CODE", or "a private room", whose code
// is kept from everyone outside it.
func racePhaseWords(d lobby.Doing) string {
	room := "room " + clean(d.Room, 8)
	if d.Private {
		room = "a private room"
	}
	switch d.Phase {
	case lobby.RaceWaiting:
		return "waiting in " + room
	case lobby.RaceResults:
		return "at the results of " + room
	}
	return "racing in " + room
}

// describeDoing says what a player is doing, as the Lobby screen and
// `who` say it.
func describeDoing(d lobby.Doing, gl *glyphs) string {
	game := func() string {
		title, total := clean(d.Rules, 30), ""
		if r, err := engine.ParseRules(d.Rules); err == nil {
			title, total = r.Title(), "/"+strconv.Itoa(r.PyramidSize())
		}
		deal := gl.sep + dealLabel(d.Deal, !d.Hidden)
		switch {
		case d.Private:
			deal = "" // the room's members' business
		case d.Custom:
			deal = gl.sep + "a custom deal"
		}
		if d.What == lobby.Racing && d.Phase == lobby.RaceWaiting {
			return title + deal // no card is removed before the start
		}
		return title + deal + gl.sep + strconv.Itoa(d.Removed) + total + " removed"
	}
	switch d.What {
	case lobby.Playing:
		if d.Finished {
			return "finished " + game()
		}
		return "playing " + game()
	case lobby.Racing:
		if d.Room == "" && !d.Private {
			return "racing a ghost" + gl.sep + game()
		}
		return racePhaseWords(d) + gl.sep + game()
	case lobby.Watching:
		return "watching " + clean(d.Watched, 16)
	}
	return "in the menu"
}
