package tui

import (
	"strconv"
	"strings"

	"pyramid/engine"
)

// lines writes a screen line by line and knows how many it wrote, so
// that a screen fills the window exactly.
type lines struct {
	b *strings.Builder
	n int
}

// add writes one line (the caller cut it to the width).
func (l *lines) add(s string) {
	l.next()
	l.b.WriteString(s)
}

// next starts a line, for the caller to write.
func (l *lines) next() {
	if l.n > 0 {
		l.b.WriteByte('\n')
	}
	l.n++
}

// styled writes one line: prefix, then s in style id (the caller cut it
// to the width). It is add(prefix + p.style(id, s)) without the strings
// in between.
func (l *lines) styled(prefix string, p *palette, id styleID, s string) {
	l.next()
	l.b.WriteString(prefix)
	p.write(l.b, id, s)
}

// fill adds blank lines until n lines are written.
func (l *lines) fill(n int) {
	for l.n < n {
		l.add("")
	}
}

// menuTexts are texts of the menu's last frame that most keys do not
// change, each with what it was made from: a frame whose keys match
// reuses them rather than build them anew (several allocations a frame).
type menuTexts struct {
	// gl is the glyphs they were drawn with: the Cards item switches them.
	gl *glyphs
	// title is the title line for titleOf: the mode, how many are online
	// and the width.
	title   string
	titleOf [3]int
	// id is the identity line for idOf: the player's ID and shown name.
	id   string
	idOf [2]string
	// online is the Lobby item's note for onlineOf players online.
	online   string
	onlineOf int
	// number is the deal-by-number item's note for the rules numberOf.
	number   string
	numberOf engine.Rules
	// tabs is the line of the groups' tabs for tabsOf: the cursor's
	// group and the width.
	tabs   string
	tabsOf [2]int
}

// textsFor returns the menu's kept texts, dropping them when they were
// drawn with other glyphs than the session's now.
func (m *menuScreen) textsFor() *menuTexts {
	if m.texts == nil || m.texts.gl != m.env.gl {
		m.texts = &menuTexts{gl: m.env.gl}
	}
	return m.texts
}

// presetDescs are the descriptions of the preset rule sets by name, the
// menu's line under a preset item, built once and never changed.
var presetDescs = func() map[string]string {
	d := make(map[string]string)
	for _, name := range engine.PresetNames() {
		r, _ := engine.Preset(name)
		d[name] = r.Describe()
	}
	return d
}()

// presetDesc describes a preset rule set.
func presetDesc(name string) string {
	if d, ok := presetDescs[name]; ok {
		return d
	}
	r, _ := engine.Preset(name)
	return r.Describe()
}

// identity is the menu's line about the player.
func (m *menuScreen) identity() string {
	t := m.textsFor()
	if of := [2]string{m.env.player.ID, m.name}; t.id == "" || t.idOf != of || m.env.player.Guest {
		t.id, t.idOf = identity(m.env, m.name), of
	}
	return t.id
}

// onlineNote is the Lobby item's note: how many players are online.
func (m *menuScreen) onlineNote() string {
	t := m.textsFor()
	if t.online == "" || t.onlineOf != m.online {
		t.online, t.onlineOf = strconv.Itoa(m.online)+" online", m.online
	}
	return t.online
}

// numberNote is the deal-by-number item's note.
func (m *menuScreen) numberNote() string {
	t := m.textsFor()
	if own := m.ownRules(); t.number == "" || t.numberOf != own {
		t.number, t.numberOf = own.Title()+" or any rule set", own
	}
	return t.number
}

// title is the menu's title line, cut to the width.
func (m *menuScreen) title() string {
	t := m.textsFor()
	of := [3]int{int(m.mode), m.online, m.w}
	if t.title != "" && t.titleOf == of {
		return t.title
	}
	title := "Pyramid Solitaire"
	switch m.mode {
	case modeCustom:
		title += m.env.gl.sep + "custom rules"
	case modeNumber:
		title += m.env.gl.sep + "deal by number"
	}
	if m.online > 0 && m.mode == modeList {
		title += m.env.gl.sep + m.onlineNote() // presence.go
	}
	t.title, t.titleOf = cut(title, m.w-2, m.env.gl.ell), of
	return t.title
}

// identity is the line about the player under a screen's title: the
// display name and the start of the key's fingerprint, or, for a guest,
// how to keep stats.
func identity(e *env, name string) string {
	p := e.player
	if p.Guest || p.ID == "" {
		if e.gl.unicode {
			return "guest — add an SSH key to keep your stats (ssh-keygen -t ed25519)"
		}
		return "guest - add an SSH key to keep your stats (ssh-keygen -t ed25519)"
	}
	fp := p.ID
	if strings.HasPrefix(fp, "SHA256:") && len(fp) > 7+12 {
		fp = fp[:7+12] + e.gl.ell
	}
	name = clean(name, 16)
	if name == "" {
		return "playing as " + clean(fp, 40)
	}
	return "playing as " + name + e.gl.sep + clean(fp, 40)
}

// View draws the menu or its form, exactly h lines.
func (m *menuScreen) view() string {
	m.show(true)
	var b strings.Builder
	// The frame is a string of its own once written: room for it and no
	// more (a frame is a third of w×h bytes or less).
	b.Grow(max(m.frameLen, m.w*m.h/3))
	pal := m.env.pal
	out := lines{b: &b}
	out.styled(" ", pal, sTitle, m.title())
	out.styled(" ", pal, sDim, cut(m.identity(), m.w-2, m.env.gl.ell))
	first, n := 0, 0
	if m.mode == modeList {
		first, n = m.window()
		out.add(m.tabs())
		if above := first - m.groups[m.group(m.cur)].from; above > 0 {
			// The group scrolled: a mark says there are more items above.
			out.styled("    ", pal, sDim, m.more(above, "↑"))
		} else {
			out.add("")
		}
	} else {
		out.add("")
	}
	desc := ""
	switch m.mode {
	case modeList:
		desc = m.viewList(&out)
	case modeCustom:
		desc = m.viewCustom(&out)
	case modeNumber:
		desc = m.viewNumber(&out)
	}
	if below := m.groups[m.group(m.cur)].to - first - n; m.mode == modeList && below > 0 && out.n < m.h-4 {
		out.styled("    ", pal, sDim, m.more(below, "↓"))
	}
	d1, d2 := wrap2(desc, m.w-2)
	// The description of the highlighted item sits under the list (in a
	// tall window, not far down at the bottom), the message line and the
	// help bar at the bottom.
	out.fill(min(m.h-4, out.n+1))
	out.styled(" ", pal, sDim, d1)
	out.styled(" ", pal, sDim, cut(d2, m.w-2, m.env.gl.ell))
	out.fill(m.h - 2)
	out.styled(" ", pal, m.msgSt, cut(m.msg, m.w-2, m.env.gl.ell))
	b.WriteByte('\n')
	b.WriteString(m.bar.view(m.env, m.Keys.ShortHelp(), m.w))
	m.frameLen = b.Len()
	return b.String()
}

// tabGap is the space between two tabs.
const tabGap = 2

// tabs is the line of the groups' tabs, the cursor's group highlighted:
// every title when they fit the width, else the cursor's group alone
// between arrows, with its place ("◂ Play 1/5 ▸").
func (m *menuScreen) tabs() string {
	t := m.textsFor()
	g := m.group(m.cur)
	if of := [2]int{g, m.w}; t.tabs != "" && t.tabsOf == of {
		return t.tabs
	}
	pal := m.env.pal
	var b strings.Builder
	b.WriteString(" ")
	if m.tabsFit() {
		for i, gr := range m.groups {
			if i > 0 {
				b.WriteString(strings.Repeat(" ", tabGap))
			}
			if i == g {
				// Brackets mark it where the terminal shows no styles.
				pal.write(&b, sMenuCur, "["+gr.title+"]")
			} else {
				pal.write(&b, sDim, " "+gr.title+" ")
			}
		}
	} else {
		left, right := "◂", "▸"
		if !m.env.gl.unicode {
			left, right = "<", ">"
		}
		b.WriteString(left + " ")
		pal.write(&b, sMenuCur, " "+cut(m.groups[g].title, m.w-16, m.env.gl.ell)+" ")
		b.WriteString(" " + strconv.Itoa(g+1) + "/" + strconv.Itoa(len(m.groups)) + " " + right)
	}
	t.tabs, t.tabsOf = b.String(), [2]int{g, m.w}
	return t.tabs
}

// tabsFit reports whether every group's tab fits the width.
func (m *menuScreen) tabsFit() bool {
	w := 1
	for i, gr := range m.groups {
		if i > 0 {
			w += tabGap
		}
		w += cells(gr.title) + 2
	}
	return w <= m.w-1
}

// tabAt is the group whose tab is at column x of the tabs' line, or -1;
// with the tabs cut to one, the arrows are the groups before and after.
func (m *menuScreen) tabAt(x int) int {
	n := len(m.groups)
	if !m.tabsFit() {
		g := m.group(m.cur)
		switch {
		case x <= 2:
			return (g + n - 1) % n
		case x >= 4+cells(m.groups[g].title)+2:
			return (g + 1) % n
		}
		return -1
	}
	at := 1
	for i, gr := range m.groups {
		if i > 0 {
			at += tabGap
		}
		w := cells(gr.title) + 2
		if x >= at && x < at+w {
			return i
		}
		at += w
	}
	return -1
}

// more says how many items a scrolled list hides on one side.
func (m *menuScreen) more(n int, arrow string) string {
	if !m.env.gl.unicode {
		arrow = map[string]string{"↑": "^", "↓": "v"}[arrow]
	}
	return arrow + " " + strconv.Itoa(n) + " more"
}

// item writes one line of a list: a marker and the label, highlighted
// under the cursor, then a dim note.
func (m *menuScreen) item(out *lines, cur bool, label, note string, labelW int) {
	pal := m.env.pal
	if !m.env.gl.unicode && strings.HasSuffix(label, "…") {
		// "Custom rules." reads as a sentence: the three dots it means.
		label = strings.TrimSuffix(label, "…") + "..."
	}
	label = cut(label, m.w-6, m.env.gl.ell)
	// The line is written straight into the screen: the menu is drawn
	// anew for every key.
	padW := cells(label)
	if note != "" || cur {
		padW = max(padW, labelW)
	}
	b := out.b
	out.next()
	if cur {
		b.WriteString("  > ")
		pal.writePadded(b, sMenuCur, label, padW-cells(label))
	} else {
		b.WriteString("    ")
		b.WriteString(label)
		pad(b, padW-cells(label))
	}
	if room := m.w - 4 - padW - 3; room > 3 && note != "" {
		b.WriteString("  ")
		pal.write(b, sDim, cut(note, room, m.env.gl.ell))
	}
}

// viewList writes the items and returns the description of the
// highlighted one.
func (m *menuScreen) viewList(out *lines) string {
	first, n := m.window()
	for i := first; i < first+n; i++ {
		it := m.items[i]
		m.item(out, i == m.cur, it.label, m.note(it), 20)
	}
	it := m.items[m.cur]
	switch it.kind {
	case itemPreset:
		return presetDesc(it.preset)
	case itemContinue:
		return "back to your game"
	case itemCustom:
		return "set every rule knob yourself; records are kept per rule set"
	case itemNumber:
		return "play a deal by its number: the same number is the same deal for everyone"
	case itemWinnable:
		return "new deals are ones the solver proves can be won"
	case itemTellLost:
		return "after each move the solver checks the position and says when the deal can no longer be won (never in races)"
	case itemLobby:
		return "who is online and what each is doing, and the race rooms waiting for players; watch a player's game"
	case itemArenas:
		return "timed events: join one and the server pairs you into short races with the players nearest you in its standings, until it ends"
	case itemWatchable:
		return "whether other players may watch your games from the Lobby or with watch NAME"
	case itemKeys:
		return "enter switches the movement keys"
	case itemCards:
		return "enter switches the suits between symbols and letters; letters draw every screen in plain ASCII"
	case itemStats:
		return "your records for every rule set you finished a game of, derived from your stored games"
	case itemLeaders:
		return "the daily deal's board: pyramid cards removed, then time; your first finished game of the day counts"
	case itemName:
		return "the name others see on the boards: 1 to 16 letters, digits, _ . or -"
	case itemLink:
		return "a one-time code that lets another SSH key play as you, with the same stats and games"
	case itemRedeem:
		return "a code from another player's Link another key: this SSH key then plays as them, with their stats and games"
	case itemKeyList:
		return "the SSH keys that play as you; unlink one you no longer use"
	}
	return ""
}

// note is the dim text beside an item.
func (m *menuScreen) note(it menuItem) string {
	switch it.kind {
	case itemContinue:
		return m.conts[it.index]
	case itemPreset:
		if it.preset == "daily" && m.daily.done {
			return m.dailyNote()
		}
		return presetNote(it.preset)
	case itemCustom:
		return "every knob of the rule model"
	case itemNumber:
		return m.numberNote()
	case itemWinnable:
		if m.Winnable {
			return "[x] on"
		}
		return "[ ] off"
	case itemTellLost:
		if m.TellLost {
			return "[x] on"
		}
		return "[ ] off"
	case itemLobby:
		return m.onlineNote()
	case itemWatchable:
		if m.watchable {
			return "[x] on"
		}
		return "[ ] off"
	case itemKeys:
		return m.Scheme.String()
	case itemCards:
		if m.ASCII {
			return "S H D C letters"
		}
		return "♠ ♥ ♦ ♣ symbols"
	case itemStats:
		return "played, won, streaks, best times"
	case itemLeaders:
		return "today's ranking of the daily deal"
	case itemName:
		return clean(m.name, 16)
	case itemLink:
		return "play as you from another machine"
	case itemRedeem:
		return "play as the player who gave you the code"
	case itemRaceNew:
		return "a room of these rules: others join by its code"
	case itemRaceJoin:
		return "race in a room whose code you were given"
	case itemRaceBack:
		return "your seat is kept until the race ends"
	case itemRaceResults:
		return "the race is over: see how it ended"
	case itemArenas:
		return "timed events of short races, for points"
	case itemKeyList:
		return "see and unlink them"
	}
	return ""
}

// dailyNote is the Daily item's note once today's deal is done: a
// replay is practice.
func (m *menuScreen) dailyNote() string {
	s := "done today"
	if m.env.gl.unicode {
		s += " ✓"
	}
	if d := m.daily; d.rank > 0 {
		s += " (#" + strconv.Itoa(d.rank) + " of " + strconv.Itoa(d.players) + ")"
	}
	return s + m.env.gl.sep + "replays are practice"
}

// viewCustom writes the custom rules form: every knob with its values,
// the current one in brackets.
func (m *menuScreen) viewCustom(out *lines) string {
	pal := m.env.pal
	knobs := engine.KnobNames()
	for i, name := range knobs {
		var vals strings.Builder
		cur := m.custom.Knob(name)
		for j, v := range engine.KnobValues(name) {
			if j > 0 {
				vals.WriteString("  ")
			}
			if v == cur {
				vals.WriteString(pal.style(sBold, "["+v+"]"))
			} else {
				vals.WriteString(" " + v + " ")
			}
		}
		marker := "    "
		label := name + strings.Repeat(" ", max(0, 8-len(name)))
		if i == m.knobCur {
			marker = "  > "
			label = pal.style(sMenuCur, label)
		}
		out.add(marker + label + "  " + vals.String())
	}
	out.add("")
	m.item(out, m.knobCur == len(knobs), "Play these rules", m.custom.Title(), 20)
	m.item(out, m.knobCur == len(knobs)+1, "Back", "", 20)
	return m.custom.Describe()
}

// viewNumber writes the deal number form.
func (m *menuScreen) viewNumber(out *lines) string {
	for _, l := range wrapIndented([]string{
		"    Type a deal number for " + m.rules.Title() + ",",
		"    or a rule set and a number (double 42, classic,passes=2 7).",
	}, m.w) {
		out.add(l)
	}
	out.add("")
	out.add("    " + m.number.view(m.env.pal, m.w-5))
	return "deal numbers are the same for everyone: share one to play the same cards"
}

// wrap2 splits text into two lines of at most w cells at a space; the
// second may still be too long for the caller to cut.
func wrap2(s string, w int) (string, string) {
	if cells(s) <= w {
		return s, ""
	}
	cutAt := -1
	for i, r := range s {
		if r == ' ' && cells(s[:i]) <= w {
			cutAt = i
		}
	}
	if cutAt <= 0 {
		return cut(s, w, ""), ""
	}
	return s[:cutAt], strings.TrimLeft(s[cutAt:], " ")
}
