package arcade

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"pyramid/arena"
	"pyramid/budget"
	"pyramid/engine"
	"pyramid/keys"
	"pyramid/share"
	"pyramid/store"
)

// The arenas' plain-text commands: arenas lists them, arena ID shows one
// with its standings, arena new|edit|cancel set them up (docs/arenas.md).

// Bounds of the arena commands.
const (
	// arenasShown is how far back arenas lists the finished arenas.
	arenasShown = 7 * 24 * time.Hour
	// maxArenasListed is the most arenas one arenas lists.
	maxArenasListed = 50
	// maxArenaLines is the most lines of standings arena ID prints (the
	// player's own line comes after them when it is not among them).
	maxArenaLines = 100
	// arenasPerDay is how many arenas a player may set up a day on a
	// server without admins (store.Arenas.ArenasCreated counts them).
	arenasPerDay = 3
	// arenaWinMarked is how long after an arena a winner's name carries
	// the winner's mark on the boards.
	arenaWinMarked = 7 * 24 * time.Hour
)

// winnerMark follows the names of the players who won an arena in the
// last arenaWinMarked, on the boards.
const winnerMark = "♛"

// opensArena reports whether arena's words open the arena's screen with
// a terminal (ssh -t HOST arena ID): its number alone. Without a terminal
// the same words print the arena (command.textWithout).
func opensArena(args []string) bool {
	if len(args) == 0 {
		return true // the list of arenas to join
	}
	if len(args) != 1 {
		return false
	}
	id, err := strconv.ParseInt(args[0], 10, 64)
	return err == nil && id > 0
}

// arenaJSON is one arena of arenas --json and arena ID --json.
type arenaJSON struct {
	ID         int64     `json:"id"`
	Name       string    `json:"name"`
	Rules      string    `json:"rules"`
	RulesTitle string    `json:"rules_title"`
	Start      time.Time `json:"start"`
	End        time.Time `json:"end"`
	DurationMS int64     `json:"duration_ms"`
	GameTimeMS int64     `json:"game_time_ms"`
	// Every is "day" or "week" for a recurring arena; Series the ID of
	// its first occurrence.
	Every  string `json:"every,omitempty"`
	Series int64  `json:"series,omitempty"`
	// Phase is "upcoming", "running", "finished" or "cancelled".
	Phase     string `json:"phase"`
	CreatedBy string `json:"created_by,omitempty"`
	// Players is how many have a game in it; Leader is the first line's
	// name (the first by player ID of a shared first place), with their
	// points.
	Players      int    `json:"players"`
	Leader       string `json:"leader,omitempty"`
	LeaderPoints int    `json:"leader_points,omitempty"`
}

// arenaLineJSON is one line of an arena's standings in arena ID --json.
type arenaLineJSON struct {
	Rank   int    `json:"rank"`
	Name   string `json:"name"`
	Points int    `json:"points"`
	// Streak is the wins in a row; OnStreak: the next game counts double.
	Streak   int  `json:"streak"`
	OnStreak bool `json:"on_streak,omitempty"`
	Games    int  `json:"games"`
	Wins     int  `json:"wins"`
	Berserks int  `json:"berserks"`
	You      bool `json:"you,omitempty"`
}

// arenaReport is arena ID --json: the arena, its standings and, once it
// is finished, its podium (the lines ranked 1 to 3).
type arenaReport struct {
	Arena     arenaJSON       `json:"arena"`
	Standings []arenaLineJSON `json:"standings"`
	Podium    []arenaLineJSON `json:"podium,omitempty"`
}

// arenaName cleans a stored arena name for printing.
func arenaName(s string) string { return keys.Clean(s, 2*arena.MaxNameLen) }

// rulesTitle is a stored rules ID's title ("Classic"), or the ID cleaned
// when the engine no longer knows it.
func rulesTitle(id string) string {
	if r, err := engine.ParseRules(id); err == nil {
		return r.Title()
	}
	return word(id)
}

// span prints a duration as arena settings are typed: 1h30m, 45m, 2h.
func span(d time.Duration) string {
	s := d.Round(time.Second).String()
	s = strings.TrimSuffix(s, "0s")
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	if s == "" {
		return "0m"
	}
	return s
}

// clockWords is a time to go as a clock reads it, in whole minutes
// (7m for 7:06, as the arena screen's clock shows it; 1h5m), and in
// seconds under a minute (45s).
func clockWords(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%ds", max(0, int(d/time.Second)))
	}
	if d < time.Hour {
		return fmt.Sprintf("%dm", int(d/time.Minute))
	}
	return fmt.Sprintf("%dh%dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}

// repeats is a recurrence in words.
func repeats(r arena.Recurrence) string {
	switch r {
	case arena.Daily:
		return "daily"
	case arena.Weekly:
		return "weekly"
	}
	return "once"
}

// arenaOf is an arena as the commands report it, with its players and
// leader from lines (nil for none read).
func (c *call) arenaOf(e arena.Event, lines []store.ArenaLine) arenaJSON {
	j := arenaJSON{ID: e.ID, Name: arenaName(e.Name), Rules: rulesSpec(e.RulesID), RulesTitle: rulesTitle(e.RulesID),
		Start: e.Start.UTC(), End: e.End().UTC(), DurationMS: e.Duration.Milliseconds(), GameTimeMS: e.Game().Milliseconds(),
		Every: string(e.Every), Series: e.Series, Phase: string(e.PhaseAt(c.a.cfg.Now())), Players: len(lines)}
	if len(lines) > 0 {
		j.Leader, j.LeaderPoints = playerName(lines[0].PlayerName), lines[0].Points
	}
	return j
}

// arenas lists the arenas not cancelled: upcoming, running, and finished
// in the last arenasShown, by start.
func (c *call) arenas() int {
	var asJSON bool
	if _, code, ok := c.flags(0, jsonFlag(&asJSON)); !ok {
		return code
	}
	ctx, cancel := c.timeout()
	defer cancel()
	now := c.a.cfg.Now()
	list, err := c.a.cfg.Store.Arenas(ctx, now.Add(-arenasShown), maxArenasListed)
	if err == nil && c.a.scheduleArenas(ctx, list, now) {
		// A recurring arena that started has its next occurrence now.
		list, err = c.a.cfg.Store.Arenas(ctx, now.Add(-arenasShown), maxArenasListed)
	}
	if err != nil {
		return c.storeErr("arenas", err)
	}
	out := make([]arenaJSON, 0, len(list))
	for _, e := range list {
		var lines []store.ArenaLine
		if e.PhaseAt(now) != arena.Upcoming {
			if lines, err = c.a.cfg.Store.ArenaStandings(ctx, e.ID, 0); err != nil {
				return c.storeErr("arenas", err)
			}
		}
		out = append(out, c.arenaOf(e, lines))
	}
	if asJSON {
		return c.writeJSON(out)
	}
	if len(out) == 0 {
		fmt.Fprintln(c.stdout, "no arenas: none is coming up, running, or finished in the last 7 days")
		return 0
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tname\trules\tstart (UTC)\tlength\trepeats\tphase\tplayers\tleader")
	for _, j := range out {
		players, leader := "-", "-"
		if j.Phase != string(arena.Upcoming) {
			players = strconv.Itoa(j.Players)
		}
		if j.Leader != "" {
			leader = fmt.Sprintf("%s (%d)", j.Leader, j.LeaderPoints)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.ID, j.Name, j.RulesTitle, j.Start.Format("2006-01-02 15:04"),
			span(time.Duration(j.DurationMS)*time.Millisecond), repeats(arena.Recurrence(j.Every)), j.Phase, players, leader)
	}
	_ = tw.Flush()
	fmt.Fprintf(c.stdout, "(arena ID shows one with its standings; ssh -t %s arena ID plays in it)\n", c.connectHost())
	return 0
}

// arena runs arena's words: ID shows one, new, edit and cancel set them
// up (arenaSettings).
func (c *call) arena() int {
	var asJSON bool
	var set arenaSet
	var fs *flag.FlagSet
	args, code, ok := c.flags(3, func(f *flag.FlagSet) {
		fs = f
		jsonFlag(&asJSON)(f)
		set.define(f)
	})
	if !ok {
		return code
	}
	set.given = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set.given[f.Name] = true })
	delete(set.given, "json")
	if len(args) > 0 {
		switch args[0] {
		case "new", "edit", "cancel":
			if asJSON {
				return c.usageErr("--json is for arena ID")
			}
			return c.arenaSettings(args[0], args[1:], set)
		}
	}
	if len(set.given) > 0 {
		return c.usageErr("--start, --duration, --name, --every and --game are for arena new and arena edit")
	}
	if len(args) != 1 {
		if len(args) > 1 {
			return c.usageErr(fmt.Sprintf("unexpected argument \"%s\"", word(args[1])))
		}
		return c.usageErr("arena needs an arena's number (arenas lists them), or new, edit or cancel")
	}
	id, ok := arenaID(args[0])
	if !ok {
		return c.usageErr(fmt.Sprintf("\"%s\" is no arena number (arenas lists them)", word(args[0])))
	}
	ctx, cancel := c.timeout()
	defer cancel()
	e, err := c.a.cfg.Store.Arena(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return c.fail(fmt.Sprintf("no arena %d (arenas lists them)", id))
	} else if err != nil {
		return c.storeErr("arena", err)
	}
	lines, err := c.a.cfg.Store.ArenaStandings(ctx, id, 0)
	if err != nil {
		return c.storeErr("arena", err)
	}
	rep := arenaReport{Arena: c.arenaOf(e, lines), Standings: make([]arenaLineJSON, 0, min(len(lines), maxArenaLines+1))}
	for i, l := range lines {
		// The first lines, and the player's own past them.
		if i < maxArenaLines || l.PlayerID == c.player && c.player != "" {
			rep.Standings = append(rep.Standings, c.lineOf(l))
		}
	}
	if e.PhaseAt(c.a.cfg.Now()) == arena.Finished {
		for _, l := range rep.Standings {
			if l.Rank <= 3 && l.Points > 0 {
				rep.Podium = append(rep.Podium, l)
			}
		}
	}
	if asJSON {
		return c.writeJSON(rep)
	}
	c.printArena(e, rep)
	return 0
}

// arenaID reads an arena's number.
func arenaID(s string) (int64, bool) {
	id, err := strconv.ParseInt(s, 10, 64)
	return id, err == nil && id > 0
}

// lineOf is a line of standings as arena ID reports it.
func (c *call) lineOf(l store.ArenaLine) arenaLineJSON {
	return arenaLineJSON{Rank: l.Rank, Name: playerName(l.PlayerName), Points: l.Points, Streak: l.Streak,
		OnStreak: l.OnStreak(), Games: l.Games, Wins: l.Wins, Berserks: l.Berserks, You: l.PlayerID == c.player}
}

// printArena prints arena ID's text: the arena, where it stands, its
// standings and, once finished, its podium.
func (c *call) printArena(e arena.Event, rep arenaReport) {
	j, now := rep.Arena, c.a.cfg.Now()
	fmt.Fprintf(c.stdout, "Arena %d · %s · %s (%s) · %s\n", j.ID, j.Name, j.RulesTitle, j.Rules, repeats(e.Every))
	when := fmt.Sprintf("%s to %s", stamp(j.Start), j.End.Format("15:04"))
	if e.Duration >= 24*time.Hour || j.Start.Day() != j.End.Day() {
		when = fmt.Sprintf("%s to %s", stamp(j.Start), stamp(j.End))
	}
	fmt.Fprintf(c.stdout, "%s · %s · games of %s\n", when, span(e.Duration), span(e.Game()))
	switch e.PhaseAt(now) {
	case arena.Upcoming:
		fmt.Fprintf(c.stdout, "upcoming: starts in %s; join it then with ssh -t %s arena %d\n",
			clockWords(e.Start.Sub(now)), c.connectHost(), j.ID)
	case arena.Running:
		fmt.Fprintf(c.stdout, "running: %s left; join it with ssh -t %s arena %d\n",
			clockWords(e.End().Sub(now)), c.connectHost(), j.ID)
	case arena.Finished:
		fmt.Fprintln(c.stdout, "finished")
	case arena.Cancelled:
		fmt.Fprintln(c.stdout, "cancelled")
	}
	if len(rep.Standings) == 0 {
		if e.PhaseAt(now) != arena.Upcoming && e.PhaseAt(now) != arena.Cancelled {
			fmt.Fprintln(c.stdout, "nobody has played a game in it yet")
		}
		return
	}
	if len(rep.Podium) > 0 {
		var podium []string
		for _, l := range rep.Podium {
			podium = append(podium, fmt.Sprintf("%d. %s (%d)", l.Rank, l.Name, l.Points))
		}
		fmt.Fprintln(c.stdout, "podium: "+strings.Join(podium, " · "))
	}
	fmt.Fprintln(c.stdout)
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tname\tpoints\tstreak\tgames\twins")
	streaks := false
	for _, l := range rep.Standings {
		mark, you := "", ""
		if l.OnStreak {
			mark, streaks = "×2", true
		}
		if l.You {
			you = "  ← you"
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%d\t%d%s\n", l.Rank, l.Name, l.Points, mark, l.Games, l.Wins, you)
	}
	_ = tw.Flush()
	if streaks {
		fmt.Fprintf(c.stdout, "(×2: on a streak of %d wins or more, the next game counts double)\n", arena.StreakAfter)
	}
}

// arenaSet is the settings arena new and arena edit take as flags, as
// typed, and which of them were given.
type arenaSet struct {
	start, duration, name, every, game string
	given                              map[string]bool
}

// define defines the settings' flags.
func (set *arenaSet) define(f *flag.FlagSet) {
	f.StringVar(&set.start, "start", "", "new, edit: when it starts: 2026-12-12T19:00Z (UTC, or with an offset), now, or +2h")
	f.StringVar(&set.duration, "duration", "", fmt.Sprintf("new, edit: how long it runs, %s to %s: 90m, 1h30m", span(arena.MinDuration), span(arena.MaxDuration)))
	f.StringVar(&set.name, "name", "", fmt.Sprintf("new, edit: its name, 1 to %d characters", arena.MaxNameLen))
	f.StringVar(&set.every, "every", "", "new, edit: day or week: it repeats (admins only); once: it does not")
	f.StringVar(&set.game, "game", "", fmt.Sprintf("new, edit: each game's time limit, %s to %s (%s unless set)", span(arena.MinGameTime), span(arena.MaxGameTime), span(arena.DefaultGameTime)))
}

// arenaSettings runs arena new|edit|cancel with the words after the
// verb, each with its checks: who may, and what arena.Event.Check says
// of the settings.
func (c *call) arenaSettings(verb string, args []string, set arenaSet) int {
	if c.s.Guest() || c.player == "" {
		return c.fail("guests cannot set up arenas: connect with an SSH key")
	}
	switch verb {
	case "new":
		if len(args) > 1 {
			return c.usageErr(fmt.Sprintf("arena new takes one rule set, not also %q: over ssh a name with spaces needs quotes inside the command, e.g. 'arena new classic --name \"Friday arena\" …'", strings.Join(args[1:], " ")))
		}
		if len(args) != 1 {
			return c.usageErr("arena new needs a rule set, e.g. arena new classic --start +1h --duration 1h --name Friday")
		}
		return c.newArena(args[0], set)
	case "edit":
		if len(args) == 0 || len(args) > 2 {
			return c.usageErr("arena edit needs the arena's number, then a rule set or flags to change")
		}
		rules := ""
		if len(args) == 2 {
			rules = args[1]
		}
		return c.editArena(args[0], rules, set)
	}
	if len(args) != 1 {
		return c.usageErr("arena cancel needs the arena's number")
	}
	if len(set.given) > 0 {
		return c.usageErr("arena cancel takes the arena's number alone")
	}
	return c.cancelArena(args[0])
}

// organiser reports whether the player may set up arenas at all, and
// whether as an admin: admins may always; on a server without admins,
// any player with a key may, within arenasPerDay one-off arenas.
func (c *call) organiser() (admin, ok bool) {
	if c.admin {
		return true, true
	}
	return false, c.a.cfg.Admins.Len() == 0
}

// arenaRules reads an arena's rule set: any but the daily, whose deal is
// the day's (an arena deals its own).
func arenaRules(spec string) (engine.Rules, error) {
	r, err := engine.ParseRules(spec)
	if err != nil {
		return engine.Rules{}, err
	}
	if r.Daily {
		return engine.Rules{}, errors.New("an arena deals deals of its own, not the daily: name a rule set such as classic or double")
	}
	return r, nil
}

// parseStart reads when an arena starts: RFC 3339 (seconds may be left
// out: 2026-12-12T19:00Z), now, or +DURATION from now.
func parseStart(s string, now time.Time) (time.Time, error) {
	switch {
	case strings.EqualFold(s, "now"):
		return now.Truncate(time.Second), nil
	case strings.HasPrefix(s, "+"):
		d, err := parseSpan(s[1:])
		if err != nil || d <= 0 {
			return time.Time{}, fmt.Errorf("--start %s: after + comes how long from now, like +30m or +2h", word(s))
		}
		return now.Add(d).Truncate(time.Minute), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04Z07:00"} {
		if t, err := time.Parse(layout, strings.ToUpper(s)); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("--start %s: want a time like 2026-12-12T19:00Z (UTC) or 2026-12-12T20:00+01:00, now, or +2h", word(s))
}

// parseSpan reads a duration: a Go duration (90m, 1h30m) or a number of
// days (2d).
func parseSpan(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 || days > 366 {
			return 0, fmt.Errorf("bad duration %q", s)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
}

// apply applies the settings given to e; the error is the usage error
// to print.
func (set arenaSet) apply(e *arena.Event, now time.Time) error {
	var err error
	if set.given["start"] {
		if e.Start, err = parseStart(set.start, now); err != nil {
			return err
		}
	}
	if set.given["duration"] {
		if e.Duration, err = parseSpan(set.duration); err != nil {
			return fmt.Errorf("--duration %s: want a length like 90m or 2h", word(set.duration))
		}
	}
	if set.given["game"] {
		if e.GameTime, err = parseSpan(set.game); err != nil {
			return fmt.Errorf("--game %s: want a length like 4m", word(set.game))
		}
		if e.GameTime == 0 {
			return fmt.Errorf("--game %s: a game needs %s to %s", word(set.game), span(arena.MinGameTime), span(arena.MaxGameTime))
		}
	}
	if set.given["every"] {
		if e.Every, err = arena.ParseRecurrence(set.every); err != nil {
			return fmt.Errorf("--every %s: say day or week (or once)", word(set.every))
		}
	}
	if set.given["name"] {
		e.Name = strings.TrimSpace(set.name)
		// A name too long is Check's to refuse; one that printing would
		// change has a character no name may have.
		if utf8.RuneCountInString(e.Name) <= arena.MaxNameLen && keys.Clean(e.Name, 2*arena.MaxNameLen) != e.Name {
			return errors.New("--name: an arena's name is letters, digits, spaces and punctuation: no control or format characters")
		}
	}
	return nil
}

// checkWords is why arena.Event.Check refuses settings, as the organiser
// reads it.
func checkWords(err error) string {
	return strings.TrimPrefix(err.Error(), "arena: ")
}

// newArena sets up an arena (arena new RULES --start WHEN --duration D
// --name NAME [--every day|week] [--game D]).
func (c *call) newArena(spec string, set arenaSet) int {
	admin, ok := c.organiser()
	if !ok {
		return c.fail("arena new is for the server's admins")
	}
	for _, f := range []string{"start", "duration", "name"} {
		if !set.given[f] {
			return c.usageErr("arena new needs --start, --duration and --name")
		}
	}
	r, err := arenaRules(spec)
	if err != nil {
		return c.usageErr(keys.Clean(err.Error(), 200))
	}
	now := c.a.cfg.Now()
	e := arena.Event{RulesID: r.ID(), CreatedBy: c.player}
	if err := set.apply(&e, now); err != nil {
		return c.usageErr(err.Error())
	}
	if e.Every != arena.Once && !admin {
		return c.fail("only admins set up arenas that repeat: leave --every out")
	}
	if err := e.Check(now); err != nil {
		return c.fail(checkWords(err))
	}
	ctx, cancel := c.timeout()
	defer cancel()
	if !admin {
		n, err := c.a.cfg.Store.ArenasCreated(ctx, c.player, now.Add(-24*time.Hour))
		if err != nil {
			return c.storeErr("arena new", err)
		}
		if n >= arenasPerDay {
			return c.fail(fmt.Sprintf("you set up %d arenas in the last 24 hours, the most a player may: try again tomorrow", n))
		}
		// The address's budget too: new keys buy no more arenas.
		if err := c.a.budgets.Take(budget.ArenaMade, budget.Who{Addr: c.s.AddrKey(), Account: c.player}); err != nil {
			return c.failErr("", err)
		}
	}
	e, err = c.a.cfg.Store.CreateArena(ctx, e)
	if err != nil {
		return c.arenaStoreErr("arena new", err)
	}
	c.a.cfg.Logger.Info("arena new", "by", c.s.Identity, "arena", e.ID, "rules", e.RulesID, "start", e.Start)
	fmt.Fprintf(c.stdout, "arena %d set up: %s\n", e.ID, c.arenaSummary(e))
	fmt.Fprintf(c.stdout, "players join it with ssh -t %s arena %d once it starts (arena %d shows it now)\n", c.connectHost(), e.ID, e.ID)
	c.audited(store.AuditEntry{Action: store.AuditArenaNew, Subject: fmt.Sprintf("arena %d", e.ID), Reason: c.arenaSummary(e)})
	return 0
}

// arenaSummary is an arena's settings in one line.
func (c *call) arenaSummary(e arena.Event) string {
	return fmt.Sprintf("%s · %s · starts %s · %s · games of %s · %s", arenaName(e.Name), rulesSpec(e.RulesID),
		stamp(e.Start), span(e.Duration), span(e.Game()), repeats(e.Every))
}

// arenaStoreErr tells the organiser why the store refused an arena.
func (c *call) arenaStoreErr(what string, err error) int {
	var checks = []error{arena.ErrName, arena.ErrRules, arena.ErrDuration, arena.ErrGameTime, arena.ErrStart}
	for _, ce := range checks {
		if errors.Is(err, ce) {
			return c.fail(checkWords(ce))
		}
	}
	if errors.Is(err, store.ErrInvalid) {
		c.a.cfg.Logger.Warn("arena refused", "cmd", what, "err", err)
		return c.fail(what + ": the store refused these settings (another occurrence of the series starts then?)")
	}
	return c.storeErr(what, err)
}

// arenaToChange reads the arena an organiser names and says whether they
// may change it: admins any, its creator on a server without admins.
// code is not 0 when they may not, or it cannot be read: the exit
// status, the reason printed.
func (c *call) arenaToChange(ref, verb string) (e arena.Event, admin bool, code int) {
	admin, ok := c.organiser()
	if !ok {
		return arena.Event{}, false, c.fail("arena " + verb + " is for the server's admins")
	}
	id, ok := arenaID(ref)
	if !ok {
		return arena.Event{}, false, c.usageErr(fmt.Sprintf("\"%s\" is no arena number (arenas lists them)", word(ref)))
	}
	ctx, cancel := c.timeout()
	defer cancel()
	e, err := c.a.cfg.Store.Arena(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return arena.Event{}, false, c.fail(fmt.Sprintf("no arena %d (arenas lists them)", id))
	} else if err != nil {
		return arena.Event{}, false, c.storeErr("arena "+verb, err)
	}
	if !admin && e.CreatedBy != c.player {
		return arena.Event{}, false, c.fail(fmt.Sprintf("arena %d is not yours to %s: only its creator may", id, verb))
	}
	return e, admin, 0
}

// editArena changes an upcoming arena (arena edit ID [RULES] [flags]).
func (c *call) editArena(ref, spec string, set arenaSet) int {
	e, admin, code := c.arenaToChange(ref, "edit")
	if code != 0 {
		return code
	}
	if spec == "" && len(set.given) == 0 {
		return c.usageErr("arena edit needs something to change: a rule set or --start, --duration, --name, --every, --game")
	}
	now := c.a.cfg.Now()
	switch e.PhaseAt(now) {
	case arena.Running, arena.Finished:
		return c.fail(fmt.Sprintf("arena %d has started: it can no longer be changed (arena cancel %d cancels it)", e.ID, e.ID))
	case arena.Cancelled:
		return c.fail(fmt.Sprintf("arena %d was cancelled", e.ID))
	}
	if spec != "" {
		r, err := arenaRules(spec)
		if err != nil {
			return c.usageErr(keys.Clean(err.Error(), 200))
		}
		e.RulesID = r.ID()
	}
	if err := set.apply(&e, now); err != nil {
		return c.usageErr(err.Error())
	}
	if e.Every != arena.Once && !admin {
		return c.fail("only admins set up arenas that repeat: leave --every out")
	}
	if err := e.Check(now); err != nil {
		return c.fail(checkWords(err))
	}
	ctx, cancel := c.timeout()
	defer cancel()
	id := e.ID
	e, err := c.a.cfg.Store.UpdateArena(ctx, e)
	if errors.Is(err, store.ErrClosed) {
		return c.fail(fmt.Sprintf("arena %d has started or was cancelled meanwhile: it can no longer be changed", id))
	} else if err != nil {
		return c.arenaStoreErr("arena edit", err)
	}
	c.a.cfg.Logger.Info("arena edit", "by", c.s.Identity, "arena", e.ID)
	fmt.Fprintf(c.stdout, "arena %d changed: %s\n", e.ID, c.arenaSummary(e))
	c.audited(store.AuditEntry{Action: store.AuditArenaEdit, Subject: fmt.Sprintf("arena %d", e.ID), Reason: c.arenaSummary(e)})
	return 0
}

// cancelArena cancels an arena that has not finished (arena cancel ID).
func (c *call) cancelArena(ref string) int {
	e, _, code := c.arenaToChange(ref, "cancel")
	if code != 0 {
		return code
	}
	id := e.ID
	switch e.PhaseAt(c.a.cfg.Now()) {
	case arena.Cancelled:
		return c.fail(fmt.Sprintf("arena %d was cancelled already", id))
	case arena.Finished:
		return c.fail(fmt.Sprintf("arena %d has finished: there is nothing left to cancel", id))
	}
	ctx, cancel := c.timeout()
	defer cancel()
	e, err := c.a.cfg.Store.CancelArena(ctx, id)
	if errors.Is(err, store.ErrClosed) {
		return c.fail(fmt.Sprintf("arena %d was cancelled or finished meanwhile", id))
	} else if err != nil {
		return c.storeErr("arena cancel", err)
	}
	c.a.cfg.Logger.Info("arena cancel", "by", c.s.Identity, "arena", id)
	more := ""
	if e.Every != arena.Once {
		more = "; it repeats no more"
	}
	fmt.Fprintf(c.stdout, "arena %d (%s) cancelled%s\n", id, arenaName(e.Name), more)
	c.audited(store.AuditEntry{Action: store.AuditArenaCancel, Subject: fmt.Sprintf("arena %d", id), Reason: c.arenaSummary(e)})
	return 0
}

// trophyJSON is one arena trophy in stats --json: a top-three finish.
type trophyJSON struct {
	ArenaID int64     `json:"arena_id"`
	Name    string    `json:"name"`
	Rank    int       `json:"rank"`
	Points  int       `json:"points"`
	Players int       `json:"players"`
	Ended   time.Time `json:"ended"`
}

// maxTrophies is the most arena trophies stats lists.
const maxTrophies = 50

// addTrophies puts the player's arena trophies on their rule sets' lines
// of stats (only's alone when set), adding a line for a rule set with
// none.
func (c *call) addTrophies(ctx context.Context, reps []statsReport, only string) ([]statsReport, error) {
	list, err := c.a.cfg.Store.Trophies(ctx, c.player, c.a.cfg.Now(), maxTrophies)
	if err != nil {
		return reps, err
	}
	for _, t := range list {
		if only != "" && t.RulesID != only {
			continue
		}
		j := trophyJSON{ArenaID: t.ArenaID, Name: arenaName(t.Name), Rank: t.Rank, Points: t.Points, Players: t.Players, Ended: t.Ended.UTC()}
		found := false
		for i := range reps {
			if reps[i].Rules == t.RulesID {
				reps[i].Arenas, found = append(reps[i].Arenas, j), true
			}
		}
		if !found {
			reps = append(reps, statsReport{Rules: t.RulesID, Arenas: []trophyJSON{j}})
		}
	}
	return reps, nil
}

// printTrophies prints the arena trophies of stats' text output.
func (c *call) printTrophies(reps []statsReport) {
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	header := false
	for _, r := range reps {
		for _, t := range r.Arenas {
			if !header {
				fmt.Fprintln(c.stdout)
				fmt.Fprintln(tw, "arena trophies\trules\tplace\tpoints\tended")
				header = true
			}
			fmt.Fprintf(tw, "%d %s\t%s\t%s of %d\t%d\t%s\n", t.ArenaID, t.Name, rulesSpec(r.Rules), share.Ordinal(t.Rank), t.Players,
				t.Points, t.Ended.Format(time.DateOnly))
		}
	}
	_ = tw.Flush()
}

// arenaWinners returns the players who won an arena in the last
// arenaWinMarked, for a board's marks: one store call per board. A
// failure is logged and marks nobody; the board is printed anyway.
func (c *call) arenaWinners(ctx context.Context) map[string]store.Trophy {
	now := c.a.cfg.Now()
	w, err := c.a.cfg.Store.ArenaWinners(ctx, now.Add(-arenaWinMarked), now)
	if err != nil {
		c.a.cfg.Logger.Warn("arena winners not read: the boards show no marks", "err", err)
		return nil
	}
	return w
}

// marked is a board's name with the winner's mark for a recent arena
// winner.
func marked(name string, winner bool) string {
	if winner {
		return name + " " + winnerMark
	}
	return name
}

// winnerLegend says what the mark means, under a board that shows it.
func (c *call) winnerLegend(shown bool) {
	if shown {
		fmt.Fprintf(c.stdout, "(%s won an arena in the last 7 days)\n", winnerMark)
	}
}
