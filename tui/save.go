package tui

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
)

// The save queue. A stored game is saved after every change, one call
// to Games.Save in flight at a time (so the store sees a session's saves
// in order), and no position reaches the player before the store has
// it: while a save of the game on the table is queued or in flight, the
// table is held (hold.go) at the position before the first move the
// store has not acknowledged. A move whose redraw the player saw
// survives a crash of the server; a move whose save fails goes: the
// table goes back to the held position and says so. On shutdown the
// session waits for the queue until the server's deadline and tells the
// player exactly what was saved.

// savedMsg is the store's answer to a save.
type savedMsg struct {
	token int
	id    string
	err   error
	// res is what the save recorded, when the store says (Recorder).
	res *SaveResult
}

// pendingSave is a save waiting for its turn.
type pendingSave struct {
	token int
	game  SavedGame
	// played is the time played before since; the command adds the time
	// from since to its clock reading.
	played time.Duration
	since  time.Time
	// times is the table's move times (movetimes.go), pending ones
	// included: the command gives those its reading.
	times []time.Duration
}

// saveQueue is the model's saving state.
type saveQueue struct {
	ids map[int]string // stored game ID by game token
	// replace is, by game token, the game in progress a new game's
	// first save names as the one it replaces (SavedGame.Replace).
	replace  map[int]replaceRef
	inFlight bool
	current  pendingSave // the save in flight
	queue    []pendingSave
	saved    int // table version last queued for saving
	// held is the table as it was before the first move the store has
	// not acknowledged yet.
	held heldTable
	// acked is the number of moves of the table's game the store last
	// acknowledged, -1 before its first save.
	acked int
	// failed says which moves of the table's game a failed save took
	// back, for the farewell; empty once a save of it succeeds.
	failed string
}

// seated resets the queue's view of the table for a new game: token is
// its token, id its stored ID (empty for a new game), version the
// table's version and moves the number of moves it was stored with.
func (q *saveQueue) seated(token int, id string, version, moves int) {
	q.held.drop() // it showed the game that leaves the table
	q.saved = version
	q.acked = -1
	q.failed = ""
	if id != "" {
		q.ids[token] = id
		q.acked = moves // as stored
	}
}

// queueChange queues a save when the message changed the game on the
// table, and holds the position before the change until it is stored.
func (m *Model) queueChange() tea.Cmd {
	t := m.table()
	if t == nil {
		return nil
	}
	changed := m.playing && t.version != m.saves.saved
	m.saves.held.take(t, changed && t.token == m.token && m.env.persist())
	if !changed {
		return nil
	}
	m.saves.saved = t.version
	// A lost position is stored as playing: the player may still undo.
	// It becomes lost for good when the player deals anew.
	st := StatusOf(t.d.status)
	if st == StatusLost {
		st = StatusPlaying
	}
	return m.queueSave(st)
}

// queueSave queues a save of the table's game with a status and returns
// the command that sends it, if nothing else is in flight. Saves of one
// game waiting in the queue are merged: only the newest version matters.
func (m *Model) queueSave(status string) tea.Cmd {
	if !m.env.persist() || !m.playing {
		return nil
	}
	t := m.table()
	ps := pendingSave{
		token:  m.token,
		game:   m.tableGame(status),
		played: t.played,
		since:  t.since,
		times:  slices.Clone(t.times),
	}
	if t.wonKnown {
		ps.played, ps.since = t.wonIn, time.Time{}
	}
	q := &m.saves
	if n := len(q.queue); n > 0 && q.queue[n-1].token == ps.token {
		q.queue[n-1] = ps
	} else {
		q.queue = append(q.queue, ps)
	}
	return m.nextSave()
}

// tableGame is the game on the table as it is stored, with a status.
func (m *Model) tableGame(status string) SavedGame {
	t := m.table()
	g := t.game
	return SavedGame{
		Record:  g.Record(),
		Status:  status,
		Daily:   t.day,
		Removed: g.Removed(),
		Started: m.started,
		Hints:   t.hints,
		Undos:   t.undos,
		Watched: t.watched,
		Chosen:  t.chosen,
	}
}

// nextSave sends the first queued save when none is in flight.
func (m *Model) nextSave() tea.Cmd {
	q := &m.saves
	if q.inFlight || len(q.queue) == 0 {
		return nil
	}
	ps := q.queue[0]
	q.queue = append(q.queue[:0], q.queue[1:]...)
	q.inFlight = true
	if ps.game.ID == "" {
		ps.game.ID = q.ids[ps.token]
	}
	if ps.game.ID == "" {
		// The first save of a new game names the game it replaces, by
		// now stored (saves go in order) if it was left in this session.
		if r := q.replace[ps.token]; r.id != "" {
			ps.game.Replace = r.id
		} else if r.token != 0 {
			ps.game.Replace = q.ids[r.token]
		}
	}
	q.current = ps
	games, player, e := m.env.games, m.env.player.ID, m.env
	return func() tea.Msg {
		now := e.now()
		sg := ps.game
		sg.Saved = now
		if sg.Started.IsZero() {
			sg.Started = now
		}
		sg.Played = ps.played
		if !ps.since.IsZero() {
			sg.Played += now.Sub(ps.since)
		}
		sg.MoveTimes = sentTimes(ps.times, sg.Played)
		// Not cancelled with the session: a move typed just before the
		// connection dropped is still kept. A shutdown whose time is up
		// stops it (see shutdownDeadline).
		ctx, cancel := context.WithTimeout(context.WithoutCancel(e.ctx), saveTimeout)
		defer cancel()
		defer context.AfterFunc(e.saveStop, cancel)()
		if rec, ok := games.(Recorder); ok {
			res, err := rec.SaveRecord(ctx, player, sg)
			if err != nil {
				return savedMsg{token: ps.token, err: err}
			}
			return savedMsg{token: ps.token, id: res.ID, res: &res}
		}
		id, err := games.Save(ctx, player, sg)
		return savedMsg{token: ps.token, id: id, err: err}
	}
}

// savedReply takes the store's answer and sends the next save.
//
// The held table goes once the store has acknowledged every move made
// so far, that is when no save of the game is left in the queue. A
// failed save of the game on the table puts the held table back: the
// screen returns to the last position the store has, so that what the
// player saw is always what is stored.
func (m *Model) savedReply(msg savedMsg) tea.Cmd {
	q := &m.saves
	q.inFlight = false
	done := q.current
	q.current = pendingSave{}
	if errors.Is(msg.err, ErrTakenOver) {
		q.dropSaves(msg.token)
		m.forgetUnfinished(q.ids[msg.token])
		if msg.token == m.token && m.playing {
			reason := ""
			if errors.Is(msg.err, ErrAbandonedElsewhere) {
				reason = ErrAbandonedElsewhere.Error()
			}
			m.dropGame(reason)
		}
		return m.afterSave()
	}
	if errors.Is(msg.err, ErrStale) && msg.token == m.token && m.playing && q.ids[msg.token] != "" {
		// The stored game moved on without this session (it was played
		// elsewhere): what the screen shows is not stored, and the
		// stored game is what comes back.
		return tea.Batch(m.reloadStored(msg.token), m.afterSave())
	}
	if ue := unfinishedOf(msg.err); ue != nil && msg.token == m.token && m.playing && q.ids[msg.token] == "" {
		// Another session has a game of these rules in progress: the
		// player decides. The table keeps showing the stored position.
		q.dropSaves(msg.token)
		m.askReplace(ue.Game)
		return m.afterSave()
	}
	if msg.err != nil {
		m.saveFailed(msg)
		return m.afterSave()
	}
	if msg.id != "" {
		q.ids[msg.token] = msg.id
		delete(q.replace, msg.token)
	}
	if msg.token == m.token {
		if t := m.table(); m.playing && msg.res != nil {
			t.recorded(*msg.res)
			m.dailyRecorded(t, *msg.res)
		}
		q.acked = len(done.game.Record.Moves)
		q.failed = ""
		if q.held.holds(msg.token) && !q.queued(msg.token) {
			q.held.release(m.table())
		}
	}
	return m.afterSave()
}

// saveFailed tells the player that a save failed. For the game on the
// table the screen goes back to the held position, the last one stored:
// the moves after it are dropped, with the saves still queued for them.
func (m *Model) saveFailed(msg savedMsg) {
	q := &m.saves
	if msg.token != m.token || !m.playing || !q.held.holds(msg.token) {
		text := notSaved(msg.err)
		if msg.token != m.token {
			text = clean("the game you left was not saved: "+refusal(msg.err), 200)
		}
		if t := m.table(); t != nil && msg.token == m.token && m.cur == screenTable {
			t.say(sWarn, text)
		} else {
			m.menu().say(sWarn, text)
		}
		return
	}
	q.dropSaves(msg.token)
	// What the screen never showed, for the farewell: the live game's
	// moves past the held position (or, after undos, just a change).
	// A save that timed out or was stopped may still be written by the
	// store after all: its moves are not confirmed, rather than not
	// saved.
	verdict := ") could not be saved: "
	if errors.Is(msg.err, context.Canceled) || errors.Is(msg.err, context.DeadlineExceeded) {
		verdict = ") is not confirmed by the store and may be lost: "
	}
	live := m.table().game.Record().Moves
	lost := len(live) - q.held.shown.game.MovesMade()
	if lost > 0 {
		if lost > 1 {
			verdict = strings.Replace(verdict, ") is", ") are", 1)
		}
		q.failed = plural(lost, "your last move (", "your last "+strconv.Itoa(lost)+" moves (") +
			strings.Join(live[len(live)-lost:], " ") + verdict + refusal(msg.err)
	} else {
		q.failed = "your last change" + verdict[1:] + refusal(msg.err)
	}
	back, text := q.held.rollBack(m.table(), m.menu().Scheme, msg.err)
	back.say(sWarn, text)
	m.screens[screenTable] = back
	q.saved = back.version
}

// afterSave sends the next save; a quitting session ends once none is
// left (endIfDone).
func (m *Model) afterSave() tea.Cmd { return m.nextSave() }

// queued reports whether a save of the game token waits in the queue.
func (q *saveQueue) queued(token int) bool {
	for _, ps := range q.queue {
		if ps.token == token {
			return true
		}
	}
	return false
}

// pendingSaves reports whether a save of the table's queue, or a report
// of a race game (race.go, ghost.go), is queued or in flight: a session
// that quits waits for them.
func (m *Model) pendingSaves() bool {
	rs := m.race()
	return m.saves.pending() || rs != nil && rs.reporting()
}

// pending reports whether any save is queued or in flight.
func (q *saveQueue) pending() bool { return q.inFlight || len(q.queue) > 0 }

// dropSaves forgets the queued saves of a game.
func (q *saveQueue) dropSaves(token int) {
	kept := q.queue[:0]
	for _, ps := range q.queue {
		if ps.token != token {
			kept = append(kept, ps)
		}
	}
	q.queue = kept
}

// reloadStored takes the game on the table off it without saving it and
// fetches it as stored (resumeGame), after a save refused because the
// stored game is newer than the table's.
func (m *Model) reloadStored(token int) tea.Cmd {
	q := &m.saves
	id := q.ids[token]
	q.dropSaves(token)
	q.held.drop()
	q.saved = 0
	m.playing = false
	m.resume = &SavedGame{ID: id}
	m.reloaded = true
	return m.resumeGame()
}

// dropGame takes the game off the table without saving it: another
// session of the player took it, and reason says what became of it
// (empty: that session goes on with it).
func (m *Model) dropGame(reason string) {
	m.saves.dropSaves(m.token)
	m.saves.held.drop()
	m.playing = false
	m.saves.saved = 0
	m.show(screenMenu)
	m.setContinue()
	if reason == "" {
		reason = "your game continues in another session"
	}
	m.menu().say(sWarn, clean(reason, 200))
}

// quit ends the session once every queued save is stored: the session's
// context ends with the program, and a save cut off by it would lose the
// player's last moves. Keys still work meanwhile; their moves are saved
// before the end too.
func (m *Model) quit() tea.Cmd {
	if !m.pendingSaves() {
		return m.end()
	}
	if !m.quitting {
		m.quitting = true
		m.sayAll(sInfo, "saving your game"+m.env.gl.ell)
	}
	return nil
}

// endIfDone ends a quitting session once every save of the table and
// every report of a race game is in.
func (m *Model) endIfDone() tea.Cmd {
	if !m.quitting || m.ended || m.pendingSaves() {
		return nil
	}
	return m.end()
}

// end is the session's last command. After a shutdown, or when a save
// failed, a farewell is drawn outside the alternate screen first, so
// that what the player must know stays on their terminal once the
// connection closes.
func (m *Model) end() tea.Cmd {
	m.ended = true
	if m.ending == nil && (m.saves.failed == "" || !m.playing) {
		return tea.Quit
	}
	if m.ending == nil {
		m.ending = &ending{}
	}
	m.ending.farewell = m.farewell()
	return tea.Sequence(tea.ExitAltScreen, tea.Quit)
}

// ending is the end of the session: a shutdown in progress, or the
// farewell of a session that quits with a failed save.
type ending struct {
	// text says why the session ends (ShutdownMsg.Text), or is empty.
	text string
	// farewell is the last frame, drawn outside the alternate screen
	// once the session quits, so that it stays on the player's terminal.
	farewell string
	// stopped is set once the save in flight was told to stop.
	stopped bool
}

// endingMsg: the time a shutdown may wait for the saves is up (final:
// the time to hear back from a stopped save is up too).
type endingMsg struct{ final bool }

// shutdownWait is how long a session waits for its saves after
// ShutdownMsg when the message sets no time, and stopWait how long it
// then waits for the answer of the save it stopped: together within the
// server's default grace (10 s, less the second it keeps to close what
// is left).
const (
	shutdownWait = 6 * time.Second
	stopWait     = time.Second
)

// shutdown ends the session: at once when every save is stored, else
// once they are or when the time is up, whichever comes first. The
// player is told why meanwhile, and in the farewell what was saved.
func (m *Model) shutdown(msg ShutdownMsg) tea.Cmd {
	if m.ending != nil {
		return nil
	}
	text := clean(msg.Text, 200)
	if text == "" {
		text = "the server is shutting down"
	}
	m.ending = &ending{text: text}
	m.quitting = true
	if !m.pendingSaves() {
		return m.end()
	}
	m.sayAll(sWarn, text+m.env.gl.sep+"saving your game"+m.env.gl.ell)
	wait := msg.Wait
	if wait <= 0 {
		wait = shutdownWait
	}
	return m.env.after(wait, endingMsg{})
}

// ExitStatus is the session's exit status once the program ended: 1 when
// the server ended it (ShutdownMsg: a ban, a kick, an unlinked key, a
// shutdown), 0 when the player quit.
func (m *Model) ExitStatus() int {
	if m.ending != nil {
		return 1
	}
	return 0
}

// shutdownDeadline ends a shutdown whose saves did not all come back in
// time. The save in flight is stopped first, so that its answer (a
// failure, most likely) says for sure what the store has; if even that
// answer does not come, the farewell says which moves the store has not
// confirmed.
func (m *Model) shutdownDeadline(msg endingMsg) tea.Cmd {
	if m.ending == nil || m.ending.farewell != "" {
		return nil
	}
	if !msg.final && m.saves.inFlight {
		m.ending.stopped = true
		stop := m.env.stopSaves
		return tea.Batch(func() tea.Msg { stop(); return nil }, m.env.after(stopWait, endingMsg{final: true}))
	}
	return m.end()
}

// farewell is the last frame of a session that ends: why (after a
// shutdown), and exactly what of the player's game is stored.
func (m *Model) farewell() string {
	e := m.ending
	why := e.text
	if why != "" {
		why = string(unicodeUpper(why)) + "."
	}
	note := m.savedNote()
	var b []byte
	b = append(b, '\n')
	for _, line := range append(wrapWords(why, max(20, m.w-2)), wrapWords(note, max(20, m.w-2))...) {
		if line != "" {
			b = append(b, line...)
			b = append(b, '\n')
		}
	}
	return string(b)
}

// savedNote says what the store has of the game on the table: all of it,
// or up to which move.
func (m *Model) savedNote() string {
	q := &m.saves
	others := q.inFlight && q.current.token != m.token
	for _, ps := range q.queue {
		others = others || ps.token != m.token
	}
	var left string
	if q.failed != "" && m.playing {
		left = " " + string(unicodeUpper(q.failed)) + "."
	}
	if others {
		left += " The game you left before it is not confirmed by the store."
	}
	t := m.table()
	if !m.playing || !m.env.persist() {
		return strings.TrimSpace(left)
	}
	moves := t.game.Moves()
	n := len(moves)
	unsaved := q.inFlight && q.current.token == m.token || q.queued(m.token)
	switch {
	case !unsaved && n == 0:
		return strings.TrimSpace(left)
	case !unsaved:
		return "Your game is saved (" + t.shownTitle() + ", " + strconv.Itoa(n) + plural(n, " move", " moves") + ")." + left
	case q.acked < 0:
		return "Your game is not confirmed by the store: its " + strconv.Itoa(n) + plural(n, " move", " moves") + " may be lost." + left
	case n > q.acked:
		list := make([]string, 0, n-q.acked)
		for _, mv := range moves[q.acked:] {
			list = append(list, mv.String())
		}
		what := "move " + strconv.Itoa(q.acked+1) + " (" + list[0] + ") is"
		if len(list) > 1 {
			what = "moves " + strconv.Itoa(q.acked+1) + "–" + strconv.Itoa(n) + " (" + strings.Join(list, " ") + ") are"
		}
		return "Your game is saved up to move " + strconv.Itoa(q.acked) + ": " + what + " not confirmed by the store and may be lost." + left
	case n < q.acked:
		return "Your game is saved at move " + strconv.Itoa(q.acked) + ": the undo back to move " + strconv.Itoa(n) + " is not confirmed by the store." + left
	}
	return "Your game is saved at move " + strconv.Itoa(q.acked) + ": your last change is not confirmed by the store." + left
}

// unicodeUpper returns s with its first letter in upper case.
func unicodeUpper(s string) []rune {
	r := []rune(s)
	if len(r) > 0 {
		r[0] = unicode.ToUpper(r[0])
	}
	return r
}
