package tui

import (
	"slices"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/lobby"
)

// The race room's chat, as racers and spectators see it: the lines of the
// room wrapped to the window, the last that fit shown with markers for
// those above and below, pgup and pgdn to scroll, and the line being
// typed with its count of characters against the room's limit
// (lobby.MaxChatLen). A line that starts with a slash is a command of the
// screen (chatCommands), never said in the room.

const (
	// chatScrollback is how many of the room's lines the screen keeps to
	// scroll back through: more than the room keeps for newcomers
	// (lobby.ChatHistory), so that a long talk can be read again.
	chatScrollback = 50
	// chatPaneMax is the most rows the chat takes under a race's board,
	// where the board and the panel come first.
	chatPaneMax = 5
	// chatHang indents the rows of a wrapped line after its first, so
	// that each line's start stands out.
	chatHang = 2
)

// chatCommand is a command typed on the chat line: the screen answers or
// carries it out, and never says it in the room. chatCommands is the one
// list of them: /help and the race's help read it.
type chatCommand struct {
	name string // with its slash
	args string // what follows the name, as the help shows it
	help string
	run  func(rs *raceScreen, arg string) tea.Cmd
}

// chatCommands is every command of the chat line. It is a function, not
// a table in a variable, because /help reads it.
func chatCommands() []chatCommand {
	return []chatCommand{
		{name: "/help", help: "lists these commands", run: (*raceScreen).chatHelp},
		{name: "/mute", args: "NAME", help: "the host mutes a racer or a spectator in this room",
			run: func(rs *raceScreen, arg string) tea.Cmd { return rs.muteCommand("/mute", arg, true) }},
		{name: "/unmute", args: "NAME", help: "the host lets them chat again",
			run: func(rs *raceScreen, arg string) tea.Cmd { return rs.muteCommand("/unmute", arg, false) }},
		{name: "/remove", args: "NAME", help: "the host takes a member out of this room for good",
			run: (*raceScreen).removeCommand},
	}
}

// chatCommandsHelp is the chat's commands as the race's help lists them,
// each with its arguments.
func chatCommandsHelp() string {
	var names []string
	for _, c := range chatCommands() {
		names = append(names, strings.TrimSpace(c.name+" "+c.args))
	}
	return strings.Join(names, ", ")
}

// openChat opens the chat line, or says why there is none.
func (rs *raceScreen) openChat() {
	switch {
	case rs.ghost != nil:
		rs.say(sInfo, "a ghost does not chat")
	case rs.over:
		rs.say(sInfo, "room "+rs.snap.Code+" has closed: no rematch or chat there")
	default:
		rs.input = Prompt{Label: "say: ", Max: lobby.MaxChatLen}
		rs.inputOpen = true
	}
}

// chatInputKey edits the open chat line: enter says it (or runs its
// command), esc closes it, pgup and pgdn scroll the chat; a character
// past the room's limit is not taken, and the player is told so.
func (rs *raceScreen) chatInputKey(k tea.KeyMsg) tea.Cmd {
	switch k.Type {
	case tea.KeyEsc:
		rs.inputOpen = false
		return nil
	case tea.KeyEnter:
		return rs.submitChat()
	case tea.KeyPgUp, tea.KeyPgDown:
		rs.scrollChat(k)
		return nil
	}
	n := rs.input.Len()
	var cmd tea.Cmd
	rs.input, cmd = rs.input.Update(k)
	if (k.Type == tea.KeyRunes || k.Type == tea.KeySpace) && rs.input.Len()-n < len(k.Runes) && rs.input.Full() {
		rs.chatError("chat: " + lobby.ErrChatTooLong.Error())
	}
	return cmd
}

// submitChat says the line typed in the room, or runs its command. An
// empty line closes the chat line.
func (rs *raceScreen) submitChat() tea.Cmd {
	text := strings.TrimSpace(rs.input.Value())
	if strings.HasPrefix(text, "/") {
		verb, arg, _ := strings.Cut(text, " ")
		for _, c := range chatCommands() {
			if strings.EqualFold(verb, c.name) {
				return c.run(rs, strings.TrimSpace(arg))
			}
		}
		// Kept in the line, to be mended rather than typed again.
		rs.chatError(clean("no chat command "+verb+": /help lists them", 100))
		return nil
	}
	rs.inputOpen = false
	if text == "" {
		return nil
	}
	rs.chatBack = 0 // the player's own line shows when it comes
	code, races := rs.snap.Code, rs.races
	return func() tea.Msg { return raceDoneMsg{what: "chat", chat: true, err: races.Say(code, text)} }
}

// chatHelp answers /help in the chat itself: the commands and the keys,
// as the screen's own lines, said to nobody. The line stays open.
func (rs *raceScreen) chatHelp(string) tea.Cmd {
	for _, c := range chatCommands() {
		rs.chatNote(strings.TrimSpace(c.name+" "+c.args) + ": " + c.help)
	}
	rs.chatNote("pgup, pgdn: scroll the chat" + rs.env.gl.sep + "esc: close this line")
	rs.input = rs.input.Reset()
	rs.chatBack = 0
	return nil
}

// chatNote adds one of the screen's own lines to the chat: a line
// without an author (FromID empty), which the room never sends.
func (rs *raceScreen) chatNote(text string) {
	rs.addChat(lobby.ChatLine{Code: rs.snap.Code, Text: text})
}

// muteCommand carries out /mute NAME (muted) or /unmute NAME: the host
// mutes a racer, or a spectator who said something in the room.
func (rs *raceScreen) muteCommand(verb, name string, muted bool) tea.Cmd {
	if name == "" {
		rs.chatError(verb + " NAME: whom? /help lists the commands")
		return nil
	}
	id, shown := "", ""
	for _, r := range rs.racers {
		if strings.EqualFold(r.Name, name) {
			id, shown = r.ID, r.Name
		}
	}
	for i := len(rs.chat) - 1; i >= 0 && id == ""; i-- {
		if c := rs.chat[i]; c.FromID != "" && strings.EqualFold(c.From, name) {
			id, shown = c.FromID, c.From
		}
	}
	if id == "" {
		rs.chatError(clean("nobody called "+name+" in this room", 100))
		return nil
	}
	rs.inputOpen = false
	code, races, what := rs.snap.Code, rs.races, verb[1:]
	note := clean(shown, 16) + " may chat again"
	if muted {
		note = clean(shown, 16) + " is muted in this room"
	}
	return func() tea.Msg {
		if err := races.Mute(code, id, muted); err != nil {
			return raceDoneMsg{what: what, chat: true, err: err}
		}
		return raceDoneMsg{what: what, note: note}
	}
}

// removeCommand carries out /remove NAME: the host takes a member out of
// the room (in a race that runs they count as left), for their account
// and, a guest's, their address.
func (rs *raceScreen) removeCommand(name string) tea.Cmd {
	if name == "" {
		rs.chatError("/remove NAME: whom? /help lists the commands")
		return nil
	}
	for _, r := range rs.racers {
		if strings.EqualFold(r.Name, name) {
			rs.inputOpen = false
			code, races, id := rs.snap.Code, rs.races, r.ID
			note := clean(r.Name, 16) + " is out of this room"
			return func() tea.Msg {
				if err := races.Remove(code, id); err != nil {
					return raceDoneMsg{what: "remove", chat: true, err: err}
				}
				return raceDoneMsg{what: "remove", note: note}
			}
		}
	}
	rs.chatError(clean("nobody called "+name+" in this room", 100))
	return nil
}

// chatError shows an error of the chat (a refused line, a mute, a
// limit) on the message line until the next key or chat line.
func (rs *raceScreen) chatError(text string) {
	rs.say(sErr, text)
	rs.chatErr = text
}

// clearChatErr takes the chat's error off the message line, unless
// something else was said since.
func (rs *raceScreen) clearChatErr() {
	if rs.chatErr == "" {
		return
	}
	if rs.msg == rs.chatErr {
		rs.say(sInfo, "")
	}
	rs.chatErr = ""
}

// scrollChat scrolls the chat a page back (pgup) or forth (pgdn): the
// rows the last frame had for it, but for its markers, so that a page
// with both shows no row twice and one with a single marker keeps a row
// in sight.
func (rs *raceScreen) scrollChat(k tea.KeyMsg) {
	vc := rs.frameOf()
	page := max(1, vc.chatPane-2)
	if k.Type == tea.KeyPgUp {
		rs.chatBack = min(rs.chatBack+page, vc.chatMaxBack)
	} else {
		rs.chatBack = max(0, rs.chatBack-page)
	}
}

// isChatScroll reports whether k scrolls the chat.
func isChatScroll(k tea.KeyMsg) bool { return k.Type == tea.KeyPgUp || k.Type == tea.KeyPgDown }

// addChat adds a line to the chat, the oldest going past
// chatScrollback. The chat scrolled back stays where it is.
func (rs *raceScreen) addChat(c lobby.ChatLine) {
	if rs.chatBack > 0 {
		rs.chatBack += len(rs.chatRowsOf(nil, c, rs.chatWidth(rs.chatIndent())))
	}
	rs.chat = append(rs.chat, c)
	if len(rs.chat) > chatScrollback {
		rs.chat = slices.Delete(rs.chat, 0, len(rs.chat)-chatScrollback)
	}
}

// mergeChat is the chat kept, mine, with the room's lines of a new
// snapshot, theirs: the lines of mine before theirs begin stay, to
// scroll back to; mine's lines after are the room's again, as theirs.
func mergeChat(mine, theirs []lobby.ChatLine) []lobby.ChatLine {
	if len(theirs) == 0 {
		return slices.Clone(mine)
	}
	i := slices.Index(mine, theirs[0])
	if i < 0 {
		return slices.Clone(theirs)
	}
	out := append(slices.Clone(mine[:i]), theirs...)
	if len(out) > chatScrollback {
		out = slices.Delete(out, 0, len(out)-chatScrollback)
	}
	return out
}

// chatIndent is what each chat row starts with: one blank under the
// race's board, three on the room's pages, under their heading.
func (rs *raceScreen) chatIndent() string {
	if rs.inRace() {
		return " "
	}
	return "   "
}

// chatWidth is the cells a chat row has after indent, a cell short of
// the window's width, as the line being typed has.
func (rs *raceScreen) chatWidth(indent string) int { return max(rs.w-len(indent)-1, 8) }

// chatRowsOf appends the rows of one chat line wrapped in w cells: the
// author's name first, dim (a spectator's marked so), the rows after the
// first indented by chatHang; a line of the screen's own is dim.
func (rs *raceScreen) chatRowsOf(dst []string, c lobby.ChatLine, w int) []string {
	pal := rs.env.pal
	text := clean(c.Text, 12*lobby.MaxChatLen)
	hang := strings.Repeat(" ", chatHang)
	if c.FromID == "" {
		for i, row := range wrapCut(text, w, w-chatHang) {
			if i > 0 {
				row = hang + row
			}
			dst = append(dst, pal.style(sDim, row))
		}
		return dst
	}
	name := clean(c.From, 16)
	if c.Watching {
		name += " (watching)"
	}
	prefix := "<" + name + ">"
	for i, row := range wrapCut(text, w-cells(prefix)-1, w-chatHang) {
		if i == 0 {
			row = pal.style(sDim, prefix) + " " + row
		} else {
			row = hang + row
		}
		dst = append(dst, row)
	}
	return dst
}

// chatRowsKey is what the chat's rows are wrapped from.
type chatRowsKey struct {
	env         *env
	w, len      int
	indent      string
	first, last lobby.ChatLine
}

// chatRows is every row of the chat, wrapped after indent, kept until
// the chat or the width changes: the race's layout asks how many there
// are several times a frame.
func (rs *raceScreen) chatRows(indent string) []string {
	vc := rs.frameOf()
	k := chatRowsKey{env: rs.env, w: rs.w, len: len(rs.chat), indent: indent}
	if len(rs.chat) > 0 {
		k.first, k.last = rs.chat[0], rs.chat[len(rs.chat)-1]
	}
	if k == vc.chatRowsKey && vc.chatRowsOf != nil {
		return vc.chatRowsOf
	}
	rows := make([]string, 0, len(rs.chat))
	w := rs.chatWidth(indent)
	for _, c := range rs.chat {
		rows = rs.chatRowsOf(rows, c, w)
	}
	vc.chatRowsKey, vc.chatRowsOf = k, rows
	return rows
}

// chatWindow is which of total rows show in n, scrolled back by back
// rows: rows [start, end), and whether a marker of the rows above (top)
// and below (bottom) takes a row. Markers show when n has three rows at
// least; maxBack is the farthest back scrolls.
func chatWindow(total, n, back int) (start, end int, top, bottom bool, maxBack int) {
	if total <= n {
		return 0, total, false, false, 0
	}
	marks := n >= 3
	avail := n
	if marks {
		avail-- // a marker is always shown: the one above, the one below, or both
	}
	maxBack = total - avail
	back = min(max(back, 0), maxBack)
	end = total - back
	if back > 0 && marks {
		bottom = true
	}
	start = end - avail
	if start > 0 && marks {
		top = true
		if bottom {
			start++ // both markers: one row fewer
		}
	}
	return start, end, top, bottom, maxBack
}

// chatTail is the chat in n rows, each after indent: the rows in sight
// with the markers of those above and below, then the line being typed
// when it is open.
func (rs *raceScreen) chatTail(n int, indent string) []string {
	if n <= 0 {
		return nil
	}
	rows := rs.chatRows(indent)
	k := n
	if rs.inputOpen {
		k--
	}
	start, end, top, bottom, maxBack := chatWindow(len(rows), k, rs.chatBack)
	vc := rs.frameOf()
	vc.chatPane, vc.chatMaxBack = k, maxBack
	up, down := "↑", "↓"
	if !rs.env.gl.unicode {
		up, down = "^", "v"
	}
	out := make([]string, 0, n)
	if top {
		out = append(out, indent+rs.env.pal.style(sDim, up+" "+strconv.Itoa(start)+" more"+rs.env.gl.sep+"pgup"))
	}
	for _, row := range rows[start:end] {
		out = append(out, indent+row)
	}
	if bottom {
		out = append(out, indent+rs.env.pal.style(sDim, down+" "+strconv.Itoa(len(rows)-end)+" more"+rs.env.gl.sep+"pgdn"))
	}
	if rs.inputOpen {
		out = append(out, rs.inputRow(indent))
	}
	return out
}

// inputRow is the chat line being typed, after indent, with its count of
// characters against the room's limit at the right.
func (rs *raceScreen) inputRow(indent string) string {
	w := rs.chatWidth(indent)
	count := strconv.Itoa(rs.input.Len()) + "/" + strconv.Itoa(lobby.MaxChatLen)
	st := sDim
	if rs.input.Full() {
		st = sWarn
	}
	field := rs.input.view(rs.env.pal, w-len(count)-1)
	return indent + padRight(field, w-len(count)) + rs.env.pal.style(st, count)
}

// chatRowsWanted is how many rows the chat would fill: its rows, and the
// line being typed.
func (rs *raceScreen) chatRowsWanted() int {
	n := len(rs.chatRows(rs.chatIndent()))
	if rs.inputOpen {
		n++
	}
	return n
}

// appendChat appends the chat in n rows under the race's board, kept
// from the frame before while the line being typed is closed.
func (rs *raceScreen) appendChat(vc *raceFrame, parts []string, n int) []string {
	if n <= 0 {
		return parts
	}
	if rs.inputOpen {
		return append(parts, rs.chatPart(n)...)
	}
	k := chatKey{env: rs.env, w: rs.w, n: n, len: len(rs.chat), back: rs.chatBack}
	if len(rs.chat) > 0 {
		k.last = rs.chat[len(rs.chat)-1]
	}
	if k != vc.chat || vc.chatStr == nil {
		vc.chat, vc.chatStr = k, rs.chatPart(n)
	}
	return append(parts, vc.chatStr...)
}

// chatPart is the chat in n rows under the race's board.
func (rs *raceScreen) chatPart(n int) []string { return rs.chatTail(n, " ") }

// chatBody is the chat as lines of a room's page, under a heading: the
// last rows that fit in n.
func (rs *raceScreen) chatBody(n int) []string {
	if n <= 1 {
		return nil
	}
	tail := rs.chatTail(n-1, "   ")
	if len(tail) == 0 {
		return nil
	}
	return append([]string{" " + rs.env.pal.style(sDim, "chat")}, tail...)
}
