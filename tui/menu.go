package tui

import (
	"errors"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
)

// Messages the menu sends its owner.
type (
	// menuPlayMsg: start a game.
	menuPlayMsg struct{ spec dealSpec }
	// menuContinueMsg: go back to a game in progress, the index-th of
	// the menu's Continue items.
	menuContinueMsg struct{ index int }
	// menuSettingsMsg: a setting (winnable deals, keys, cards) changed.
	menuSettingsMsg struct{}
	// menuAccountMsg: open a screen of the player's account (itemStats,
	// itemLeaders, itemName, itemLink or itemRedeem).
	menuAccountMsg struct{ kind itemKind }
)

// itemKind is what a menu item does.
type itemKind uint8

const (
	itemContinue itemKind = iota
	itemPreset
	itemCustom
	itemNumber
	itemStats
	itemLeaders
	itemName
	itemLink
	itemRedeem
	itemLobby     // presence.go: the Lobby screen
	itemWatchable // presence.go: "Others may watch me"
	itemKeyList
	itemWinnable
	itemTellLost // lost.go: "Tell me when a deal can no longer be won"
	itemKeys
	itemCards
	itemRaceNew     // race.go
	itemRaceJoin    // race.go
	itemRaceBack    // race.go
	itemRaceResults // menu_back.go: "Results of race CODE"
	itemArenas      // arena.go
)

// menuItem is one line of the menu.
type menuItem struct {
	kind   itemKind
	preset string
	label  string
	// index is a Continue's place among them.
	index int
}

// menuGroup is one of the menu's groups, shown one at a time under a
// line of tabs: its title and its items, m.items[from:to].
type menuGroup struct {
	title    string
	from, to int
}

// menuMode is which form the menu shows.
type menuMode uint8

const (
	modeList menuMode = iota
	modeCustom
	modeNumber
)

// presetNotes are the short notes beside the rule sets in the menu.
func presetNote(name string) string {
	switch name {
	case "classic":
		return "1 deck · 3 passes"
	case "relaxed":
		return "unlimited passes"
	case "open-stock":
		return "the stock's top card plays too"
	case "one-pass":
		return "a single pass through the stock"
	case "easy":
		// Its name is the source's, whose other mode has one pass: say
		// what it is without measuring it against Classic's three.
		return "2 passes through the stock: one more than One pass"
	case "draw-three":
		// Not three cards onto one waste: one onto each of three.
		return "3 waste piles, one card onto each per draw · 1 pass"
	case "double":
		return "2 decks · 9 rows · pairs need a pyramid card"
	case "daily":
		return "today's deal, the same for everyone"
	}
	return ""
}

// menuScreen is the first screen: its items in groups (Play, With others,
// Records, Account, Settings) shown one at a time under a line of tabs;
// help and quit are on the key bar. It also holds the custom rules form
// and the deal number form.
type menuScreen struct {
	chrome
	// Keys is the menu's key map.
	Keys MenuKeyMap
	// Winnable asks for deals the solver proves winnable.
	Winnable bool
	// TellLost is the setting "Tell me when a deal can no longer be won"
	// (lost.go): the table checks every position in the background.
	TellLost bool
	// Scheme is the table's movement keys.
	Scheme KeyScheme
	// ASCII is the player's choice of suit letters (S H D C) over
	// symbols: the session then draws every screen in ASCII, as it does
	// for a client whose locale is not UTF-8. Such a client has no Cards
	// item and keeps ASCII whatever this says (see unicode).
	ASCII bool
	// symbols is whether the client's terminal shows Unicode
	// (Deps.Unicode): only then does the menu offer the Cards item.
	symbols bool

	bar   *helpBar
	items []menuItem
	// groups split items into the groups the menu shows one at a time.
	groups []menuGroup
	cur    int
	mode   menuMode
	// conts describe the games in progress, one Continue each.
	conts []string
	// name is the player's display name as the menu shows it.
	name string
	// daily says whether today's daily deal is done, and its place.
	daily dailyTodayMsg
	// asking is set while the menu asks whether to end the session.
	asking bool
	// kept are the settings as the account last kept them (settings.go);
	// settingsChanged is set once the player changed one in the session.
	kept            map[string]string
	settingsChanged bool
	// rules are those of the last game, for custom rules and deals by
	// number.
	rules   engine.Rules
	custom  engine.Rules
	knobCur int
	number  Prompt

	// Playing with others (presence.go): how many are online, and the
	// setting "Others may watch me".
	online    int
	watchable bool
	// raceBack is the code of the race room the player has a seat in
	// (race.go): the menu offers to go back to it. Empty hides it.
	raceBack string
	// raceEnded is the code of the room of the player's last race, over
	// without them in the room (menu_back.go): the menu offers its
	// results while raceBack is empty. seenResults is the code of the
	// room whose results the player last left: not offered again.
	raceEnded, seenResults string
	// seatPoll numbers the rounds of asking whether that race still
	// runs (menu_back.go).
	seatPoll int

	// frameLen is the length of the last frame, the room the next is
	// given (menu_view.go).
	frameLen int
	// texts are lines of the last frame that most keys leave as they
	// were (menu_view.go); nil while the menu does not show.
	texts *menuTexts
}

// newMenu builds the menu.
func newMenu(e *env, w, h int) *menuScreen {
	m := &menuScreen{
		Keys:   NewMenuKeyMap(e.gl),
		chrome: chrome{env: e, w: w, h: h},
		bar:    newHelpBar(),
		rules:  engine.Classic(),
		number: Prompt{Label: "deal: "},
		name:   e.player.Name,
		// New builds the menu with the glyphs Deps.Unicode chose.
		symbols:   e.gl.unicode,
		watchable: true,
	}
	// The items are listed when the menu first shows (see show): the
	// model New returns, which Bubble Tea keeps for the whole session,
	// then holds none.
	m.kept = m.settingValues() // the defaults, until the account's come
	m.updateKeys()
	return m
}

// build lists the items in groups: Play, With others, Records, Account,
// Settings. A group without items is left out.
func (m *menuScreen) build() {
	var items []menuItem
	var groups []menuGroup
	group := func(title string, its ...menuItem) {
		if len(its) == 0 {
			return
		}
		groups = append(groups, menuGroup{title: title, from: len(items), to: len(items) + len(its)})
		items = append(items, its...)
	}
	var play []menuItem
	if m.raceBack != "" { // race.go
		play = append(play, menuItem{kind: itemRaceBack, label: "Back to race " + m.raceBack})
	} else if m.raceEnded != "" { // menu_back.go
		play = append(play, menuItem{kind: itemRaceResults, label: "Results of race " + m.raceEnded})
	}
	for i := range m.conts {
		play = append(play, menuItem{kind: itemContinue, label: "Continue", index: i})
	}
	for _, name := range engine.PresetNames() {
		r, _ := engine.Preset(name)
		play = append(play, menuItem{kind: itemPreset, preset: name, label: r.Title()})
	}
	play = append(play,
		menuItem{kind: itemCustom, label: "Custom rules…"},
		menuItem{kind: itemNumber, label: "Deal by number…"})
	group("Play", play...)
	var others []menuItem
	if m.env.races != nil { // race.go
		others = append(others,
			menuItem{kind: itemRaceNew, label: "New race…"},
			menuItem{kind: itemRaceJoin, label: "Join a race…"})
	}
	if m.env.arenas != nil { // arena.go
		others = append(others, menuItem{kind: itemArenas, label: "Arenas"})
	}
	if m.env.lobby != nil { // presence.go
		others = append(others, menuItem{kind: itemLobby, label: "Lobby"})
	}
	group("With others", others...)
	if m.env.accounts() {
		group("Records",
			menuItem{kind: itemStats, label: "Stats"},
			menuItem{kind: itemLeaders, label: "Daily board"})
		group("Account",
			menuItem{kind: itemName, label: "Change name…"},
			menuItem{kind: itemLink, label: "Link another key…"},
			menuItem{kind: itemRedeem, label: "Use a link code…"},
			menuItem{kind: itemKeyList, label: "Your keys…"})
	}
	var settings []menuItem
	if m.env.solver != nil {
		settings = append(settings, menuItem{kind: itemWinnable, label: "Winnable deals only"})
	}
	if m.env.analyst() != nil { // lost.go
		settings = append(settings, menuItem{kind: itemTellLost, label: "Tell me when a deal can no longer be won"})
	}
	if m.env.lobby != nil { // presence.go
		settings = append(settings, menuItem{kind: itemWatchable, label: "Others may watch me"})
	}
	settings = append(settings, menuItem{kind: itemKeys, label: "Keys"})
	if m.symbols {
		settings = append(settings, menuItem{kind: itemCards, label: "Cards"})
	}
	group("Settings", settings...)
	m.items, m.groups = items, groups
	m.cur = max(0, min(m.cur, len(items)-1))
}

// group is the index of the group that holds item i.
func (m *menuScreen) group(i int) int {
	for g, gr := range m.groups {
		if i < gr.to {
			return g
		}
	}
	return max(0, len(m.groups)-1)
}

// step moves the cursor by one item (step 1 or -1), into the next or the
// previous group at a group's end, wrapping round the list.
func (m *menuScreen) step(step int) {
	n := len(m.items)
	m.cur = ((m.cur+step)%n + n) % n
}

// toGroup puts the cursor on the first item of the group step groups
// away (1 the next, -1 the one before), wrapping round.
func (m *menuScreen) toGroup(step int) {
	n := len(m.groups)
	g := ((m.group(m.cur)+step)%n + n) % n
	m.cur = m.groups[g].from
}

// firstOf is the index of the first item of a kind, or -1.
func (m *menuScreen) firstOf(kind itemKind) int {
	for i, it := range m.items {
		if it.kind == kind {
			return i
		}
	}
	return -1
}

// show lists the items when the menu shows and lets go of them when it
// does not: a session at the table keeps no menu lines.
func (m *menuScreen) show(showing bool) {
	switch {
	case showing && m.items == nil:
		m.build()
	case !showing:
		m.items, m.groups, m.texts = nil, nil, nil
		m.bar.forget()
	}
}

// setContinues lists the games in progress, one Continue each, and keeps
// the cursor on the item it was on (on the first Continue when there
// were none before).
func (m *menuScreen) setContinues(notes []string) {
	had := len(m.conts)
	var was menuItem
	if m.items != nil && m.cur < len(m.items) {
		was = m.items[m.cur]
	}
	m.conts = notes
	m.build()
	switch {
	case had == 0 && len(notes) > 0:
		m.focusContinue()
	case was.kind == itemContinue && was.label != "" && len(notes) == 0:
		m.cur = 0 // its game is gone: back to the top
	case was.kind == itemContinue && was.label != "":
		m.cur = m.firstOf(itemContinue) + min(was.index, len(notes)-1)
	case m.items != nil:
		for i, it := range m.items {
			if it.kind == was.kind && it.preset == was.preset && it.kind != itemContinue {
				m.cur = i
				break
			}
		}
	}
}

// needs is the smallest window the menu is readable in: narrow ones cut
// the notes beside the items.
func (m *menuScreen) needs() (w, h int) { return minTableWidth, 16 }

// focusContinue puts the cursor on the first Continue, if there is one:
// back from the table, the menu always opens there.
func (m *menuScreen) focusContinue() {
	if i := m.firstOf(itemContinue); i >= 0 {
		m.cur = i
	}
}

// setDailyDone marks today's daily deal done on the Daily item.
func (m *menuScreen) setDailyDone(d dailyTodayMsg) {
	if d.done {
		m.daily = d
	}
}

// ownRules are the rules of the last game for a deal of its own (a
// number, a race): the daily's knobs without its deal, which is Classic.
func (m *menuScreen) ownRules() engine.Rules {
	r := m.rules
	r.Daily = false
	return r
}

// unicode reports whether the session is to draw with Unicode glyphs:
// the terminal shows them and the player did not choose letters.
func (m *menuScreen) unicode() bool { return m.symbols && !m.ASCII }

// setEnv draws the menu with the glyphs of e, the session's env since
// the player switched cards: its key map's help follows them.
func (m *menuScreen) setEnv(e *env) {
	m.env = e
	m.Keys = NewMenuKeyMap(e.gl)
	m.updateKeys()
}

// say sets the menu's message line.
func (m *menuScreen) say(st styleID, s string) {
	m.msg, m.msgSt = s, st
}

// The menu's replies name it (routed), as its race replies do
// (menu_back.go): the settings' answers, today's daily.
func (dailyTodayMsg) to() screenID   { return screenMenu }
func (watchableMsg) to() screenID    { return screenMenu }
func (watchableSetMsg) to() screenID { return screenMenu }
func (settingKeptMsg) to() screenID  { return screenMenu }
func (tellSavedMsg) to() screenID    { return screenMenu }

// Update handles keys and clicks, and the replies meant for the menu,
// which come whether or not it shows.
func (m *menuScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case raceSeatedMsg, raceBackMsg, menuSeatTickMsg, menuSeatPollMsg:
		return m.raceReply(msg) // menu_back.go
	case dailyTodayMsg:
		m.setDailyDone(msg)
		return nil
	case watchableMsg:
		if msg.err == nil {
			m.watchable = msg.on
		}
		return nil
	case watchableSetMsg:
		if msg.err != nil {
			m.watchable = !msg.on
			m.say(sErr, clean(Reason(msg.err), 200))
		}
		return nil
	case settingKeptMsg:
		if msg.err != nil {
			m.say(sWarn, clean("could not keep the setting: "+Reason(msg.err), 200))
		}
		return nil
	case tellSavedMsg:
		if msg.err != nil {
			m.say(sWarn, clean("the setting is not kept for next time: "+Reason(msg.err), 200))
		}
		return nil
	case arenaLeftMsg: // arena.go
		if msg.err != nil {
			m.say(sWarn, clean("leaving the arena: "+Reason(msg.err), 200))
		}
		return nil
	}
	m.show(true)
	switch msg := msg.(type) {
	case tea.KeyMsg:
		switch m.mode {
		case modeCustom:
			return m.updateCustom(msg)
		case modeNumber:
			return m.updateNumber(msg)
		}
		return m.updateList(msg)
	case tea.MouseMsg:
		if msg.Action == tea.MouseActionPress && msg.Button == tea.MouseButtonLeft && m.mode == modeList {
			if msg.Y == menuTabs {
				if g := m.tabAt(msg.X); g >= 0 {
					m.cur = m.groups[g].from
				}
				return nil
			}
			first, n := m.window()
			if i := first + msg.Y - menuTop; msg.Y >= menuTop && i < first+n {
				m.cur = i
				return m.choose()
			}
		}
	}
	return nil
}

// updateList handles a key in the list of items.
func (m *menuScreen) updateList(k tea.KeyMsg) tea.Cmd {
	kn := nameOf(k)
	if m.asking {
		// Quit? y ends the session, anything else stays.
		m.asking = false
		m.msg = ""
		if kn == "y" || kn == "Y" {
			m.event = quitMsg{}
		}
		return nil
	}
	gr := m.groups[m.group(m.cur)]
	switch {
	case key.Matches(kn, m.Keys.Up):
		m.step(-1)
	case key.Matches(kn, m.Keys.Down):
		m.step(1)
	case key.Matches(kn, m.Keys.Left), key.Matches(kn, m.Keys.PgUp):
		m.toGroup(-1)
	case key.Matches(kn, m.Keys.Right), key.Matches(kn, m.Keys.PgDown):
		m.toGroup(1)
	case key.Matches(kn, m.Keys.First):
		m.cur = gr.from
	case key.Matches(kn, m.Keys.Last):
		m.cur = gr.to - 1
	case key.Matches(kn, m.Keys.Select):
		return m.choose()
	case key.Matches(kn, m.Keys.Help):
		m.event = helpMsg{}
		return nil
	case key.Matches(kn, m.Keys.Back):
		// One esc too many should not end the session: ask.
		m.asking = true
		m.msg, m.msgSt = "end the session? y: yes, any other key: no", sWarn
		return nil
	}
	return nil
}

// choose acts on the highlighted item.
func (m *menuScreen) choose() tea.Cmd {
	m.msg = ""
	it := m.items[m.cur]
	switch it.kind {
	case itemContinue:
		m.event = menuContinueMsg{index: it.index}
		return nil
	case itemPreset:
		r, _ := engine.Preset(it.preset)
		m.event = menuPlayMsg{spec: dealSpec{rules: r, daily: r.Daily}}
		return nil
	case itemCustom:
		m.mode, m.custom, m.knobCur = modeCustom, m.rules, 0
		m.custom.Daily = false
		m.updateKeys()
	case itemNumber:
		m.mode = modeNumber
		m.number = m.number.Reset()
		m.updateKeys()
	case itemWinnable:
		m.Winnable = !m.Winnable
		m.event = menuSettingsMsg{}
		return nil
	case itemTellLost: // lost.go
		m.TellLost = !m.TellLost
		m.event = menuTellMsg{}
		return nil
	case itemLobby:
		m.event = menuLobbyMsg{}
		return nil
	case itemWatchable:
		m.watchable = !m.watchable
		return m.env.setWatchable(m.watchable) // presence.go
	case itemKeys:
		m.Scheme = (m.Scheme + 1) % 2
		m.event = menuSettingsMsg{}
		return nil
	case itemCards:
		if m.symbols {
			m.ASCII = !m.ASCII
			m.event = menuSettingsMsg{}
		}
		return nil
	case itemStats, itemLeaders, itemName, itemLink, itemRedeem, itemKeyList:
		m.event = menuAccountMsg{kind: it.kind}
		return nil
	case itemRaceNew, itemRaceJoin: // race.go
		m.event = menuRaceMsg{join: it.kind == itemRaceJoin}
		return nil
	case itemRaceBack: // race.go
		return m.askBack(m.raceBack) // menu_back.go
	case itemRaceResults: // menu_back.go
		m.event = menuRaceMsg{code: m.raceEnded}
		return nil
	case itemArenas: // arena.go
		m.event = menuArenasMsg{}
		return nil
	}
	return nil
}

// updateCustom handles a key in the custom rules form: one line per knob,
// then "Play" and "Back".
func (m *menuScreen) updateCustom(k tea.KeyMsg) tea.Cmd {
	kn := nameOf(k)
	knobs := engine.KnobNames()
	lines := len(knobs) + 2
	switch {
	case key.Matches(kn, m.Keys.Up):
		m.knobCur = (m.knobCur + lines - 1) % lines
	case key.Matches(kn, m.Keys.Down):
		m.knobCur = (m.knobCur + 1) % lines
	case key.Matches(kn, m.Keys.Left), key.Matches(kn, m.Keys.Right):
		if m.knobCur < len(knobs) {
			step := 1
			if key.Matches(kn, m.Keys.Left) {
				step = -1
			}
			m.custom = cycleKnob(m.custom, knobs[m.knobCur], step)
		}
	case key.Matches(kn, m.Keys.Select):
		switch {
		case m.knobCur < len(knobs):
			m.custom = cycleKnob(m.custom, knobs[m.knobCur], 1)
		case m.knobCur == len(knobs):
			m.mode = modeList
			m.rules = m.custom
			m.updateKeys()
			m.event = menuPlayMsg{spec: dealSpec{rules: m.custom}}
			return nil
		default:
			m.mode = modeList
			m.updateKeys()
		}
	case key.Matches(kn, m.Keys.Back):
		m.mode = modeList
		m.updateKeys()
	}
	return nil
}

// cycleKnob moves knob name of r to its next (step 1) or previous value.
func cycleKnob(r engine.Rules, name string, step int) engine.Rules {
	vals := engine.KnobValues(name)
	cur := r.Knob(name)
	i := 0
	for j, v := range vals {
		if v == cur {
			i = j
		}
	}
	i = (i + step + len(vals)) % len(vals)
	_ = r.SetKnob(name, vals[i]) // a value from KnobValues is always valid
	return r
}

// updateNumber handles a key in the deal number form.
func (m *menuScreen) updateNumber(k tea.KeyMsg) tea.Cmd {
	switch k.Type {
	case tea.KeyEsc:
		m.mode = modeList
		m.updateKeys()
		return nil
	case tea.KeyEnter:
		line := strings.TrimSpace(m.number.Value())
		words := strings.Fields(line)
		var spec dealSpec
		var err error
		switch len(words) {
		case 0:
			return nil
		case 1:
			spec.rules = m.rules
			spec.rules.Daily = false
			spec.number, err = parseDealNumber(words[0])
			spec.hasNumber = err == nil
			if err != nil {
				// A rule set alone: a new deal of it.
				if s, lerr := parseLink(words); lerr == nil {
					spec, err = s, nil
				}
			}
		default:
			spec, err = parseLink(words)
			if err == nil && !spec.hasNumber && !spec.daily {
				err = errors.New("type a deal number after the rule set, e.g. double 42")
			}
		}
		if err != nil {
			m.msg, m.msgSt = clean(err.Error(), 200), sErr
			return nil
		}
		m.mode = modeList
		m.msg = ""
		m.updateKeys()
		m.event = menuPlayMsg{spec: spec}
		return nil
	}
	var cmd tea.Cmd
	m.number, cmd = m.number.Update(k)
	return cmd
}

// updateKeys enables the bindings of the current form.
func (m *menuScreen) updateKeys() {
	m.Keys.Left.SetEnabled(m.mode != modeNumber)
	m.Keys.Right.SetEnabled(m.mode != modeNumber)
	m.Keys.Help.SetEnabled(m.mode == modeList)
	if m.mode == modeList {
		m.Keys.Left.SetHelp(m.Keys.Left.Help().Key, "group")
		m.Keys.Back.SetHelp("q", "quit")
		m.Keys.Select.SetHelp("enter", "open")
	} else {
		m.Keys.Left.SetHelp(m.Keys.Left.Help().Key, "change")
		m.Keys.Back.SetHelp("esc", "back")
		m.Keys.Select.SetHelp("enter", "choose")
	}
	if m.mode == modeNumber {
		m.Keys.Up.SetEnabled(false)
		m.Keys.Select.SetHelp("enter", "deal")
	} else {
		m.Keys.Up.SetEnabled(true)
	}
}

// menuTabs is the screen line of the groups' tabs; menuTop that of the
// first item, under a line that says when the group scrolled.
const (
	menuTabs = 2
	menuTop  = 4
)

// visible is how many items fit the window.
func (m *menuScreen) visible() int { return max(1, m.h-menuTop-5) }

// window is the range of items shown: the cursor's group, scrolled to
// keep the cursor in it when the group does not fit.
func (m *menuScreen) window() (first, n int) {
	gr := m.groups[m.group(m.cur)]
	n = min(gr.to-gr.from, m.visible())
	first = gr.from
	if m.cur >= first+n {
		first = m.cur - n + 1
	}
	return first, n
}
