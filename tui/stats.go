package tui

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
)

// statsMsg brings the player's records, read through Account.Stats.
type statsMsg struct {
	req   int
	stats []RulesStats
	err   error
}

// statsScreen shows the player's records: a line per rule set with the
// columns that fit the window, and every figure of the highlighted rule
// set in words under the table, so that a narrow window loses nothing.
type statsScreen struct {
	chrome
	name    string
	req     int // of the latest load; older answers are dropped
	loading bool
	stats   []RulesStats
	cur     int
	up      key.Binding
	down    key.Binding
	reload  key.Binding
	back    key.Binding
	bar     *helpBar
}

// newStatsScreen builds the screen; open shows and loads it.
func newStatsScreen(e *env, w, h int) *statsScreen {
	s := &statsScreen{
		chrome: chrome{w: w, h: h},
		up:     key.NewBinding(key.WithKeys("up", "k", "w")),
		down:   key.NewBinding(key.WithKeys("down", "j", "s", "tab")),
		reload: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload")),
		back:   key.NewBinding(key.WithKeys("q", "esc"), key.WithHelp("q", "menu")),
		bar:    newHelpBar(),
	}
	s.setEnv(e)
	return s
}

// setEnv draws the screen with the glyphs of e: the help bar names
// the arrows with them.
func (s *statsScreen) setEnv(e *env) {
	upDown := "↑/↓"
	if !e.gl.unicode {
		upDown = "up/down"
	}
	s.env = e
	s.up.SetHelp(upDown, "rule set")
}

// open shows the screen for the player called name and loads the
// records afresh.
func (s *statsScreen) open(name string) tea.Cmd {
	s.name, s.cur, s.stats = name, 0, nil
	return s.load()
}

// load asks the account for the records, in a command.
func (s *statsScreen) load() tea.Cmd {
	s.req++
	s.loading, s.msg = true, ""
	acc, player, ctx, req := s.env.account, s.env.player.ID, s.env.ctx, s.req
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, loadTimeout)
		defer cancel()
		st, err := acc.Stats(ctx, player)
		return statsMsg{req: req, stats: st, err: err}
	}
}

// loaded takes the account's answer.
func (s *statsScreen) loaded(msg statsMsg) {
	if msg.req != s.req {
		return
	}
	s.loading = false
	if msg.err != nil {
		s.msg, s.msgSt = clean("could not load your stats: "+Reason(msg.err), 200), sErr
		return
	}
	s.stats = msg.stats
	s.cur = max(0, min(s.cur, len(s.stats)-1))
}

// Update moves through the rule sets, reloads, or goes back.
func (s *statsScreen) update(msg tea.Msg) tea.Cmd {
	if r, ok := msg.(statsMsg); ok {
		s.loaded(r)
		return nil
	}
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, s.up) && len(s.stats) > 0:
		s.cur = (s.cur + len(s.stats) - 1) % len(s.stats)
	case key.Matches(k, s.down) && len(s.stats) > 0:
		s.cur = (s.cur + 1) % len(s.stats)
	case key.Matches(k, s.reload) && !s.loading:
		return s.load()
	case key.Matches(k, s.back):
		s.event = backMsg{}
	}
	return nil
}

// statsColumn is a column of the stats table after the rule set's title.
type statsColumn struct {
	head string
	cell func(r *RulesStats) string
}

// statsColumns are the columns in the order they are dropped from the
// right when the window is narrow.
func statsColumns() []statsColumn {
	return []statsColumn{
		{"played", func(r *RulesStats) string { return strconv.Itoa(r.Played) }},
		{"won", func(r *RulesStats) string { return strconv.Itoa(r.Won) }},
		{"win %", func(r *RulesStats) string { return winRate(r) }},
		{"streak", func(r *RulesStats) string {
			return strconv.Itoa(r.CurrentStreak) + "/" + strconv.Itoa(r.BestStreak)
		}},
		{"best time", func(r *RulesStats) string { return durationOr(r.BestTime) }},
		{"fewest", func(r *RulesStats) string { return countOr(r.FewestMoves) }},
		{"avg removed", func(r *RulesStats) string { return strconv.FormatFloat(r.AvgRemoved, 'f', 1, 64) }},
		{"daily", func(r *RulesStats) string { return strconv.Itoa(r.DailyPlayed) }},
		{"best daily", func(r *RulesStats) string { return bestDaily(r, " in ") }},
		{"races", func(r *RulesStats) string {
			if r.Race == nil {
				return "-"
			}
			return strconv.Itoa(r.Race.Rated)
		}},
		{"rating", func(r *RulesStats) string { return raceRating(r.Race) }},
	}
}

// raceRating is a race rating as the screens show it: "1527", "1527?"
// while provisional, "-" for none.
func raceRating(r *RaceStats) string {
	if r == nil || r.Rated == 0 {
		return "-"
	}
	s := strconv.Itoa(int(math.Round(r.Rating)))
	if r.Provisional {
		s += "?"
	}
	return s
}

// sparkLevels are the heights of a sparkline, lowest first.
var sparkLevels = [2][]rune{[]rune("_.-:=+*#"), []rune("▁▂▃▄▅▆▇█")}

// sparkline draws values as a line of bars, one a value, scaled from
// their lowest to their highest (all in the middle when they are equal).
func sparkline(values []float64, unicode bool) string {
	levels := sparkLevels[0]
	if unicode {
		levels = sparkLevels[1]
	}
	lo, hi := slices.Min(values), slices.Max(values)
	out := make([]rune, len(values))
	for i, v := range values {
		n := len(levels) / 2
		if hi > lo {
			n = int(math.Round((v - lo) / (hi - lo) * float64(len(levels)-1)))
		}
		out[i] = levels[n]
	}
	return string(out)
}

// ratingLine is the rating history of the rule set as a sparkline that
// fits w cells: "rating 1500 ▁▂▄▅▇ 1527? (last 5 rated races)".
func ratingLine(r *RaceStats, unicode bool, w int) string {
	if r == nil || len(r.History) == 0 {
		return ""
	}
	first := strconv.Itoa(int(math.Round(r.History[0])))
	tail := " " + raceRating(r) + " (" + strconv.Itoa(len(r.History)) + plural(len(r.History), " rated race)", " rated races)")
	room := w - cells("rating "+first+" ") - cells(tail)
	hist := r.History
	if room < len(hist) {
		if room < 2 {
			return ""
		}
		hist = hist[len(hist)-room:]
		first = strconv.Itoa(int(math.Round(hist[0])))
		tail = " " + raceRating(r) + " (last " + strconv.Itoa(len(hist)) + ")"
	}
	return "rating " + first + " " + sparkline(hist, unicode) + tail
}

// winRate is the share of games won, in per cent, or "-".
func winRate(r *RulesStats) string {
	if r.Played <= 0 {
		return "-"
	}
	return strconv.Itoa((r.Won*200+r.Played)/(2*r.Played)) + "%"
}

// durationOr is a time as m:ss, or "-" for none.
func durationOr(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return clock(d)
}

// countOr is a positive count, or "-" for none.
func countOr(n int) string {
	if n <= 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

// bestDaily is the best daily result: cards removed and the time, or "-".
func bestDaily(r *RulesStats, in string) string {
	if r.BestDaily < 0 || r.DailyPlayed == 0 {
		return "-"
	}
	s := strconv.Itoa(r.BestDaily)
	if r.BestDailyTime > 0 {
		s += in + clock(r.BestDailyTime)
	}
	return s
}

// statsTitleW is the widest the stats table's rules column gets.
const statsTitleW = 16

// titleOfStats is the rule set's title as the table shows it.
func titleOfStats(r *RulesStats) string {
	if rules, err := engine.ParseRules(r.RulesID); err == nil {
		return clean(rules.Title(), 40)
	}
	t := clean(r.Title, 20)
	if t == "" {
		t = clean(r.RulesID, 20)
	}
	return t
}

// detailLines is how many lines describe the highlighted rule set.
const detailLines = 4

// rowsRoom is how many rule sets fit: the window less the title, the
// identity, a blank, the column heads, a blank, the details, the rating
// history, the message line and the help bar.
func (s *statsScreen) rowsRoom() int { return max(1, s.h-8-detailLines) }

// View draws the screen, exactly h lines.
func (s *statsScreen) view() string {
	e := s.env
	pal := e.pal
	var body []string
	switch {
	case s.loading && len(s.stats) == 0:
		body = append(body, "", "    loading your stats"+e.gl.ell)
	case len(s.stats) == 0 && s.msg == "":
		body = append(body, "", "    no finished games yet",
			pal.style(sDim, cut("    play a game to the end, won or lost, and it counts here", s.w-1, e.gl.ell)))
	case len(s.stats) > 0:
		body = append(body, "")
		body = s.table(body)
	}
	if s.cur < len(s.stats) {
		// Every figure of the highlighted rule set, in words, under the
		// table: what the columns left out for lack of room is here.
		body = append(body, "")
		for _, line := range flow(s.details(&s.stats[s.cur]), e.gl.sep, s.w-2, detailLines) {
			body = append(body, " "+pal.style(sDim, line))
		}
		if line := ratingLine(s.stats[s.cur].Race, e.gl.unicode, s.w-2); line != "" {
			body = append(body, " "+line)
		}
	}
	s.up.SetEnabled(len(s.stats) > 1)
	s.reload.SetEnabled(!s.loading)
	return drawPage(e, s.w, s.h, "Pyramid Solitaire"+e.gl.sep+"your stats", identity(e, s.name), body,
		s.msg, s.msgSt, s.bar, []key.Binding{s.up, s.reload, s.back})
}

// table appends the column heads and the rows that fit to body: the
// rule set's title, then the columns that fit the width.
func (s *statsScreen) table(body []string) []string {
	pal := s.env.pal
	cols := statsColumns()
	titleW := cells("rules")
	for i := range s.stats {
		titleW = max(titleW, cells(titleOfStats(&s.stats[i])))
	}
	// A custom rule set's long title is cut in the table; the line under
	// it gives it whole.
	titleW = min(titleW, statsTitleW)
	widths := make([]int, len(cols))
	total, n := 4+titleW, 0
	for i, c := range cols {
		widths[i] = cells(c.head)
		for j := range s.stats {
			widths[i] = max(widths[i], cells(c.cell(&s.stats[j])))
		}
		if total+2+widths[i] > s.w-1 {
			break
		}
		total += 2 + widths[i]
		n++
	}
	var b strings.Builder
	b.WriteString("    ")
	b.WriteString(pal.style(sBold, padRight("rules", titleW)))
	for i := range n {
		b.WriteString("  ")
		b.WriteString(pal.style(sBold, padLeft(cols[i].head, widths[i])))
	}
	body = append(body, b.String())
	room := s.rowsRoom()
	first := 0
	if s.cur >= room {
		first = s.cur - room + 1
	}
	for i := first; i < len(s.stats) && i < first+room; i++ {
		r := &s.stats[i]
		b.Reset()
		title := padRight(cut(titleOfStats(r), titleW, s.env.gl.ell), titleW)
		if i == s.cur {
			b.WriteString("  > ")
			b.WriteString(pal.style(sMenuCur, title))
		} else {
			b.WriteString("    ")
			b.WriteString(title)
		}
		for j := range n {
			b.WriteString("  ")
			b.WriteString(padLeft(cols[j].cell(r), widths[j]))
		}
		body = append(body, b.String())
	}
	return body
}

// details describes every figure of a rule set in words.
func (s *statsScreen) details(r *RulesStats) []string {
	d := []string{
		titleOfStats(r) + ": " + strconv.Itoa(r.Played) + " played, " + strconv.Itoa(r.Won) + " won (" + winRate(r) + ")",
		"streak " + strconv.Itoa(r.CurrentStreak) + ", best " + strconv.Itoa(r.BestStreak),
		"best time " + durationOr(r.BestTime),
		"fewest moves " + countOr(r.FewestMoves),
		strconv.FormatFloat(r.AvgRemoved, 'f', 1, 64) + " pyramid cards removed a game",
	}
	if r.DailyPlayed > 0 {
		d = append(d, "daily deals: "+strconv.Itoa(r.DailyPlayed)+" played, "+strconv.Itoa(r.DailyWon)+" won, best "+bestDaily(r, " removed in "),
			"daily streak "+strconv.Itoa(r.DailyStreak)+plural(r.DailyStreak, " day", " days")+" in a row, best "+strconv.Itoa(r.BestDailyStreak))
	}
	if r.AssistedWins > 0 {
		d = append(d, strconv.Itoa(r.AssistedWins)+" of the wins used hints or undo: they set no record")
	}
	if rc := r.Race; rc != nil {
		d = append(d, "races: "+strconv.Itoa(rc.Rated)+" rated, "+strconv.Itoa(rc.Wins)+" won, "+
			strconv.Itoa(rc.Podiums)+" on the podium, "+strconv.Itoa(rc.Unrated)+" unrated",
			"race rating "+raceRating(rc))
	}
	return d
}
