package tui

import (
	"context"
	"strconv"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/share"
)

// Race the ghost: the race screen in ghost mode. The player
// plays their own game of a recorded game's deal while the ghost, in the
// race panel, replays the recorded moves at their recorded times. The
// ghost moves on a tea tick (the next tick is set for its next move), never
// from a goroutine. The player's game is stored as practice (Ghosts.Play);
// the results rank the two as a race would (lobby.RankRacers), from the
// whole recorded game: the ghost plays on to its end after the player is
// done, as a race runs until everybody is.

// Messages of a ghost race.
type (
	// ghostAskMsg: race the ghost of ref ("daily" or a game ID), from the
	// daily board or a deep link.
	ghostAskMsg struct{ ref string }
	// ghostLoadedMsg brings the ghost (or why not) and the clock at the
	// start of the race.
	ghostLoadedMsg struct {
		g   Ghost
		err error
		now time.Time
	}
	// ghostTickMsg: time to read the clock; ghostClockMsg brings it.
	ghostTickMsg  struct{}
	ghostClockMsg struct{ now time.Time }
	// ghostPlayedMsg is the reply of a report of the player's game.
	ghostPlayedMsg struct {
		seq  int
		note string
		err  error
	}
)

// IDs of the two racers of a ghost race.
const (
	ghostYou = "you"
	ghostID  = "ghost"
)

// ghostRun is the state of a ghost race beside the race screen's.
type ghostRun struct {
	ghosts Ghosts
	ref    string
	g      Ghost
	base   engine.Record // the deal, without moves
	times  []time.Duration
	game   *engine.Game // the ghost's position
	at     int          // the ghost's moves played
	start  time.Time
	el     time.Duration // race time at the last reading
	// last is the ghost's line in the panel, at its last removal; sent
	// is the seq of the last report of the player's game, sending is set
	// while it is on its way (one at a time: the next waits for its
	// answer, so that a refused one takes back every change after it).
	last    lobby.Racer
	sent    int
	sending bool
	ticking bool
	// title is "ghost of NAME"; the panel calls the ghost "ghost".
	title string
}

// ghostTimes is when each of n moves is played: the recorded times, and
// for a game recorded without them (or with fewer) an even pace over its
// play time.
func ghostTimes(ts []time.Duration, n int, played time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	prev := time.Duration(0)
	for i := range out {
		switch {
		case i < len(ts):
			out[i] = max(ts[i], prev)
		default:
			even := played * time.Duration(i+1) / time.Duration(max(n, 1))
			out[i] = max(even, prev)
		}
		prev = out[i]
	}
	return out
}

// timedRacer is a racer after the moves of base+moves, each at its time:
// cards removed, state, the time of the last removal and of the clear.
func timedRacer(id, name string, base engine.Record, moves []string, times []time.Duration, cards int) lobby.Racer {
	r := lobby.Racer{ID: id, Name: name, Present: true, Cards: cards}
	g, err := engine.Replay(base)
	if err != nil {
		return r
	}
	for i, s := range moves {
		mv, err := engine.ParseMove(s)
		if err != nil || g.Apply(mv) != nil {
			break
		}
		at := time.Duration(0)
		if i < len(times) {
			at = max(times[i], 0)
		}
		if n := g.Removed(); n > r.Removed {
			r.LastRemoval = at
		}
		r.Progress = lobby.ProgressOf(g, 0)
		if g.Status() == engine.Won {
			r.Finish = at
		}
	}
	if r.Pass == 0 {
		r.Progress = lobby.ProgressOf(g, 0)
	}
	return r
}

// ghostOpen opens the race screen in ghost mode and asks for the ghost.
func (m *Model) ghostOpen(ref string) tea.Cmd {
	if !m.showGhost(ref) {
		m.show(screenMenu)
		return nil
	}
	return m.race().ghostLoad()
}

// ghostLink takes `race ghost daily|GAME-ID` at the start of the session;
// Init sends the request (raceInit).
func (m *Model) ghostLink(args []string) {
	if len(args) != 1 {
		m.menu().say(sErr, "race ghost takes daily or a game ID: race ghost daily, race ghost 42")
		return
	}
	m.showGhost(args[0])
}

// showGhost shows the race screen in ghost mode, waiting for the ghost of
// ref; without ghosts on this server the menu says so, and it reports
// false.
func (m *Model) showGhost(ref string) bool {
	if m.env.ghosts == nil {
		m.menu().say(sErr, "this server has no ghosts to race")
		return false
	}
	rs := newRaceScreen(m.env, nil, m.menu().Scheme, m.w, m.h)
	rs.ghost = &ghostRun{ghosts: m.env.ghosts, ref: ref}
	rs.stage = stageJoining
	m.screens[screenRace] = rs
	m.show(screenRace)
	return true
}

// ghostLoad asks for the ghost, then reads the clock: the race starts
// when it comes.
func (rs *raceScreen) ghostLoad() tea.Cmd {
	gr, e := rs.ghost, rs.env
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(e.ctx, raceTimeout)
		defer cancel()
		g, err := gr.ghosts.Ghost(ctx, gr.ref)
		return ghostLoadedMsg{g: g, err: err, now: e.now()}
	}
}

// ghostUpdate is the race screen's update in ghost mode.
func (rs *raceScreen) ghostUpdate(msg tea.Msg) tea.Cmd {
	gr := rs.ghost
	switch msg := msg.(type) {
	case ghostLoadedMsg:
		return rs.ghostStart(msg)
	case ghostTickMsg:
		gr.ticking = false
		return gr.readClock(rs.env)
	case ghostClockMsg:
		return rs.ghostClock(msg.now)
	case ghostPlayedMsg:
		return rs.ghostPlayed(msg)
	case tea.KeyMsg:
		return rs.key(msg) // race_keys.go: as a racer's, but no chat, no rematch
	case tea.MouseMsg:
		if rs.racing() {
			return rs.toTable(msg)
		}
	}
	return nil
}

// ghostStart seats the player's game and the ghost: the race is on.
func (rs *raceScreen) ghostStart(msg ghostLoadedMsg) tea.Cmd {
	gr := rs.ghost
	if msg.err != nil {
		rs.event = raceLeftMsg{st: sErr, text: Reason(msg.err)}
		return nil
	}
	rec := msg.g.Record
	base := engine.Record{Rules: rec.Rules, Deal: rec.Deal, DealText: rec.DealText}
	mine, err := engine.Replay(base)
	if err == nil {
		gr.game, err = engine.Replay(base)
	}
	if err != nil {
		rs.event = raceLeftMsg{st: sErr, text: "that game's deal: " + err.Error()}
		return nil
	}
	r := mine.Rules()
	gr.g, gr.base, gr.start = msg.g, base, msg.now
	gr.times = ghostTimes(msg.g.Times, len(rec.Moves), msg.g.Played)
	name := "ghost of " + clean(msg.g.Name, 16)
	gr.title = name
	gr.last = lobby.Racer{ID: ghostID, Name: "ghost", Present: true, Cards: r.PyramidSize(), Progress: lobby.ProgressOf(gr.game, 0)}
	you := clean(rs.env.player.Name, 16)
	if you == "" || rs.env.player.Guest {
		you = "you"
	}
	t := newTable(rs.env, rs.scheme, mine, -3000, "", 0, rs.w, rs.h)
	t.since = msg.now // the table's clock is the race's: move times from its start
	t.undoLimit = "a race"
	t.title = name + rs.env.gl.sep + titleOf(r, mine.Deal(), msg.g.Daily, rs.env.gl.sep)
	rs.table, rs.stage, rs.you = t, stageRoom, ghostYou
	rs.snap = lobby.Snapshot{Phase: lobby.PhaseRacing, RulesID: r.ID(), RulesTitle: r.Title(), Deal: rec.Deal, Cards: r.PyramidSize()}
	rs.racers = []lobby.Racer{
		{ID: ghostYou, Name: you, Present: true, Cards: r.PyramidSize(), Progress: lobby.ProgressOf(mine, 0)},
		gr.last,
	}
	rs.say(sOK, "go! the "+name+" plays game "+clean(msg.g.GameID, 20)+" at its own pace (practice: no result, no rating)")
	return rs.ghostTick()
}

// ghostTick sets the next tick: at the ghost's next move, and at least
// once a second for the panel's clock.
func (rs *raceScreen) ghostTick() tea.Cmd {
	gr := rs.ghost
	if gr.ticking || rs.snap.Phase != lobby.PhaseRacing {
		return nil
	}
	d := time.Second - gr.el%time.Second
	if gr.at < len(gr.times) {
		d = min(d, gr.times[gr.at]-gr.el)
	}
	gr.ticking = true
	return rs.env.after(max(d, 10*time.Millisecond), ghostTickMsg{})
}

// readClock is the command that reads the clock for ghostClock.
func (gr *ghostRun) readClock(e *env) tea.Cmd {
	now := e.now
	return func() tea.Msg { return ghostClockMsg{now: now()} }
}

// ghostClock takes a reading of the clock: the ghost plays the moves whose
// time has come, the player's new moves get their time and are stored,
// and once the server has the player's last move of a game that is over
// the results come.
func (rs *raceScreen) ghostClock(now time.Time) tea.Cmd {
	gr := rs.ghost
	if rs.table == nil || rs.snap.Phase != lobby.PhaseRacing {
		return nil
	}
	if el := now.Sub(gr.start); el > gr.el {
		gr.el = el
	}
	moves := gr.g.Record.Moves
	for gr.at < len(moves) && gr.times[gr.at] <= gr.el {
		mv, err := engine.ParseMove(moves[gr.at])
		if err != nil || gr.game.Apply(mv) != nil {
			gr.times = gr.times[:gr.at] // the rest does not replay
			moves = moves[:gr.at]
			break
		}
		gr.at++
	}
	gr.last = timedRacer(ghostID, gr.last.Name, gr.base, moves[:gr.at], gr.times, rs.snap.Cards)
	if gr.at == len(moves) && gr.last.State == lobby.RacerPlaying {
		gr.last.State = lobby.RacerLeft // the recorded game stopped there
	}
	t := rs.table
	t.movesTimed(now) // movetimes.go: the player's moves since the last reading
	rec := t.game.Record()
	rs.racers[0] = timedRacer(ghostYou, rs.racers[0].Name, gr.base, rec.Moves, t.times, rs.snap.Cards)
	rs.racers[1] = gr.last
	var cmds []tea.Cmd
	if rs.seq > gr.sent && !gr.sending {
		cmds = append(cmds, rs.ghostReport(rec, sentTimes(t.times, gr.el)))
	}
	if t.d.status != engine.Playing {
		if !gr.sending && gr.sent == rs.seq {
			rs.ghostResults(moves)
		}
		return tea.Batch(cmds...)
	}
	return tea.Batch(append(cmds, rs.ghostTick())...)
}

// ghostReport stores the player's game (practice).
func (rs *raceScreen) ghostReport(rec engine.Record, times []time.Duration) tea.Cmd {
	gr := rs.ghost
	gr.sent, gr.sending = rs.seq, true
	seq, ghosts, ctx := rs.seq, gr.ghosts, rs.env.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), raceTimeout)
		defer cancel()
		note, err := ghosts.Play(ctx, seq, rec, times)
		return ghostPlayedMsg{seq: seq, note: note, err: err}
	}
}

// ghostPlayed takes the answer to a report of the player's game: the held
// board goes once the server has every change, a report it could not
// store takes the board back to the held one (hold.go), and a change
// made meanwhile, or the end of the game, is taken up at a reading of
// the clock.
func (rs *raceScreen) ghostPlayed(msg ghostPlayedMsg) tea.Cmd {
	gr := rs.ghost
	gr.sending = false
	if msg.err != nil {
		gr.sent = rs.seq // the changes after the held position go with it
		rs.rollBack(msg.err)
		return nil
	}
	if msg.note != "" {
		rs.say(sWarn, clean(msg.note, 300))
	}
	if msg.seq == rs.seq {
		rs.held.release(rs.table)
	}
	if rs.seq > gr.sent || rs.table != nil && rs.table.d.status != engine.Playing {
		return gr.readClock(rs.env)
	}
	return nil
}

// ghostResults ends the race: the player against the whole recorded game.
func (rs *raceScreen) ghostResults(moves []string) {
	gr := rs.ghost
	end := timedRacer(ghostID, gr.last.Name, gr.base, moves, gr.times, rs.snap.Cards)
	if end.State == lobby.RacerPlaying {
		end.State = lobby.RacerLeft
	}
	rs.racers[1] = end
	rs.snap.Phase = lobby.PhaseResults
	rs.snap.Results = lobby.RankRacers(rs.racers)
	rs.inputOpen = false
	rs.say(sInfo, "the race is over")
}

// ghostLeave tells the server the race ends before the player's game
// does; the reports on their way go first (one session's calls are
// ordered by the server's lock).
func (rs *raceScreen) ghostLeave() tea.Cmd {
	if rs.table == nil || rs.table.d.status != engine.Playing || rs.seq == 0 {
		return nil
	}
	ghosts, ctx := rs.ghost.ghosts, rs.env.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), raceTimeout)
		defer cancel()
		_ = ghosts.Leave(ctx) // a game left unfinished goes with the next game of its rules anyway
		return nil
	}
}

// ghostLine is the panel's first line: whose ghost, the rules, the time.
func (rs *raceScreen) ghostLine() string {
	gl := rs.env.gl
	line := rs.ghost.title + gl.sep + rs.snap.RulesTitle + gl.sep + clock(rs.ghost.el)
	if d := rs.ghost.g.Daily; d != "" {
		line += gl.sep + "daily of " + d
	}
	return line
}

// viewGhostResults draws the ghost race's results.
func (rs *raceScreen) viewGhostResults() string {
	gl := rs.env.gl
	s := &rs.snap
	body := []string{""}
	for _, p := range s.Results {
		if p.ID == ghostID {
			p.Name = rs.ghost.title
		}
		what := strconv.Itoa(p.Removed) + "/" + strconv.Itoa(s.Cards)
		switch {
		case p.Cleared:
			what = "cleared in " + share.RaceTime(p.Time)
		case p.Removed > 0:
			what += " at " + share.RaceTime(p.Time)
		}
		line := "  " + padLeft(strconv.Itoa(p.Place), 2) + ". " + padRight(cut(clean(p.Name, 26), 26, gl.ell), 27) +
			padRight(what, 22) + strconv.Itoa(p.Moves) + plural(p.Moves, " move", " moves")
		if p.ID == rs.you {
			line = rs.env.pal.style(sBold, line)
		}
		body = append(body, line)
	}
	verdict := "  You lost to the ghost."
	if len(s.Results) > 1 {
		switch {
		case s.Results[0].Place == s.Results[1].Place:
			verdict = "  A tie with the ghost."
		case s.Results[0].ID == ghostYou:
			verdict = "  You beat the ghost!"
		}
	}
	body = append(body, "", verdict, "  A ghost race is practice: it records no result and no rating.")
	km := rs.keys
	sub := s.RulesTitle + gl.sep + "deal " + strconv.FormatUint(s.Deal, 10) + gl.sep + "game " + clean(rs.ghost.g.GameID, 20)
	return drawPage(rs.env, rs.w, rs.h, rs.ghost.title+gl.sep+"results", sub, body, rs.msg, rs.msgSt, rs.bar,
		[]key.Binding{km.Leave, km.Help})
}
