package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
)

// Events the table raises for its owner, and replies of its commands.
type (
	// backMsg: the player leaves the table for the menu.
	backMsg struct{}
	// newDealMsg: the player asks for a new deal of the same rules.
	newDealMsg struct{}
	// helpMsg: the player asks for the help screen.
	helpMsg struct{}
	// quitMsg: the player ends the session. The owner quits once the
	// last save is stored.
	quitMsg struct{}
	// hintMsg is the solver's answer to a hint request.
	hintMsg struct {
		token   int
		version int
		move    engine.Move
		verdict engine.Verdict
		err     error
	}
	// solvedMsg is the solver's answer about the deal of game token from
	// its start. The winning line it may have found is not kept.
	solvedMsg struct {
		token   int
		verdict engine.Verdict
		err     error
	}
)

// tableScreen is the game screen: the pyramid, the piles, the header, the
// message line or the ":" prompt, and the help bar. It owns the game.
type tableScreen struct {
	// board is the game, its marks and its drawing.
	board
	// Keys is the table's key map.
	Keys TableKeyMap

	token int    // identifies this game in replies to commands
	day   string // the daily deal's date, or empty
	// chosen: the player chose the deal (a number they typed, deal
	// text): its number is theirs to see, and the game is practice for
	// records and boards (SavedGame.Chosen). Set by setChosen.
	chosen bool
	scheme KeyScheme // the movement keys
	// rulesNote is what the message line says of the game's rules before
	// the first move (the daily's), or empty.
	rulesNote string
	// undoLimit names where undo takes back removals only, never a draw
	// or a redeal (engine.Game.UndoPeeks): "a race", "the daily"; empty:
	// undo has no limit.
	undoLimit string
	// noHints: no hints on this table (a challenge's); H says so.
	noHints bool
	// challenge is the number of the challenge whose game this is
	// (tui/challenge.go), or empty: its game is shown to no spectator
	// and its deal to nobody until the challenge is over.
	challenge string

	prompt     Prompt
	promptOpen bool

	played   time.Duration // time played before since (earlier sessions, before the menu)
	since    time.Time     // when play last began; zero until known and while away
	wonIn    time.Duration
	wonKnown bool
	// The header's clock (clock.go): the last tick's reading, whether a
	// tick is on its way, whether the player is in the menu and whether
	// the pause's reading is on its way.
	lastTick               time.Time
	ticking, away, pausing bool

	// wantBefore asks the table to keep a copy of itself as it is right
	// before the game changes (before), for its owner: a stored game
	// shows that copy until the store has the change.
	wantBefore bool
	before     *tableScreen

	// answer is what the solver said of the deal from its start, asked
	// once the game ends; fetching is true while the solver's winning
	// line is asked for, to watch. The line itself is kept only by the
	// watch screen, while it shows.
	answer   answer
	fetching bool
	// after is the token of the lost game this one was dealt after, or
	// 0: the solver's answer about that deal shows here when it comes.
	after int

	// The solver's second level (par.go, lost.go): the deal's par once
	// known after a win (0 until then), where a lost game lost its win,
	// and the live check "tell me when a deal can no longer be won".
	par  int
	lost *loss
	live liveCheck
	// hints and undos count the hints shown and the moves undone in
	// this game, from the stored figures of a resumed game on; watched
	// is set once the solver's line was watched. Saves carry them: the
	// server records assisted games as such.
	hints, undos int
	watched      bool
	// times is when each move of the game was made, by the table's clock
	// (movetimes.go); pending or unknown ones are marked.
	times []time.Duration
	// result is what the server recorded at the last save, when it says
	// (Recorder): the end screens show it.
	result *SaveResult
}

// answer is what the solver said about a deal from its start.
type answer uint8

const (
	answerNone       answer = iota // not asked (no solver, or the game goes on)
	answerAsking                   // asked, no reply yet
	answerWinnable                 // some line of play wins the deal
	answerUnwinnable               // no line of play wins it
	answerUnknown                  // the solver did not decide in time
)

// decided reports whether the solver has replied.
func (a answer) decided() bool { return a >= answerWinnable }

// sentence is the answer as the end of a game says it.
func (a answer) sentence(gl *glyphs) string {
	switch a {
	case answerAsking:
		return "asking the solver" + gl.ell
	case answerWinnable:
		return "This deal could be won: watch a winning line (w)"
	case answerUnwinnable:
		return "No line of play wins this deal: it was never winnable"
	case answerUnknown:
		return "The solver could not decide in time"
	}
	return ""
}

// afterNote is the answer about a lost deal, said on the table of the
// deal the player went on to.
func (a answer) afterNote() string {
	switch a {
	case answerWinnable:
		return "the deal you left could have been won: the solver found a line"
	case answerUnwinnable:
		return "the deal you left could never have been won: no line of play wins it"
	case answerUnknown:
		return "the solver could not decide in time whether the deal you left could be won"
	}
	return ""
}

// answerOf turns the solver's reply into an answer.
func answerOf(v engine.Verdict, err error) answer {
	switch {
	case err != nil:
		return answerUnknown
	case v == engine.Winnable:
		return answerWinnable
	case v == engine.Unwinnable:
		return answerUnwinnable
	}
	return answerUnknown
}

// newTable sets a game on the table. token must differ from that of any
// earlier game of the session; day is the daily deal's date, or empty.
func newTable(e *env, scheme KeyScheme, g *engine.Game, token int, day string, played time.Duration, w, h int) *tableScreen {
	t := &tableScreen{
		board:  newBoard(e, g, titleOf(g.Rules(), g.Deal(), day, e.gl.sep), w, h),
		Keys:   NewTableKeyMap(scheme, e.gl),
		scheme: scheme,
		day:    day,
		token:  token,
		played: played,
		prompt: Prompt{Label: ": "},
	}
	if day != "" {
		t.undoLimit = "the daily"
	}
	t.hideDeal(false, hiddenTitleOf(g.Rules(), day, e.gl.sep))
	t.updateKeys()
	return t
}

// setChosen says whether the player chose the table's deal: a chosen
// deal's number shows from the start, the server's when the game is over.
func (t *tableScreen) setChosen(chosen bool) {
	t.chosen = chosen || !t.game.Deal().Numbered
	t.hideDeal(t.chosen, hiddenTitleOf(t.game.Rules(), t.day, t.env.gl.sep))
}

// Game returns the table's game.
func (t *tableScreen) Game() *engine.Game { return t.game }

// Version counts the changes made to the game on this table.
func (t *tableScreen) Version() int { return t.version }

// keepBefore keeps a frozen copy of the table as it is now, before the
// game changes, when the owner asked for one. It is called right before
// every change of the game; the owner takes the copy after the Update.
func (t *tableScreen) keepBefore() {
	if t.wantBefore && t.before == nil {
		t.before = t.frozen()
	}
}

// frozen returns a copy of the table that later changes of the game leave
// as it is: its own game and its own copies of the slices the table
// reuses. It shares the view cache, which checks every line it keeps
// against what it draws.
//
// The copy is made on the heap at once: a tableScreen is 1.9 KB, and copies
// by value on the way would sit in the frame of every move. It is taken
// from frozenTables, where owners give copies back (letGo): a racer's
// every move makes one, kept only until the server has the move (a few
// milliseconds), so a few copies serve every session of the server
// instead of one kept by each.
func (t *tableScreen) frozen() *tableScreen {
	f, _ := frozenTables.Get().(*tableScreen)
	if f == nil {
		f = new(tableScreen)
	}
	game, targets, legal, prompt, times := f.game, f.d.targets[:0], f.d.legalMoves[:0], f.prompt.value[:0], f.times[:0]
	*f = *t
	f.game = t.game.CopyTo(game)
	f.d.targets = append(targets, t.d.targets...)
	f.d.legalMoves = append(legal, t.d.legalMoves...)
	f.prompt.value = append(prompt, t.prompt.value...)
	f.times = append(times, t.times...)
	f.wantBefore, f.before, f.event = false, nil, nil
	return f
}

// frozenTables are frozen copies given back (letGo), for frozen to reuse:
// only the memory of their own game and slices, nothing of the session
// they came from.
var frozenTables sync.Pool

// letGo gives back a frozen copy of this table that its owner no longer
// shows or keeps anywhere, as the memory of the next one (of any session).
func (t *tableScreen) letGo(f *tableScreen) {
	if f == nil || f == t || f.token != t.token || f.game == t.game {
		return
	}
	game, targets, legal, prompt, times := f.game, f.d.targets[:0], f.d.legalMoves[:0], f.prompt.value[:0], f.times[:0]
	*f = tableScreen{times: times}
	f.game, f.d.targets, f.d.legalMoves, f.prompt.value = game, targets, legal, prompt
	frozenTables.Put(f)
}

// setSize lays the table out for a window size.
func (t *tableScreen) setSize(w, h int) {
	if t.d.status == engine.Lost && t.msg == t.lostNote(t.w) {
		t.msg = t.lostNote(w) // the note says as much as the width allows
	}
	t.layOut(w, h)
}

// setScheme changes the movement keys.
func (t *tableScreen) setScheme(s KeyScheme) {
	t.scheme = s
	t.Keys = NewTableKeyMap(s, t.env.gl)
	t.updateKeys()
}

// setEnv draws the table with the glyphs of e, the session's env since
// the player switched cards: the title (its separator), the key map's
// help, the layout and the lost note. The view cache is the table's own
// from now on, for the lines it keeps were drawn with the other glyphs.
// Other messages stay as they were written: in ASCII, View turns their
// suit symbols into letters.
func (t *tableScreen) setEnv(e *env) {
	lost := t.d.status == engine.Lost && t.msg == t.lostNote(t.w)
	t.env, t.cache = e, &viewCache{}
	t.title = titleOf(t.game.Rules(), t.game.Deal(), t.day, e.gl.sep)
	t.hideDeal(t.chosen, hiddenTitleOf(t.game.Rules(), t.day, e.gl.sep))
	t.setScheme(t.scheme)
	t.setSize(t.w, t.h)
	if lost {
		t.msg = t.lostNote(t.w)
	}
}

// update handles keys, mouse clicks and the replies of the table's
// commands.
func (t *tableScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if t.promptOpen {
			return t.updatePrompt(msg)
		}
		return t.updateKey(msg)
	case tea.MouseMsg:
		if msg.Action == tea.MouseActionPress && msg.Button == tea.MouseButtonLeft && !t.promptOpen {
			return t.click(msg.X, msg.Y)
		}
	case clockMsg:
		if msg.token != t.token {
			return nil
		}
		return t.clocked(msg)
	case tickMsg:
		if msg.token == t.token {
			return t.env.readClock(t.token, clockTick)
		}
	case hintMsg:
		if msg.token == t.token && msg.version == t.version {
			t.solverHint(msg)
		}
	case solvedMsg:
		t.solvedReply(msg)
	case lostMsg:
		t.lostReply(msg) // lost.go
	case liveMsg:
		if msg.token == t.token {
			return t.liveReply(msg) // lost.go
		}
	case parMsg:
		t.parReply(msg) // par.go
	case lineMsg:
		t.lineReply(msg)
	}
	return nil
}

// The table's replies name it (routed): the root hands them to the table
// while it has a game, whether or not it shows.
func (tickMsg) to() screenID   { return screenTable }
func (hintMsg) to() screenID   { return screenTable }
func (solvedMsg) to() screenID { return screenTable }
func (lostMsg) to() screenID   { return screenTable }
func (liveMsg) to() screenID   { return screenTable }
func (lineMsg) to() screenID   { return screenTable }

// updateKey handles a key while the prompt is closed.
func (t *tableScreen) updateKey(k tea.KeyMsg) tea.Cmd {
	km, kn := &t.Keys, nameOf(k)
	switch {
	case key.Matches(kn, km.Help):
		t.event = helpMsg{}
		return nil
	case key.Matches(kn, km.Back):
		t.event = backMsg{}
		return nil
	case bound(kn, km.New) && !t.promptOpen:
		t.event = newDealMsg{}
		return nil
	case t.canWatch() && key.Matches(kn, watchKeys):
		return t.askLine()
	case key.Matches(kn, copyKeys) && t.shareLine() != "":
		t.say(sInfo, "share line "+copied)
		return copyText(t.shareLine())
	}
	if t.d.status == engine.Won {
		if key.Matches(kn, km.Select) {
			t.event = newDealMsg{}
			return nil
		}
		return nil
	}
	switch {
	case key.Matches(kn, km.Up):
		t.move(0, -1)
	case key.Matches(kn, km.Down):
		t.move(0, 1)
	case key.Matches(kn, km.Left):
		t.move(-1, 0)
	case key.Matches(kn, km.Right):
		t.move(1, 0)
	case key.Matches(kn, km.Select):
		return t.activate(t.cursor)
	case key.Matches(kn, km.Cancel):
		t.sel, t.hint, t.msg = engine.NoPlace, engine.Move{}, ""
	case bound(kn, km.Draw):
		return t.draw()
	case bound(kn, km.Undo):
		return t.undo()
	case bound(kn, km.Redo):
		return t.redo()
	case key.Matches(kn, km.Hint):
		return t.askHint()
	case key.Matches(kn, km.Prompt):
		t.promptOpen = true
		t.prompt = t.prompt.Reset()
		t.updateKeys()
	}
	return nil
}

// updatePrompt handles a key while the ":" prompt is open.
func (t *tableScreen) updatePrompt(k tea.KeyMsg) tea.Cmd {
	switch k.Type {
	case tea.KeyEsc:
		t.promptOpen = false
		t.updateKeys()
		return nil
	case tea.KeyEnter:
		line := t.prompt.Value()
		t.prompt = t.prompt.Remember(strings.TrimSpace(line)).Reset()
		t.promptOpen = false
		cmd := t.playLine(line)
		t.updateKeys() // the keys the prompt disabled, whether or not a move was played
		return cmd
	}
	var cmd tea.Cmd
	t.prompt, cmd = t.prompt.Update(k)
	return cmd
}

// playLine applies moves typed in notation, in order, stopping at the
// first that cannot be read or played and saying why.
func (t *tableScreen) playLine(line string) tea.Cmd {
	moves, perr := engine.ParseMoves(line)
	applied := 0
	var err error
	if len(moves) > 0 {
		t.keepBefore()
	}
	for i, m := range moves {
		if e := t.game.Apply(m); e != nil {
			err = fmt.Errorf("move %d (%s): %w", i+1, m, e)
			break
		}
		applied++
	}
	if err == nil {
		err = perr
	}
	var cmd tea.Cmd
	if applied > 0 {
		t.sel = engine.NoPlace
		cmd = t.changed()
	}
	switch {
	case err != nil && applied > 0:
		t.sayf(sErr, "played %d, then %s", applied, t.errText(err))
	case err != nil:
		t.say(sErr, t.errText(err))
	case applied == 0:
		t.say(sInfo, "no moves typed: e.g. 7.1+7.4 d 6.2+w (d draw, r redeal, w waste, s stock)")
	case t.d.status == engine.Playing:
		t.sayf(sOK, "played %d %s", applied, plural(applied, "move", "moves"))
	}
	return cmd
}

// activate is enter, space or a click on place p.
func (t *tableScreen) activate(p engine.Place) tea.Cmd {
	if t.d.status == engine.Won {
		return nil
	}
	if p == engine.Stock && (!t.game.Rules().StockOpen || !t.d.stockHas) {
		return t.draw()
	}
	c, ok := t.cardAt(p)
	if !ok {
		return nil
	}
	if !t.isTarget(p) {
		t.sayf(sErr, "%s %s", t.env.gl.cardName(c), t.whyNot(p))
		return nil
	}
	if c.Rank() == 13 {
		if t.sel == p {
			t.sel = engine.NoPlace
		}
		return t.play(engine.KingMove(p), "removed "+t.env.gl.cardName(c))
	}
	switch t.sel {
	case engine.NoPlace:
		t.sel = p
		want := partnerRank(c.Rank())
		article := "a"
		if want == "A" || want == "8" {
			article = "an"
		}
		t.sayf(sInfo, "%s selected: pick %s %s to make 13 (esc unselects)", t.env.gl.cardName(c), article, want)
	case p:
		t.sel = engine.NoPlace
		t.msg = ""
	default:
		first, _ := t.cardAt(t.sel)
		m := engine.PairMove(t.sel, p)
		if err := t.game.Check(m); err != nil {
			// The card just chosen becomes the selection, as in other
			// solitaires: the player most often meant to start anew.
			t.sel = p
			t.sayf(sErr, "%s and %s: %s; %s selected", t.env.gl.cardName(first), t.env.gl.cardName(c), t.errText(err), t.env.gl.cardName(c))
			return nil
		}
		t.sel = engine.NoPlace
		return t.play(m, "removed "+t.env.gl.cardName(first)+" + "+t.env.gl.cardName(c))
	}
	return nil
}

// whyNot says why the card at p cannot be taken, with the engine's reason.
func (t *tableScreen) whyNot(p engine.Place) string {
	err := t.game.Check(engine.KingMove(p))
	if err == nil || errors.Is(err, engine.ErrNotKing) {
		return "is not available"
	}
	return t.errText(err)
}

// errText is an engine error as the player reads it: its cards as the
// board draws them (suit symbols, or letters), not in notation.
func (t *tableScreen) errText(err error) string {
	return t.env.gl.cardsIn(err.Error())
}

// click selects the card drawn at screen cell (x, y).
func (t *tableScreen) click(x, y int) tea.Cmd {
	if t.d.status == engine.Won {
		return nil
	}
	p, ok := t.lay.hit(x, y, func(p engine.Place) bool { return t.d.present[p] },
		func(p engine.Place) bool { return t.covered(p) })
	if !ok {
		return nil
	}
	if t.isTarget(p) {
		t.cursor = p
	}
	return t.activate(p)
}

// draw draws from the stock, or turns the waste over when the stock is
// empty and a pass is left.
func (t *tableScreen) draw() tea.Cmd {
	switch {
	case t.d.canDraw:
		return t.play(engine.DrawMove, "")
	case t.d.canRedeal:
		return t.play(engine.RedealMove, fmt.Sprintf("pass %d%s: the waste is the stock again", t.game.Pass()+1, t.passesOf()))
	}
	err := t.game.Check(engine.RedealMove)
	if errors.Is(err, engine.ErrStockNotEmpty) || err == nil {
		err = t.game.Check(engine.DrawMove)
	}
	t.say(sErr, err.Error())
	return nil
}

// play applies a move and reports it.
func (t *tableScreen) play(m engine.Move, done string) tea.Cmd {
	t.keepBefore()
	if err := t.game.Apply(m); err != nil {
		t.sayf(sErr, "%s: %s", m, t.errText(err))
		return nil
	}
	if m.Kind == engine.Draw || m.Kind == engine.Redeal {
		if t.sel != engine.NoPlace && !t.sel.IsPyramid() {
			t.sel = engine.NoPlace
		}
	}
	cmd := t.changed()
	if t.d.status == engine.Playing {
		t.say(sOK, done)
	}
	return cmd
}

// undo takes back the last move.
func (t *tableScreen) undo() tea.Cmd {
	moves := t.game.Moves()
	if t.undoLimit != "" && t.game.UndoPeeks() {
		t.say(sWarn, "undo takes back removals in "+t.undoLimit+", never a draw or a redeal")
		return nil
	}
	if t.game.CanUndo() {
		t.keepBefore()
	}
	if err := t.game.Undo(); err != nil {
		t.say(sErr, err.Error())
		return nil
	}
	if t.day == "" {
		// A removal taken back in the daily is no assistance: it keeps
		// the player on today's board (undo takes back nothing else
		// there).
		t.undos++
	}
	t.sel = engine.NoPlace
	cmd := t.changed()
	if t.d.status != engine.Lost {
		t.sayf(sOK, "undid %s", moves[len(moves)-1])
	}
	return cmd
}

// redo makes the last undone move again.
func (t *tableScreen) redo() tea.Cmd {
	next := t.game.RedoMoves()
	if t.game.CanRedo() {
		t.keepBefore()
	}
	if err := t.game.Redo(); err != nil {
		t.say(sErr, err.Error())
		return nil
	}
	t.sel = engine.NoPlace
	cmd := t.changed()
	if t.d.status == engine.Playing {
		t.sayf(sOK, "redid %s", next[0])
	}
	return cmd
}

// askHint shows the heuristic's hint at once and, with a solver, asks it
// for a move that keeps the deal winnable.
func (t *tableScreen) askHint() tea.Cmd {
	if t.d.status != engine.Playing {
		return nil
	}
	if t.noHints {
		t.say(sWarn, "no hints in "+t.undoLimit)
		return nil
	}
	m, ok := t.game.Hint()
	if !ok {
		return nil
	}
	// A hint makes the game assisted: a new version is saved with the
	// count (the position stays as it is).
	t.hints++
	t.version++
	t.showHint(m, "")
	if t.env.solver == nil {
		return nil
	}
	t.sayf(sInfo, "%s (asking the solver…)", t.msg)
	g, solver, ctx := t.game.Clone(), t.env.solver, t.env.ctx
	token, version := t.token, t.version
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, hintTimeout)
		defer cancel()
		m, v, err := solver.Hint(ctx, g)
		return hintMsg{token: token, version: version, move: m, verdict: v, err: err}
	}
}

// solverHint shows the solver's answer.
func (t *tableScreen) solverHint(h hintMsg) {
	switch {
	case h.err == nil && h.verdict == engine.Winnable && h.move.Kind != 0 && t.game.Check(h.move) == nil:
		t.showHint(h.move, "keeps the deal winnable")
	case h.err == nil && h.verdict == engine.Unwinnable && t.game.MovesMade() == 0:
		// From the start: no line of play ever wins this deal.
		t.showHint(t.hint, "")
		t.sayf(sWarn, "%s%sthis deal can never be won: %s deals a new one", t.msg, t.env.gl.sep, t.Keys.New.Help().Key)
	case h.err == nil && h.verdict == engine.Unwinnable:
		t.showHint(t.hint, "")
		t.sayf(sWarn, "%s%sthe deal can no longer be won: undo to find a winning line", t.msg, t.env.gl.sep)
	default:
		t.showHint(t.hint, "the solver does not know better in time")
	}
}

// showHint highlights a move and describes it. A selection that is not
// part of the move is dropped, so that enter on the hinted card starts the
// hinted move.
func (t *tableScreen) showHint(m engine.Move, note string) {
	t.hint = m
	if t.sel != m.A && t.sel != m.B {
		t.sel = engine.NoPlace
	}
	what := t.describe(m)
	switch m.Kind {
	case engine.Draw:
		t.cursor = engine.Stock
	case engine.Redeal:
		what += " (" + t.Keys.Draw.Help().Key + ")"
		t.cursor = engine.Stock
	case engine.RemoveKing, engine.RemovePair:
		t.cursor = m.A
	default:
		return
	}
	if note != "" {
		what += ": " + note
	}
	t.sayf(sInfo, "hint: %s", what)
}

// askDeal asks the solver, once a game has ended, whether its deal could
// be won from the start. It asks once per game and never blocks: the
// answer comes as a solvedMsg, and the end of the game says "asking the
// solver…" meanwhile.
func (t *tableScreen) askDeal() tea.Cmd {
	if t.env.solver == nil || t.answer != answerNone {
		return nil
	}
	t.answer = answerAsking
	if cmd := t.askWhereLost(); cmd != nil { // lost.go: also answers this question
		return cmd
	}
	solver, ctx, token := t.env.solver, t.env.ctx, t.token
	r, d := t.game.Rules(), t.game.Deal()
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, solveTimeout)
		defer cancel()
		g, err := engine.NewGame(r, d)
		if err != nil {
			return solvedMsg{token: token, err: err}
		}
		v, _, err := solver.Solve(ctx, g)
		return solvedMsg{token: token, verdict: v, err: err}
	}
}

// solvedReply takes the solver's answer about a deal: this game's, or
// the lost game's the player dealt this one after, which the table tells
// of.
func (t *tableScreen) solvedReply(msg solvedMsg) {
	switch {
	case msg.token == t.token:
		t.solved(msg)
	case msg.token == t.after && msg.token != 0:
		t.after = 0
		if t.sel == engine.NoPlace && !t.promptOpen {
			t.say(sInfo, answerOf(msg.verdict, msg.err).afterNote())
		}
	}
}

// lineReply takes the solver's winning line of the deal, asked for to
// watch it: the watch screen opens with it (the root's watchLineMsg) if
// the game is still over.
func (t *tableScreen) lineReply(msg lineMsg) {
	if msg.token != t.token || !t.fetching {
		return
	}
	t.fetching = false
	t.endMessage()
	switch {
	case t.d.status == engine.Playing:
	case msg.err != nil:
		t.say(sWarn, clean("no line to watch: "+Reason(msg.err), 200))
	default:
		t.event = watchLineMsg{start: msg.start, line: msg.line, givesUp: true}
	}
}

// solved takes the solver's answer about the deal.
func (t *tableScreen) solved(msg solvedMsg) {
	if t.answer != answerAsking {
		return
	}
	t.answer = answerOf(msg.verdict, msg.err)
	if t.d.status == engine.Lost {
		t.say(sWarn, t.lostNote(t.w))
	}
}

// canWatch reports whether w shows the solver's winning line: the game
// has ended and the solver said the deal could be won.
func (t *tableScreen) canWatch() bool {
	return t.d.status != engine.Playing && t.answer == answerWinnable && !t.promptOpen
}

// lostNote is the message line of a lost position for a window w cells
// wide: that no move is left and, with a solver, whether the deal could
// have been won.
func (t *tableScreen) lostNote(w int) string {
	lost := "no moves left: undo (u) or start a new deal (n)"
	if t.challenge != "" {
		lost = "no moves left: your game of challenge " + t.challenge + " is over"
	}
	switch t.answer {
	case answerNone:
		return lost
	case answerAsking:
		return lost + t.env.gl.sep + t.answer.sentence(t.env.gl)
	}
	s := t.answer.sentence(t.env.gl)
	if l := t.lossNote(w); l != "" { // lost.go: where the win was lost
		s = l
	}
	if long := "no moves left. " + s; cells(long) <= w-2 {
		return long
	}
	return s
}

// endMessage sets the message line a game's end shows by itself: the
// lost note, or nothing over the win panel.
func (t *tableScreen) endMessage() {
	switch t.d.status {
	case engine.Lost:
		t.say(sWarn, t.lostNote(t.w))
	case engine.Won:
		t.msg = ""
	}
}

// changed recomputes what the table shows after the game changed, and
// returns the command the change needs: reading the clock on a win, and
// asking the solver about the deal when the game ends.
func (t *tableScreen) changed() tea.Cmd {
	before := t.d.status
	t.version++
	t.hint = engine.Move{}
	t.refresh()
	t.updateKeys()
	if t.sel != engine.NoPlace && !t.isTarget(t.sel) {
		t.sel = engine.NoPlace
	}
	t.fixCursor()
	var cmd tea.Cmd
	switch t.d.status {
	case engine.Won:
		t.sel = engine.NoPlace
		t.msg = ""
		if before != engine.Won {
			t.wonKnown = false
			cmd = tea.Batch(t.env.readClock(t.token, clockWon), t.askDeal(), t.askWonPar() /* par.go */)
		}
	case engine.Lost:
		cmd = t.askDeal()
		if before != engine.Lost {
			// The clock stops at the loss too.
			t.wonKnown = false
			cmd = tea.Batch(t.env.readClock(t.token, clockWon), cmd)
		}
		t.say(sWarn, t.lostNote(t.w))
	case engine.Playing:
		if before != engine.Playing {
			// Undone from the end: the clock runs again.
			t.wonKnown = false
			t.showClock()
			cmd = t.startTicking()
		}
	}
	return tea.Batch(cmd, t.liveChanged(), t.timeMoves() /* movetimes.go */) // lost.go: the live check
}

// pileIndex is the index (0–2) of a waste place.
func pileIndex(p engine.Place) int {
	if p == engine.Waste {
		return 0
	}
	return int(p - engine.Waste1)
}

// updateKeys enables the bindings that apply now.
func (t *tableScreen) updateKeys() {
	k := &t.Keys
	playing := t.d.status == engine.Playing && !t.promptOpen
	won := t.d.status == engine.Won
	k.Up.SetEnabled(playing)
	k.Down.SetEnabled(playing)
	k.Left.SetEnabled(playing)
	k.Right.SetEnabled(playing)
	k.Move.SetEnabled(playing)
	// A challenge's game won: one attempt, no deal to go on to here.
	k.Select.SetEnabled(!t.promptOpen && t.d.status != engine.Lost && !(won && t.challenge != ""))
	switch {
	case won && t.game.Rules().Daily:
		k.Select.SetHelp("enter", "replay") // the day has one deal
	case won:
		k.Select.SetHelp("enter", "new deal")
	default:
		k.Select.SetHelp("enter", "select")
	}
	k.Cancel.SetEnabled(playing)
	k.Draw.SetEnabled(playing && (t.d.canDraw || t.d.canRedeal))
	if t.d.canRedeal && !t.d.canDraw {
		k.Draw.SetHelp(k.Draw.Help().Key, "redeal")
	} else {
		k.Draw.SetHelp(k.Draw.Help().Key, "draw")
	}
	k.Undo.SetEnabled(!won && !t.promptOpen && t.game.CanUndo())
	k.Redo.SetEnabled(!won && !t.promptOpen && t.game.CanRedo())
	k.Hint.SetEnabled(playing)
	k.Prompt.SetEnabled(playing)            // after the end, typed moves have nothing to play on
	k.New.SetEnabled(!t.promptOpen && !won) // after a win, enter says it
	if t.game.Rules().Daily {
		k.New.SetHelp(k.New.Help().Key, "restart") // the day has one deal
	}
	k.Help.SetEnabled(!t.promptOpen)
	k.Back.SetEnabled(!t.promptOpen)
}

// bound reports whether k is one of b's keys, enabled or not: a disabled
// draw, undo or redo still answers with the reason it cannot be done.
func bound[K fmt.Stringer](k K, b key.Binding) bool {
	s := k.String()
	for _, bk := range b.Keys() {
		if s == bk {
			return true
		}
	}
	return false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// askLine asks the solver, in a command, for its winning line of the
// deal, for the watch screen; the screen opens when the line comes
// (lineReply). The line was not kept from the first answer:
// a session holds a line only while it is watched.
func (t *tableScreen) askLine() tea.Cmd {
	if t.env.solver == nil || t.fetching || !t.canWatch() {
		return nil
	}
	if t.watchLoss() { // lost.go: from where the win was lost
		return nil
	}
	t.fetching = true
	t.sayf(sInfo, "asking the solver for its winning line%s", t.env.gl.ell)
	solver, ctx, token := t.env.solver, t.env.ctx, t.token
	r, d := t.game.Rules(), t.game.Deal()
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, solveTimeout)
		defer cancel()
		msg := lineMsg{token: token}
		start, err := engine.NewGame(r, d)
		if err != nil {
			msg.err = err
			return msg
		}
		v, line, err := solver.Solve(ctx, start)
		switch {
		case err != nil:
			msg.err = err
		case v != engine.Winnable || len(line) == 0:
			msg.err = errNoLine
		default:
			msg.err = wins(start, line)
			if msg.err == nil {
				msg.start, msg.line = start, line
			}
		}
		return msg
	}
}
