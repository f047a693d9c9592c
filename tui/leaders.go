package tui

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
)

// The daily board the screen shows: the rule set and how many places.
const (
	leadersRules = "daily"
	leadersLimit = 20
)

// leadersMsg brings a day's board, read through Account.Board.
type leadersMsg struct {
	req  int
	date string
	// today is the session clock's UTC date when the command read the
	// clock (a load of today's board), otherwise empty.
	today   string
	entries []BoardEntry
	err     error
}

// leadersScreen shows the daily deal's board of one day, best first, the
// player's own line marked. Left and right go to the day before and
// after; today's date comes from the session's clock, read in a command.
type leadersScreen struct {
	chrome
	req     int // of the latest load; older answers are dropped
	loading bool
	date    string // the day shown, empty until the first answer
	today   string // the session clock's date at the last load of today
	entries []BoardEntry
	top     int // first line shown when the board is longer than the window
	// cur is the line of the row cursor, which g (race its ghost) and
	// enter (watch the player) act on. A live update keeps it on the
	// same player.
	cur     int
	total   int // pyramid cards of the daily rules
	prev    key.Binding
	next    key.Binding
	toToday key.Binding
	up      key.Binding
	down    key.Binding
	reload  key.Binding
	back    key.Binding
	// ghost races the ghost of the line under the cursor (ghost.go);
	// watch watches that player's game live, when there is a lobby.
	ghost key.Binding
	watch key.Binding
	// challenge challenges that player (challenge.go).
	challenge key.Binding
	bar       *helpBar
	// playing is how many play the daily deal now (presence.go), -1
	// until the lobby said.
	playing int
	// par is the par of the day's deal (par.go), 0 until known.
	par int
	// dailyDone: the player finished today's daily deal, as the menu
	// knows it, on the board or off it (an assisted game is off it).
	dailyDone bool
}

// newLeadersScreen builds the screen; open shows and loads it.
func newLeadersScreen(e *env, w, h int) *leadersScreen {
	total := 28
	if r, err := engine.ParseRules(leadersRules); err == nil {
		total = r.PyramidSize()
	}
	b := &leadersScreen{
		chrome:    chrome{w: w, h: h},
		total:     total,
		playing:   -1,
		prev:      key.NewBinding(key.WithKeys("left", "h", "a")),
		next:      key.NewBinding(key.WithKeys("right", "l", "d")),
		toToday:   key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "today")),
		up:        key.NewBinding(key.WithKeys("up", "k", "w", "pgup", "home")),
		down:      key.NewBinding(key.WithKeys("down", "j", "s", "pgdown", " ", "end")),
		reload:    key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload")),
		back:      key.NewBinding(key.WithKeys("q", "esc"), key.WithHelp("q", "menu")),
		ghost:     key.NewBinding(key.WithKeys("g"), key.WithHelp("g", "race its ghost")),
		watch:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "watch")),
		challenge: key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "challenge")),
		bar:       newHelpBar(),
	}
	b.setEnv(e)
	return b
}

// setEnv draws the screen with the glyphs of e: the help bar names
// the arrows with them.
func (b *leadersScreen) setEnv(e *env) {
	upDown, left, right := "↑/↓", "←", "→"
	if !e.gl.unicode {
		upDown, left, right = "up/down", "left", "right"
	}
	b.env = e
	b.prev.SetHelp(left, "day before")
	b.next.SetHelp(right, "day after")
	b.up.SetHelp(upDown, "select")
}

// open shows today's board, loading it afresh.
func (b *leadersScreen) open() tea.Cmd {
	b.date, b.entries, b.top, b.cur = "", nil, 0, 0
	return b.load("")
}

// load asks the account for the board of date, or of today (read from
// the session's clock in the command) when date is empty.
func (b *leadersScreen) load(date string) tea.Cmd {
	b.req++
	b.loading, b.msg = true, ""
	// Today's board again (a live update) keeps what it shows until the
	// answer, which keeps the cursor on the same player.
	if again := date == b.date || date == "" && b.date != "" && b.date == b.today; !again {
		b.date, b.entries, b.top, b.cur = date, nil, 0, 0
		b.par = 0 // par.go
	}
	e, req := b.env, b.req
	return tea.Batch(e.askDailyPar(leadersRules, date) /* par.go */, func() tea.Msg {
		msg := leadersMsg{req: req, date: date}
		if date == "" {
			msg.today = e.now().UTC().Format(time.DateOnly)
			msg.date = msg.today
		}
		ctx, cancel := context.WithTimeout(e.ctx, loadTimeout)
		defer cancel()
		msg.entries, msg.err = e.account.Board(ctx, leadersRules, msg.date, leadersLimit)
		return msg
	})
}

// loaded takes the account's answer. The cursor stays on the player it
// was on when the board is the same day's (a live update, a reload),
// else it goes to the player's own line, and is scrolled into view.
func (b *leadersScreen) loaded(msg leadersMsg) {
	if msg.req != b.req {
		return
	}
	b.loading = false
	if msg.today != "" {
		b.today = msg.today
	}
	var was *BoardEntry
	if b.date == msg.date && b.cur < len(b.entries) {
		was = &b.entries[b.cur]
	}
	b.date = msg.date
	if msg.err != nil {
		b.entries, b.cur = nil, 0
		b.msg, b.msgSt = clean("could not load the board: "+Reason(msg.err), 200), sErr
		return
	}
	b.cur = -1
	for i, en := range msg.entries {
		if was != nil && en.Name == was.Name && en.GameID == was.GameID {
			b.cur = i
		}
	}
	if b.cur < 0 {
		b.cur = max(0, slices.IndexFunc(msg.entries, func(en BoardEntry) bool { return en.You }))
	}
	b.entries = msg.entries
	b.top = 0
	if b.cur >= b.room() {
		b.top = min(b.cur-b.room()/2, b.maxTop())
	}
}

// moveCursor moves the row cursor by n lines, within the board, and
// scrolls it into view.
func (b *leadersScreen) moveCursor(n int) {
	b.cur = max(0, min(len(b.entries)-1, b.cur+n))
	if b.cur < b.top {
		b.top = b.cur
	}
	if b.cur >= b.top+b.room() {
		b.top = b.cur - b.room() + 1
	}
	b.top = max(0, min(b.top, b.maxTop()))
}

// spoils reports whether a ghost of the board would spoil the player's
// daily: today's board, and the player has not finished the deal (on
// the board, or off it with an assisted game, as the menu knows).
func (b *leadersScreen) spoils() bool {
	return b.date == b.today && !b.dailyDone && !slices.ContainsFunc(b.entries, func(e BoardEntry) bool { return e.You })
}

// step is how many lines a cursor key moves: a page, the whole board
// (home, end) or one.
func (b *leadersScreen) step(k tea.KeyMsg) int {
	switch k.String() {
	case "pgup", "pgdown":
		return b.room()
	case "home", "end":
		return len(b.entries)
	}
	return 1
}

// selected is the entry under the cursor, or nil.
func (b *leadersScreen) selected() *BoardEntry {
	if b.cur < len(b.entries) {
		return &b.entries[b.cur]
	}
	return nil
}

// SetSize sets the window size.
func (b *leadersScreen) setSize(w, h int) {
	b.w, b.h = w, h
	b.moveCursor(0)
}

// room is how many lines of the board fit: the window less the title,
// the column heads, the message line and the help bar.
func (b *leadersScreen) room() int   { return max(1, b.h-4) }
func (b *leadersScreen) maxTop() int { return max(0, len(b.entries)-b.room()) }

// Update changes the day, scrolls, reloads, or goes back.
func (b *leadersScreen) update(msg tea.Msg) tea.Cmd {
	switch r := msg.(type) {
	case leadersMsg:
		b.loaded(r)
		return nil
	case dailyPlayingMsg:
		b.playing = r.n
		return nil
	case boardParMsg: // par.go
		if r.date == b.date || b.date == "" {
			b.par = r.par
		}
		return nil
	case challengeOfferedMsg:
		b.said(r) // challenge.go
		return nil
	}
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	b.updateKeys()
	switch {
	case key.Matches(k, b.prev):
		return b.load(shiftDate(b.date, -1))
	case key.Matches(k, b.next):
		return b.load(shiftDate(b.date, 1))
	case key.Matches(k, b.toToday):
		return b.load("")
	case key.Matches(k, b.up):
		b.moveCursor(-b.step(k))
	case key.Matches(k, b.down):
		b.moveCursor(b.step(k))
	case key.Matches(k, b.reload):
		return b.load(b.date)
	case key.Matches(k, b.ghost):
		// The line under the cursor. Today's board only once the player
		// finished the deal (no spoilers); the server checks it again.
		if b.spoils() {
			b.say(sWarn, "finish today's daily deal first: its best plays would spoil it")
		} else if en := b.selected(); en != nil && en.GameID != "" {
			b.event = ghostAskMsg{ref: en.GameID}
		}
	case bound(k, b.watch) && b.env.lobby != nil:
		switch en := b.selected(); {
		case en == nil:
		case en.You:
			b.say(sWarn, "that is you")
		default:
			b.event = spectateOpenMsg{name: en.Name}
		}
	case key.Matches(k, b.challenge):
		if en := b.selected(); en != nil && !en.You {
			b.say(sInfo, "challenging "+clean(en.Name, 16)+b.env.gl.ell)
			b.event = challengeAskMsg{screen: screenLeaders, name: en.Name}
		}
	case key.Matches(k, b.back):
		b.event = backMsg{}
	}
	return nil
}

// updateKeys enables the bindings that apply now: no day after today,
// no cursor on a board of one line, g on a line with a stored game,
// enter on another player's line when there is a lobby to watch them in.
func (b *leadersScreen) updateKeys() {
	b.prev.SetEnabled(b.date != "")
	b.next.SetEnabled(b.date != "" && b.date < b.today)
	b.toToday.SetEnabled(b.date != "" && b.date != b.today)
	b.up.SetEnabled(len(b.entries) > 1)
	b.down.SetEnabled(len(b.entries) > 1)
	b.reload.SetEnabled(!b.loading && b.date != "")
	en := b.selected()
	b.ghost.SetEnabled(b.env != nil && b.env.ghosts != nil && en != nil && en.GameID != "")
	b.watch.SetEnabled(b.env != nil && b.env.lobby != nil && en != nil && !en.You)
	b.challenge.SetEnabled(b.env != nil && b.env.challenges != nil && !b.env.player.Guest && en != nil && !en.You)
}

// shiftDate returns the UTC date days after date (time.DateOnly); a date
// that does not parse stays as it is.
func shiftDate(date string, days int) string {
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return date
	}
	return t.AddDate(0, 0, days).Format(time.DateOnly)
}

// dayLabel names the day shown: weekday and date, and whether it is
// today or yesterday for the session's clock.
func (b *leadersScreen) dayLabel() string {
	if b.date == "" {
		return "today"
	}
	label := b.date
	if t, err := time.Parse(time.DateOnly, b.date); err == nil {
		label = t.Weekday().String()[:3] + " " + b.date
	}
	switch b.date {
	case b.today:
		label += " (today)"
	case shiftDate(b.today, -1):
		label += " (yesterday)"
	}
	return label
}

// View draws the screen, exactly h lines.
func (b *leadersScreen) view() string {
	e := b.env
	pal := e.pal
	b.updateKeys()
	var body []string
	var sb strings.Builder
	sb.WriteString("    ")
	sb.WriteString(pal.style(sBold, padLeft("#", 3)+"  "+padRight("player", 16)+"  "+padLeft("removed", 7)+"  "+padLeft("time", 7)))
	body = append(body, sb.String())
	switch {
	case b.loading && len(b.entries) == 0:
		body = append(body, "    loading the board"+e.gl.ell)
	case len(b.entries) == 0 && b.msg == "":
		switch {
		case b.date == b.today && b.dailyDone:
			// The player's own daily was assisted: off the board.
			body = append(body, "    nobody is on today's board yet (assisted games stay off it)")
		case b.date == b.today:
			body = append(body, "    nobody has finished today's deal yet: be the first (Daily in the menu)")
		default:
			body = append(body, "    nobody finished the daily deal of that day")
		}
	}
	for i := b.top; i < len(b.entries) && i < b.top+b.room(); i++ {
		body = append(body, b.row(&b.entries[i], i == b.cur))
	}
	msg, st := b.msg, b.msgSt
	if msg == "" {
		msg, st = "best first: pyramid cards removed, then time", sDim
		if en := b.selected(); en != nil && b.ghost.Enabled() && !b.spoils() {
			msg = "g races " + clean(en.Name, 16) + "'s play of that day as a ghost"
		}
	}
	sub := ""
	if b.playing >= 0 && b.date == b.today {
		sub = strconv.Itoa(b.playing) + plural(b.playing, " player is", " players are") + " playing today's deal now"
	}
	if b.par > 0 { // par.go
		sub = joinSub("par "+strconv.Itoa(b.par)+" (the shortest winning line)", sub, e.gl.sep)
	}
	return drawPage(e, b.w, b.h, "Pyramid Solitaire"+e.gl.sep+"daily board"+e.gl.sep+b.dayLabel(), sub, body,
		msg, st, b.bar, []key.Binding{b.prev, b.next, b.toToday, b.up, b.ghost, b.watch, b.challenge, b.reload, b.back})
}

// row draws one line of the board: the cursor's marked and in reverse
// video, the player's own named so.
func (b *leadersScreen) row(en *BoardEntry, cur bool) string {
	pal := b.env.pal
	var sb strings.Builder
	name := clean(en.Name, 16)
	if en.You {
		name = clean(en.Name, 10) + " (you)"
	}
	if en.Champion {
		name = clean(name, 14) + " " + championMark(b.env.gl)
	}
	name = padRight(name, 16)
	if cur {
		sb.WriteString("  > ")
	} else {
		sb.WriteString("    ")
	}
	sb.WriteString(padLeft(strconv.Itoa(en.Rank), 3))
	sb.WriteString("  ")
	switch {
	case cur:
		sb.WriteString(pal.style(sMenuCur, name))
	case en.You:
		sb.WriteString(pal.style(sBold, name))
	default:
		sb.WriteString(name)
	}
	sb.WriteString("  ")
	sb.WriteString(padLeft(strconv.Itoa(en.Removed)+"/"+strconv.Itoa(b.total), 7))
	sb.WriteString("  ")
	sb.WriteString(padLeft(durationOr(en.Time), 7))
	if en.Won {
		sb.WriteString("  ")
		sb.WriteString(pal.style(sOK, "won"))
	}
	return sb.String()
}
