package tui

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"

	"pyramid/arena"
	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/share"
)

// view draws the arena screen: the list, the arena or its results.
func (a *arenaScreen) view() string {
	switch a.stage {
	case arenaJoining:
		return centered(a.w, a.h, "Joining the arena"+a.env.gl.ell, "q: back to the menu")
	case arenaIn:
		return a.viewArena()
	case arenaOver:
		return a.viewOver()
	}
	return a.viewList()
}

// rulesTitle is the title of a rule set by its ID, or the ID cleaned.
func rulesTitle(id string) string {
	if r, err := engine.ParseRules(id); err == nil {
		return r.Title()
	}
	return clean(id, 20)
}

// arenaSpan says a duration as the arena screens do: "40 s", "25 min",
// "1 h", "1 h 30 min"; minutes are rounded up, so that "in 1 min" is
// never late.
func arenaSpan(d time.Duration) string {
	if d < time.Minute {
		return strconv.Itoa(int(max(0, (d+time.Second-1)/time.Second))) + " s"
	}
	m := int((d + time.Minute - 1) / time.Minute)
	switch {
	case m < 60:
		return strconv.Itoa(m) + " min"
	case m%60 == 0:
		return strconv.Itoa(m/60) + " h"
	}
	return strconv.Itoa(m/60) + " h " + strconv.Itoa(m%60) + " min"
}

// secs says a short wait in whole seconds, rounded up: "3 s".
func secs(d time.Duration) string {
	return strconv.Itoa(int(max(0, (d+time.Second-1)/time.Second))) + " s"
}

// championMark follows the name of a player who won an arena in the last
// week, on the boards: a crown, or "W" in ASCII.
func championMark(gl *glyphs) string {
	if gl.unicode {
		return "♛"
	}
	return "W"
}

// streakMark is the mark of a player on a streak (their next game counts
// double), two cells wide: a flame, or "* " in ASCII.
func streakMark(gl *glyphs) string {
	if gl.unicode {
		return "🔥"
	}
	return "* "
}

// when says where an arena of the list stands at now: how long it has
// left, or when it starts.
func (a *arenaScreen) when(ev arena.Event) string {
	switch ev.PhaseAt(a.listNow) {
	case arena.Upcoming:
		return "in " + arenaSpan(ev.Start.Sub(a.listNow)) + ", " + ev.Start.UTC().Format("15:04") + " UTC"
	case arena.Running:
		return "running" + a.env.gl.sep + clock(ev.End().Sub(a.listNow)) + " left"
	case arena.Cancelled:
		return "cancelled"
	}
	return "over"
}

// viewList draws the list of arenas.
func (a *arenaScreen) viewList() string {
	gl, pal := a.env.gl, a.env.pal
	wide := a.w >= 72
	var body []string
	body = append(body, "")
	nameW := 20
	if !wide {
		nameW = max(8, min(20, a.w-30))
	}
	head := "    " + padRight("arena", nameW) + "  "
	if wide {
		head += padRight("rules", 12) + "  " + padRight("when", 26) + "  length"
	} else {
		head += "when"
	}
	body = append(body, pal.style(sBold, cut(head, a.w, "")))
	switch {
	case !a.loaded:
		body = append(body, "    loading"+gl.ell)
	case len(a.list) == 0:
		body = append(body, "    "+pal.style(sDim, "no arena is running or coming: an admin sets them up (arena new)"))
	}
	for i, ev := range a.list {
		line := padRight(cut(clean(ev.Name, arena.MaxNameLen), nameW, gl.ell), nameW) + "  "
		when := a.when(ev)
		if wide {
			line += padRight(cut(rulesTitle(ev.RulesID), 12, gl.ell), 12) + "  " + padRight(when, 26) + "  " + arenaSpan(ev.Duration)
		} else {
			line += when
		}
		if i == a.cur {
			body = append(body, "  > "+pal.style(sMenuCur, line))
		} else {
			body = append(body, "    "+line)
		}
	}
	msg, st := a.msg, a.msgSt
	if msg == "" {
		msg, st = "enter joins a running arena: you race until it ends or you leave", sDim
	}
	back := a.keys.Leave
	back.SetHelp("q", "menu")
	join := a.keys.Join
	join.SetEnabled(len(a.list) > 0)
	up := a.keys.Up
	up.SetEnabled(len(a.list) > 1)
	return drawPage(a.env, a.w, a.h, "Pyramid Solitaire"+gl.sep+"arenas",
		"timed events: short races between the players nearest in the standings",
		wrapIndented(body, a.w), msg, st, a.bar, []key.Binding{up, join, back})
}

// The widths of a standings line but the name and the rank: the
// marker before the rank and the blank after it ("  > " and " "), the
// streak mark, points, games and state.
const (
	arenaMarkW  = 5
	arenaFigW   = 1 + 2 + 7 + 6
	arenaStateW = 9
)

// rankW is the width of the standings' ranks: "12." of the arena's
// players, three cells at least.
func (a *arenaScreen) rankW() int { return max(3, len(strconv.Itoa(a.av.Players))+1) }

// standingsNameW is the width of the names in the standings.
func (a *arenaScreen) standingsNameW(state bool) int {
	fixed := arenaMarkW + a.rankW() + arenaFigW
	if state {
		fixed += arenaStateW
	}
	return max(4, min(16, a.w-fixed))
}

// standingLine draws one line of the standings: the marker for the
// player's own, the rank, the name, the streak mark, points, games and,
// when state is set, what they do now.
func (a *arenaScreen) standingLine(s lobby.ArenaStanding, nameW int, state bool) string {
	gl := a.env.gl
	mine := s.ID != "" && s.ID == a.av.You.ID
	marker := "    "
	if mine {
		marker = "  > "
	}
	rank := "-"
	if s.Rank > 0 {
		rank = strconv.Itoa(s.Rank) + "."
	}
	mark := "  "
	if s.OnStreak() {
		mark = streakMark(gl)
	}
	line := marker + padLeft(rank, a.rankW()) + " " + padRight(cut(clean(s.Name, 16), nameW, gl.ell), nameW) + " " + mark +
		padLeft(strconv.Itoa(s.Points), 7) + padLeft(strconv.Itoa(s.Games), 6)
	if state {
		line += "   " + s.State.String()
	}
	if mine {
		return a.env.pal.style(sBold, line)
	}
	return line
}

// standingsHead is the standings' column heads.
func (a *arenaScreen) standingsHead(nameW int, state bool) string {
	line := "    " + padLeft("#", a.rankW()) + " " + padRight("player", nameW) + "   " + padLeft("points", 7) + padLeft("games", 6)
	if state {
		line += "   now"
	}
	return line
}

// standings draws the standings in at most rows lines: the top lines,
// then, when the player's own line is not among them, a gap and the
// lines around it. Lines of Near that Top has too are drawn once, and
// the gap only where lines are left out.
func (a *arenaScreen) standings(rows int, state bool) []string {
	v := &a.av
	nameW := a.standingsNameW(state)
	top := v.Top
	var near []lobby.ArenaStanding
	for _, s := range v.Near {
		if !slices.ContainsFunc(top, func(t lobby.ArenaStanding) bool { return t.ID == s.ID }) {
			near = append(near, s)
		}
	}
	if len(near) > 0 && rows >= 3 {
		// The lines around the player's own, centred on it, as many as
		// leave the top three and the gap.
		keep := min(len(near), max(1, rows-4))
		at := 0
		for i, s := range near {
			if s.ID == v.You.ID {
				at = i
			}
		}
		from := max(0, min(at-keep/2, len(near)-keep))
		near = near[from : from+keep]
	} else {
		near = nil
	}
	nTop := min(len(top), rows)
	if len(near) > 0 {
		nTop = min(len(top), max(0, rows-1-len(near)))
	}
	out := make([]string, 0, rows)
	for _, s := range top[:nTop] {
		out = append(out, a.standingLine(s, nameW, state))
	}
	if len(near) > 0 {
		// A gap where lines are left out: those the top lost to the
		// window, or those between the top and the player's.
		if nTop < len(top) || nTop == 0 || near[0].Rank > top[nTop-1].Rank+1 {
			gap := "⋮"
			if !a.env.gl.unicode {
				gap = ":"
			}
			out = append(out, "    "+padLeft(gap, a.rankW()))
		}
		for _, s := range near {
			out = append(out, a.standingLine(s, nameW, state))
		}
	}
	return out
}

// youLines are the player's own figures, "You: 3rd · 12 points · 6
// games · 3 wins" (place is the first), with the streak mark, in lines of
// at most w cells broken between the figures.
func (a *arenaScreen) youLines(place string, w int) []string {
	gl := a.env.gl
	y := &a.av.You
	if y.ID == "" {
		return []string{"You watch this arena."}
	}
	pieces := []string{"You: " + place, strconv.Itoa(y.Points) + plural(y.Points, " point", " points"),
		strconv.Itoa(y.Games) + plural(y.Games, " game", " games"), strconv.Itoa(y.Wins) + plural(y.Wins, " win", " wins")}
	if y.OnStreak() && a.stage == arenaIn {
		pieces = append(pieces, "on a streak "+strings.TrimSpace(streakMark(gl))+" (games count double)")
	}
	return flow(pieces, gl.sep, max(10, w), 3)
}

// place is the player's place as their line says it.
func (a *arenaScreen) place() string {
	if r := a.av.You.Rank; r > 0 {
		if a.stage == arenaOver {
			return share.Ordinal(r) + " of " + strconv.Itoa(a.av.Players)
		}
		return share.Ordinal(r)
	}
	if a.stage == arenaOver {
		return "no game played"
	}
	return "no game yet"
}

// stateLine says what the player does in the arena now: playing, free
// (with when they may be paired, as far as can be known), paused.
func (a *arenaScreen) stateLine() string {
	v := &a.av
	if v.You.ID == "" {
		return ""
	}
	switch v.You.State {
	case lobby.ArenaPlaying:
		if v.You.Code != "" {
			return "playing in room " + clean(v.You.Code, 8) + " (enter: back to your race)"
		}
		return "playing"
	case lobby.ArenaPaused:
		if v.You.Idle {
			return "paused: no move in your last race's first " + secs(arena.FirstMoveTime) + "; p resumes"
		}
		return "paused: you are not paired until p resumes"
	case lobby.ArenaAway:
		return "away: you are not paired"
	}
	if !v.Arena.PairsAt(a.now) {
		// The arena pairs no race in its last minute: nobody waits for
		// one.
		return "free: no new race in the arena's last minute"
	}
	if v.FreeSince.IsZero() {
		return "free: waiting for players"
	}
	waited := a.now.Sub(v.FreeSince)
	if a.othersFree() {
		// Another player waits too: pairing takes them both once the
		// players whose games ended together had time to come back.
		if left := arena.GatherTime - waited; left > 0 {
			return "free: paired in " + secs(left)
		}
		return "free: pairing" + a.env.gl.ell
	}
	// Nobody else is known to be free: the next pairing waits for the
	// games that run, which may end at any time; alone, the player gets
	// a solo deal once they waited AloneAfter.
	if left := arena.AloneAfter - waited; left > 0 {
		return "free: waiting for players (a solo deal in " + secs(left) + " if nobody comes)"
	}
	return "free: waiting for players (a solo deal any moment)"
}

// othersFree reports whether the view shows another player free.
func (a *arenaScreen) othersFree() bool {
	v := &a.av
	for _, ls := range [][]lobby.ArenaStanding{v.Top, v.Near} {
		for _, s := range ls {
			if s.State == lobby.ArenaFree && s.ID != v.You.ID {
				return true
			}
		}
	}
	return false
}

// topGameLine says which race to watch.
func (a *arenaScreen) topGameLine() string {
	v := &a.av
	switch {
	case v.TopGame == "":
		return "No race to watch right now."
	case v.You.State == lobby.ArenaPlaying && v.You.Code == v.TopGame:
		return "The top game is yours."
	}
	names := make([]string, 0, len(v.TopNames))
	for _, n := range v.TopNames {
		names = append(names, clean(n, 16))
	}
	return "Top game: " + strings.Join(names, ", ") + " (room " + clean(v.TopGame, 8) + "): w watches it"
}

// arenaSub is the line under the arena's title: rules, time left,
// players.
func (a *arenaScreen) arenaSub() string {
	gl, v := a.env.gl, &a.av
	d := v.Arena.End.Sub(v.Arena.Start)
	return rulesTitle(v.Arena.RulesID) + gl.sep + clock(a.timeLeft()) + " left of " + arenaSpan(d) + gl.sep +
		strconv.Itoa(v.Players) + plural(v.Players, " player", " players") + gl.sep + strconv.Itoa(v.Playing) + " playing now"
}

// viewArena draws the arena the player is in.
func (a *arenaScreen) viewArena() string {
	gl, pal, v := a.env.gl, a.env.pal, &a.av
	state := a.w >= 56
	head := []string{""}
	for _, l := range a.youLines(a.place(), a.w-4) {
		head = append(head, "  "+pal.style(sBold, l))
	}
	if s := a.stateLine(); s != "" {
		st := sInfo
		if v.You.State == lobby.ArenaPlaying {
			st = sOK
		}
		for _, l := range wrapWords(s, max(10, a.w-4)) {
			head = append(head, "  "+pal.style(st, l))
		}
	}
	head = append(head, "", pal.style(sBold, cut(a.standingsHead(a.standingsNameW(state), state), a.w, "")))
	foot := []string{""}
	for _, l := range wrapWords(a.topGameLine(), max(10, a.w-4)) {
		foot = append(foot, "  "+l)
	}
	// The window less the title, the line under it, the message line
	// and the key bar.
	rows := max(1, a.h-4-len(head)-len(foot))
	body := append(head, a.standings(rows, state)...)
	for len(body) < a.h-4-len(foot) {
		body = append(body, "")
	}
	body = append(body, foot...)
	watch, pause := a.keys.Watch, a.keys.Pause
	watch.SetEnabled(v.TopGame != "" && v.You.Code != v.TopGame)
	if v.You.State == lobby.ArenaPaused {
		pause.SetHelp("p", "resume")
	}
	pause.SetEnabled(v.You.ID != "")
	back := a.keys.Join
	back.SetHelp("enter", "your race")
	back.SetEnabled(v.You.State == lobby.ArenaPlaying && v.You.Code != "")
	msg, st := a.msg, a.msgSt
	if msg == "" {
		msg, st = "you race the players nearest you in the standings until the arena ends", sDim
	}
	return drawPage(a.env, a.w, a.h, clean(v.Arena.Name, arena.MaxNameLen)+gl.sep+"arena", a.arenaSub(), body,
		msg, st, a.bar, []key.Binding{back, watch, pause, a.keys.Leave})
}

// viewOver draws the arena's results: the podium, the player's own
// figures and the standings' top.
func (a *arenaScreen) viewOver() string {
	gl, pal, v := a.env.gl, a.env.pal, &a.av
	body := []string{""}
	// The podium is everybody ranked 1 to 3 with a point or more, ties
	// included, as the trophies are (docs/arenas.md).
	var podium []lobby.ArenaStanding
	for _, s := range v.Top {
		if s.Points > 0 && s.Rank > 0 && s.Rank <= 3 {
			podium = append(podium, s)
		}
	}
	nameW := 1
	for _, s := range podium {
		nameW = max(nameW, min(16, cells(clean(s.Name, 16))))
	}
	for _, s := range podium {
		line := "   " + padRight(share.Ordinal(max(1, s.Rank)), 5) + padRight(clean(s.Name, 16), nameW) + "  " +
			strconv.Itoa(s.Points) + plural(s.Points, " point", " points")
		if s.ID == v.You.ID {
			line += "  (you)"
		}
		body = append(body, pal.style(sBold, cut(line, a.w, gl.ell)))
	}
	if len(podium) == 0 {
		body = append(body, "   Nobody scored a point.")
	}
	body = append(body, "")
	if v.You.ID != "" {
		for _, l := range a.youLines(a.place(), a.w-4) {
			body = append(body, "  "+l)
		}
		body = append(body, "")
	}
	if len(v.Top) > len(podium) || len(v.Near) > 0 {
		state := false
		body = append(body, pal.style(sBold, cut(a.standingsHead(a.standingsNameW(state), state), a.w, "")))
		body = append(body, a.standings(max(1, a.h-4-len(body)), state)...)
	}
	d := v.Arena.End.Sub(v.Arena.Start)
	sub := rulesTitle(v.Arena.RulesID) + gl.sep + arenaSpan(d) + gl.sep + strconv.Itoa(v.Players) + plural(v.Players, " player", " players")
	msg, st := a.msg, a.msgSt
	if msg == "" || msg == "the arena is over" {
		msg, st = "the arena is over: thank you for playing", sInfo
	}
	return drawPage(a.env, a.w, a.h, clean(v.Arena.Name, arena.MaxNameLen)+gl.sep+"results", sub, body, msg, st, a.bar,
		[]key.Binding{a.keys.Menu})
}
