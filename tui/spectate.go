package tui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
	"pyramid/lobby"
)

// Replies and events of spectating.
type (
	// spectateMsg brings the lobby's answer to Watch: what to show, or
	// why not.
	spectateMsg struct {
		name    string
		watched lobby.Watched
		err     error
		// room is set when name races: their board is in that room,
		// which the spectator watches, on racer's board (a player ID).
		room, racer string
	}
	// spectateOpenMsg: the player asks to watch name (from the Lobby
	// screen or the deep link `watch NAME`).
	spectateOpenMsg struct{ name string }
	// spectateDoneMsg: the spectator leaves.
	spectateDoneMsg struct{}
)

// watchArgs reads the deep link `watch NAME`: ok is false when args are
// not a watch link at all; name is empty when the name is missing.
func watchArgs(args []string) (name string, ok bool) {
	if len(args) == 0 || !strings.EqualFold(strings.TrimSpace(args[0]), "watch") {
		return "", false
	}
	if len(args) != 2 {
		return "", true
	}
	return strings.TrimSpace(args[1]), true
}

// spectateScreen shows another player's game, read-only, as their
// session publishes it after each move: the board replays the record
// the lobby brought. No cursor, no selection, no keys but back, redraw
// and quit.
type spectateScreen struct {
	// board is the watched game's position, or nil before the first
	// board and while the player is not at a game.
	board *board
	chrome
	name       string // the watched player's name, cleaned
	spectators int
	ended      string // why watching ended; empty while it goes on
	back       key.Binding
	bar        *helpBar
	rec        engine.Record // what board shows
}

// newSpectate builds the screen for the lobby's first answer.
func newSpectate(e *env, w lobby.Watched, width, height int) *spectateScreen {
	s := &spectateScreen{
		chrome: chrome{env: e, w: width, h: height},
		name:   clean(w.Name, 16),
		back:   key.NewBinding(key.WithKeys("q", "esc"), key.WithHelp("q", "stop watching")),
		bar:    newHelpBar(),
	}
	s.watched(w)
	return s
}

// watched shows what the lobby brought: a new board, or the same with a
// new count of spectators.
func (s *spectateScreen) watched(w lobby.Watched) {
	s.spectators = w.Spectators
	rec := w.Board.Record
	if !w.Board.Playing() {
		s.board, s.rec = nil, engine.Record{}
		return
	}
	if s.board != nil && sameGame(s.rec, rec) && len(rec.Moves) == len(s.rec.Moves) {
		s.board.watchers = s.spectators
		return
	}
	g, err := engine.Replay(rec)
	if err != nil {
		s.board, s.rec = nil, engine.Record{}
		s.say(sErr, "cannot show "+s.name+"'s game: "+clean(err.Error(), 120))
		return
	}
	title := s.name + s.env.gl.sep + titleOf(g.Rules(), g.Deal(), w.Board.Daily, s.env.gl.sep)
	if s.board == nil || !sameGame(s.rec, rec) {
		b := newBoard(s.env, g, title, s.w, s.h)
		b.hideDeal(w.Board.Chosen, s.name+s.env.gl.sep+hiddenTitleOf(g.Rules(), w.Board.Daily, s.env.gl.sep))
		s.board = &b
	} else {
		s.board.game = g
		s.board.version++
		s.board.refresh()
	}
	s.board.cursor = engine.NoPlace
	s.board.refreshTargets()
	s.board.watchers = s.spectators
	s.rec = rec
	s.sayBoard()
}

// sameGame reports whether two records are of one game (the moves aside).
func sameGame(a, b engine.Record) bool {
	return a.Rules == b.Rules && a.Deal == b.Deal && a.DealText == b.DealText
}

// sayBoard sets the board's message line: the last move, or the end.
func (s *spectateScreen) sayBoard() {
	b := s.board
	if s.ended != "" {
		b.say(sWarn, s.ended)
		return
	}
	switch b.d.status {
	case engine.Won:
		b.say(sOK, s.name+" won")
	case engine.Lost:
		b.say(sWarn, s.name+" has no move left")
	default:
		b.say(sInfo, "watching "+s.name+": "+strconv.Itoa(len(s.rec.Moves))+plural(len(s.rec.Moves), " move", " moves"))
	}
}

// end notes that watching ended, and why.
func (s *spectateScreen) end(reason string) {
	s.ended = clean(reason, 120)
	s.spectators = 0
	if s.board != nil {
		s.board.watchers = 0
		s.sayBoard()
	}
}

func (s *spectateScreen) setSize(w, h int) {
	s.w, s.h = w, h
	if s.board != nil {
		s.board.layOut(w, h)
	}
}

func (s *spectateScreen) setEnv(e *env) {
	s.env = e
	if s.board != nil {
		s.board.env, s.board.cache = e, &viewCache{}
		s.board.layOut(s.w, s.h)
	}
}

func (s *spectateScreen) say(st styleID, text string) {
	s.chrome.say(st, text)
	if s.board != nil {
		s.board.say(st, text)
	}
}

func (s *spectateScreen) needs() (w, h int) {
	if s.board != nil {
		return s.board.needs()
	}
	return s.chrome.needs()
}

// update handles a key.
func (s *spectateScreen) update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, s.back):
		s.event = spectateDoneMsg{}
	}
	return nil
}

// view draws the watched board, or a line saying there is none.
func (s *spectateScreen) view() string {
	if s.board != nil {
		return s.board.render(s, "", nil, []key.Binding{s.back}, nil)
	}
	text := s.name + " is not at a game right now: their board shows here when they play"
	if s.ended != "" {
		text = s.ended
	}
	return drawPage(s.env, s.w, s.h, "Pyramid Solitaire"+s.env.gl.sep+"watching "+s.name,
		s.subtitle(),
		[]string{"", "    " + text}, s.msg, s.msgSt, s.bar, []key.Binding{s.back})
}

// subtitle counts the spectators while watching goes on.
func (s *spectateScreen) subtitle() string {
	if s.ended != "" {
		return ""
	}
	return strconv.Itoa(s.spectators) + plural(s.spectators, " spectator", " spectators")
}

// panel writes the lines of the end panel: over the cleared pyramid, or
// beside what is left of a lost one.
func (s *spectateScreen) panel(lines []string, moves, passes string, _ int) []string {
	if s.board.d.status == engine.Lost {
		return append(lines, s.name+" has no moves left", "", moves, "", "q: stop watching")
	}
	return append(lines, s.name+" cleared the pyramid", "", moves+s.env.gl.sep+passes, "", "q: stop watching")
}
