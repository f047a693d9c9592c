package tui

import (
	"strconv"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"pyramid/arena"
	"pyramid/engine"
	"pyramid/lobby"
)

// An arena's race on the race screen: the room is the server's (it seats
// the racers and starts the race), so the screen has no ready, start or
// rematch; the header names the arena and the player's points; before
// the start, b goes berserk (no undo in this race, a bonus point on a
// clear); after the results, the player goes back to the arena screen,
// by a key or after arenaResultsStay.

// arenaRace is what the race screen keeps of an arena race.
type arenaRace struct {
	// points are the player's arena points as the arena screen last
	// knew them, for the header; hasPoints is false until it did.
	points    int
	hasPoints bool
	// berserkRound is the round (plus one) the server took the player's
	// berserk for, 0 for none: the room's snapshot marks it too
	// (lobby.Racer.Berserk), a moment later.
	berserkRound int
	// asking is set while the berserk is on its way.
	asking bool
	// nextRound is the round (plus one) whose results wait to go back to
	// the arena.
	nextRound int
}

// arenaResultsStay is how long an arena race's results show before the
// player goes back to the arena screen (a key goes at once; a new
// pairing goes straight to its race).
const arenaResultsStay = 8 * time.Second

// berserkWhat names the berserk call in its raceDoneMsg.
const berserkWhat = "berserk"

// arenaNextMsg: the results of an arena race showed long enough.
type arenaNextMsg struct {
	code  string
	round int
}

func (arenaNextMsg) to() screenID { return screenRace }

// forfeitNote is what a racer reads back on the arena screen when the
// arena took them out of a race they made no move in (lobby.Forfeited).
var forfeitNote = "no move in the race's first " + secs(arena.FirstMoveTime) + ": you are out of it (as left) and paused"

// berserkMark ends the name of a berserk racer in the panel: ASCII, for
// a mark of one cell in every terminal (no name has it).
const berserkMark = "!"

// berserkKey is the key that goes berserk before an arena race starts.
var berserkKey = key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "berserk (no undo, +1 on a clear)"))

// inArenaRoom reports whether the room is an arena's.
func (rs *raceScreen) inArenaRoom() bool { return rs.snap.Arena.ID != 0 && rs.ghost == nil }

// berserk reports whether the player went berserk in this race.
func (rs *raceScreen) berserk() bool {
	return rs.mine().Berserk || rs.ar.berserkRound == rs.snap.Round+1
}

// arenaTitle puts the arena's name and the player's points before rest.
func (rs *raceScreen) arenaTitle(rest string) string {
	gl := rs.env.gl
	title := clean(rs.snap.Arena.Name, arena.MaxNameLen)
	if rs.ar.hasPoints {
		title += gl.sep + strconv.Itoa(rs.ar.points) + plural(rs.ar.points, " point", " points")
	}
	return title + gl.sep + rest
}

// setArenaPoints shows the player's new arena points in the header.
func (rs *raceScreen) setArenaPoints(points int) {
	rs.ar.points, rs.ar.hasPoints = points, true
	if t := rs.table; t != nil && rs.inArenaRoom() && !rs.watching {
		r := t.game.Rules()
		title, hidden := rs.raceTitles(r, t.game.Deal())
		t.title = title
		t.hideDeal(!rs.snap.Rated, hidden)
	}
}

// pageTitle is the title of the waiting room's and the results' pages.
func (rs *raceScreen) pageTitle(title string) string {
	if rs.inArenaRoom() {
		return rs.arenaTitle(title)
	}
	return title
}

// raceTitles are the board's header titles of the race's deal: with its
// number, and while it is hidden.
func (rs *raceScreen) raceTitles(r engine.Rules, d engine.Deal) (title, hidden string) {
	gl := rs.env.gl
	if rs.inArenaRoom() {
		return rs.arenaTitle(titleOf(r, d, "", gl.sep)), rs.arenaTitle(hiddenTitleOf(r, "", gl.sep))
	}
	return "room " + rs.snap.Code + gl.sep + titleOf(r, d, "", gl.sep), "room " + rs.snap.Code + gl.sep + hiddenTitleOf(r, "", gl.sep)
}

// askBerserk goes berserk, before the race starts.
func (rs *raceScreen) askBerserk() tea.Cmd {
	switch {
	case rs.berserk():
		rs.say(sInfo, "you went berserk already: no undo in this race, +1 on a clear")
		return nil
	case rs.snap.Phase != lobby.PhaseWaiting && rs.snap.Phase != lobby.PhaseCountdown:
		rs.say(sWarn, "berserk is before the race starts")
		return nil
	case rs.ar.asking:
		return nil
	}
	ars := rs.env.arenas
	if ars == nil {
		return nil
	}
	rs.ar.asking = true
	code, round := rs.snap.Code, rs.snap.Round
	return func() tea.Msg {
		return raceDoneMsg{what: berserkWhat, round: round, err: ars.Berserk(code)}
	}
}

// berserkDone takes the answer of a berserk.
func (rs *raceScreen) berserkDone(msg raceDoneMsg) {
	rs.ar.asking = false
	if msg.err != nil {
		rs.say(sErr, clean("berserk: "+Reason(msg.err), 200))
		return
	}
	rs.ar.berserkRound = msg.round + 1
	rs.say(sWarn, "berserk: no undo in this race; a clear scores a point more")
}

// arenaWaitingKey handles a key before an arena race starts: berserk
// and copying the room's code; the server starts the race.
func (rs *raceScreen) arenaWaitingKey(k tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(k, berserkKey):
		return rs.askBerserk()
	case key.Matches(k, rs.keys.Ready), key.Matches(k, rs.keys.Start):
		rs.say(sInfo, "the arena starts its races: nobody needs to be ready")
	case key.Matches(k, copyKeys):
		rs.say(sInfo, "room code "+copied)
		return copyText(rs.snap.Code)
	}
	return nil
}

// armNext starts the wait of the results before the arena screen comes
// back, once per race.
func (rs *raceScreen) armNext() tea.Cmd {
	if !rs.inArenaRoom() || rs.watching || rs.mode() != modeResults || rs.ar.nextRound == rs.snap.Round+1 {
		return nil
	}
	rs.ar.nextRound = rs.snap.Round + 1
	msg := arenaNextMsg{code: rs.snap.Code, round: rs.snap.Round}
	return rs.env.after(arenaResultsStay, msg)
}

// arenaNext takes the end of the results' wait: back to the arena.
func (rs *raceScreen) arenaNext(msg arenaNextMsg) tea.Cmd {
	if msg.code != rs.snap.Code || msg.round != rs.snap.Round || rs.mode() != modeResults {
		return nil
	}
	return rs.leave()
}

// viewArenaWaiting draws an arena race before it starts: the racers,
// the countdown and the berserk.
func (rs *raceScreen) viewArenaWaiting() string {
	gl, pal, s := rs.env.gl, rs.env.pal, &rs.snap
	body := []string{""}
	nameW := 1
	for _, r := range rs.racers {
		nameW = max(nameW, min(cells(clean(r.Name, 16)), 16))
	}
	for _, r := range rs.racers {
		line := "   " + padRight(clean(r.Name, 16), nameW+1)
		switch {
		case !r.Present:
			line += "away"
		case r.Berserk:
			line += "berserk"
		}
		if r.ID == rs.you {
			line += "  (you)"
		}
		body = append(body, line)
	}
	body = append(body, "")
	if s.Phase == lobby.PhaseCountdown {
		body = append(body, "   "+pal.style(sWarn, "The race starts in "+strconv.Itoa(rs.countdownShown())+gl.ell))
	} else {
		body = append(body, "   The arena starts the race in a moment.")
	}
	switch {
	case rs.watching:
	case rs.berserk():
		// Broken before it is styled: the style's codes are no words.
		for _, l := range wrapIndented([]string{"   You went berserk: no undo in this race, a point more on a clear."}, rs.w) {
			body = append(body, pal.style(sWarn, l))
		}
	default:
		body = append(body, "   b: berserk: give up undo in this race for a point more if you clear it.")
	}
	body = append(wrapIndented(body, rs.w), "")
	body = append(body, rs.chatBody(rs.h-4-len(body))...)
	sub := dealLabel(s.Deal, s.DealShown()) + gl.sep + "the same deal for everybody" + gl.sep + "no hints" + gl.sep + "undo: removals only"
	bz := berserkKey
	bz.SetEnabled(!rs.watching && !rs.berserk())
	keys := []key.Binding{bz, rs.keys.Chat, rs.keys.Leave, rs.keys.Help}
	if rs.watching {
		keys = []key.Binding{rs.keys.Chat, rs.keys.Leave, rs.keys.Help}
	}
	return drawPage(rs.env, rs.w, rs.h, rs.pageTitle(rs.roomLine()), sub, body, rs.msg, rs.msgSt, rs.bar, keys)
}

// arenaBack is the root's part when the player leaves an arena race (or
// a race watched from the arena): back to the arena screen, which asks
// for the arena anew.
func (m *Model) arenaBack(msg raceLeftMsg) tea.Cmd {
	if rs := m.race(); rs != nil && rs.mode() == modeResults {
		m.menu().leftRoom(rs.snap.Code)
	}
	cmd := m.showArena()
	if msg.text != "" {
		m.arena().say(msg.st, clean(msg.text, 200))
	}
	return cmd
}
