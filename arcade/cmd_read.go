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

	"pyramid/engine"
	"pyramid/games"
	"pyramid/keys"
	"pyramid/lobby"
	"pyramid/store"
)

// jsonFlag defines --json.
func jsonFlag(v *bool) func(fs *flag.FlagSet) {
	return func(fs *flag.FlagSet) { fs.BoolVar(v, "json", false, "print JSON") }
}

// whoamiReport is whoami's --json output.
type whoamiReport struct {
	ID    string   `json:"id"`
	Name  string   `json:"name"`
	Guest bool     `json:"guest"`
	Key   string   `json:"key,omitempty"`
	Keys  []string `json:"keys,omitempty"`
	Admin bool     `json:"admin,omitempty"`
	// KeyInfo has each of Keys' details, in the same order.
	KeyInfo []keyReport `json:"key_info,omitempty"`
}

// keyReport is one key of whoami --json.
type keyReport struct {
	Fingerprint string     `json:"fingerprint"`
	Type        string     `json:"type,omitempty"`
	Label       string     `json:"label,omitempty"`
	Added       time.Time  `json:"added"`
	LastUsed    *time.Time `json:"last_used,omitempty"`
	This        bool       `json:"this,omitempty"`
}

func (c *call) whoami() int {
	var asJSON bool
	if _, code, ok := c.flags(0, jsonFlag(&asJSON)); !ok {
		return code
	}
	rep := whoamiReport{ID: c.player, Name: c.name, Guest: c.s.Guest(), Key: c.s.Identity, Admin: c.admin}
	if c.a.cfg.Store != nil && !c.s.Guest() {
		ctx, cancel := c.timeout()
		defer cancel()
		ks, err := c.a.cfg.Store.Keys(ctx, c.player)
		if err != nil {
			return c.storeErr("keys", err)
		}
		for _, k := range ks {
			rep.Keys = append(rep.Keys, k.Fingerprint)
			kr := keyReport{Fingerprint: k.Fingerprint, Type: k.Type, Label: keys.Clean(k.Label, maxKeyLabel),
				Added: k.Added.UTC(), This: k.Fingerprint == c.s.Identity}
			if !k.LastUsed.IsZero() {
				used := k.LastUsed.UTC()
				kr.LastUsed = &used
			}
			rep.KeyInfo = append(rep.KeyInfo, kr)
		}
	}
	if asJSON {
		return c.writeJSON(rep)
	}
	if rep.Guest {
		fmt.Fprintf(c.stdout, "%s: a guest (no SSH key), so nothing is kept, and each connection gets a new guest name (make a key with ssh-keygen -t ed25519)\n", playerName(rep.Name))
		return 0
	}
	fmt.Fprintf(c.stdout, "name  %s\nid    %s\n", rep.Name, rep.ID)
	if len(rep.Keys) == 0 {
		fmt.Fprintf(c.stdout, "key   %s (this session)\n", rep.Key)
	}
	for i, k := range rep.KeyInfo {
		head := "keys "
		if i > 0 {
			head = "     "
		}
		fmt.Fprintf(c.stdout, "%s %s  %s\n", head, k.Fingerprint, keyDetails(k))
	}
	if len(rep.Keys) > 0 {
		fmt.Fprintln(c.stdout, "(label FINGERPRINT NAME names a key; unlink FINGERPRINT removes one)")
	}
	if c.a.cfg.Store == nil {
		fmt.Fprintln(c.stdout, "(this server keeps no records)")
	}
	return 0
}

// statsReport is one line of stats --json.
type statsReport struct {
	Rules         string  `json:"rules"`
	Played        int     `json:"played"`
	Won           int     `json:"won"`
	WinRate       float64 `json:"win_rate"`
	CurrentStreak int     `json:"current_streak"`
	BestStreak    int     `json:"best_streak"`
	BestTimeMS    int64   `json:"best_time_ms,omitempty"`
	FewestMoves   int     `json:"fewest_moves,omitempty"`
	AvgRemoved    float64 `json:"avg_removed"`
	DailyPlayed   int     `json:"daily_played"`
	BestDaily     *int    `json:"best_daily,omitempty"`
	// Race is the player's race figures of the rule set (cmd_race.go).
	Race *raceReport `json:"race,omitempty"`
	// Arenas is the player's arena trophies in the rule set, newest
	// first: their top-three finishes (cmd_arena.go).
	Arenas []trophyJSON `json:"arenas,omitempty"`
}

func (c *call) stats() int {
	var asJSON bool
	args, code, ok := c.flags(1, jsonFlag(&asJSON))
	if !ok {
		return code
	}
	ctx, cancel := c.timeout()
	defer cancel()
	var all []store.Stats
	only := "" // the rule set asked for, if any
	if len(args) == 1 {
		r, err := engine.ParseRules(args[0])
		if err != nil {
			return c.usageErr(err.Error())
		}
		only = r.ID()
		s, err := c.a.cfg.Store.Stats(ctx, c.player, r.ID())
		if err != nil {
			return c.storeErr("stats", err)
		}
		all = []store.Stats{s}
	} else {
		var err error
		if all, err = c.a.cfg.Store.AllStats(ctx, c.player); err != nil {
			return c.storeErr("stats", err)
		}
	}
	reps := make([]statsReport, 0, len(all))
	for _, s := range all {
		r := statsReport{Rules: s.RulesID, Played: s.Played, Won: s.Won, WinRate: s.WinRate(),
			CurrentStreak: s.CurrentStreak, BestStreak: s.BestStreak, BestTimeMS: s.BestTime.Milliseconds(),
			FewestMoves: s.FewestMoves, AvgRemoved: s.AvgRemoved, DailyPlayed: s.DailyPlayed}
		if s.DailyPlayed > 0 {
			best := s.BestDailyRemoved
			r.BestDaily = &best
		}
		reps = append(reps, r)
	}
	played := len(reps)
	reps, err := c.addRaceRecords(reps, only)
	if err != nil {
		return c.storeErr("stats", err)
	}
	if reps, err = c.addTrophies(ctx, reps, only); err != nil {
		return c.storeErr("stats", err)
	}
	if asJSON {
		return c.writeJSON(reps)
	}
	if len(reps) == 0 {
		fmt.Fprintln(c.stdout, "no finished games yet")
		return 0
	}
	defer c.printTrophies(reps) // after the race figures
	defer c.printRaceRecords(reps)
	if played == 0 {
		fmt.Fprintln(c.stdout, "no solo game finished yet")
		return 0
	}
	// Short heads keep the table within 80 columns; the legend says
	// what they count.
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "rules\tplayed\twon\twin %\tstreak\ttime\tmoves\tremoved")
	var dailies []string
	for _, r := range reps[:played] {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%d/%d\t%s\t%s\t%.1f\n", rulesSpec(r.Rules), r.Played, r.Won, 100*r.WinRate,
			r.CurrentStreak, r.BestStreak, duration(time.Duration(r.BestTimeMS)*time.Millisecond), count(r.FewestMoves), r.AvgRemoved)
		if r.BestDaily != nil {
			dailies = append(dailies, fmt.Sprintf("%s daily deals: %d played, best %d removed", rulesSpec(r.Rules), r.DailyPlayed, *r.BestDaily))
		}
	}
	_ = tw.Flush()
	fmt.Fprintln(c.stdout, "(streak: now/best · time: the best win's · moves: the fewest in a win\n removed: pyramid cards removed a game, on average)")
	for _, d := range dailies {
		fmt.Fprintln(c.stdout, d)
	}
	return 0
}

// rulesSpec prints a stored rule set ID as players type it: the short
// spec (classic,cover=overlap), not the canonical ID with every knob.
func rulesSpec(id string) string {
	if r, err := engine.ParseRules(id); err == nil {
		return r.Spec()
	}
	return word(id)
}

// duration prints a play time as the table's clock does (m:ss, or
// h:mm:ss), "-" for none.
func duration(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// count prints a count, "-" for none.
func count(n int) string {
	if n <= 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

// plural is n and a noun, in the plural unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// gameReport is one game of games --json and replay --json. The deal
// number is a JSON string: daily deals are above 2^53, past which
// JavaScript and jq round numbers to another deal.
type gameReport struct {
	ID    int64  `json:"id"`
	Rules string `json:"rules"`
	Deal  uint64 `json:"deal,string"`
	// DealHidden: the deal is the server's and the game not over, so its
	// number is not told (lobby.DealShown): Deal is 0.
	DealHidden bool   `json:"deal_hidden,omitempty"`
	DealText   string `json:"deal_text,omitempty"`
	Daily      string `json:"daily,omitempty"`
	Status     string `json:"status"`
	// Kind is what the game is: solo, replay (of a daily deal finished
	// already that day), race or ghost; every kind but solo is practice.
	Kind  string   `json:"kind"`
	Moves []string `json:"moves"`
	// MoveMS is when each move was made, in milliseconds of play time
	// since the game's start; shorter than Moves for a game stored
	// before times were kept.
	MoveMS  []int64 `json:"move_ms"`
	Removed int     `json:"removed"`
	Updated string  `json:"updated"`
	Board   string  `json:"board,omitempty"`
	// Race is a race game's race as stored (replay only).
	Race *raceResultsReport `json:"race,omitempty"`
}

// report is a game's report; shown says whether its deal number may be
// told (call.dealShown).
func report(sg store.Game, shown bool) gameReport {
	moves := sg.Moves
	if moves == nil {
		moves = []string{}
	}
	ms := make([]int64, len(sg.MoveTimes))
	for i, d := range sg.MoveTimes {
		ms[i] = d.Milliseconds()
	}
	rep := gameReport{ID: sg.ID, Rules: sg.RulesID, Deal: sg.DealNumber, DealText: sg.DealText, Daily: sg.Daily,
		Status: string(sg.Status), Kind: string(sg.Kind), Moves: moves, MoveMS: ms, Removed: sg.Removed, Updated: sg.Updated.UTC().Format(time.RFC3339)}
	if !shown {
		rep.Deal, rep.DealHidden = 0, true
	}
	return rep
}

// dealShown reports whether sg's deal number may be told now
// (dealShown): for a race game, only once its race is over.
func (c *call) dealShown(ctx context.Context, sg store.Game) bool {
	return dealShown(sg, c.today(), c.raceOver(ctx, sg))
}

// raceOver reports whether a game's race is over, as far as its deal is
// concerned: true for any game but a finished race game's, whose race is
// over once stored, or once no race could still run (lobby.MaxTimeLimit
// after the game's last change: a race that stored nothing).
func (c *call) raceOver(ctx context.Context, sg store.Game) bool {
	if sg.Kind != store.KindRace || !sg.Status.Finished() {
		return true
	}
	if id, ok := store.ChallengeOfRaceKey(sg.Race); ok {
		// A challenge's game: over when the challenge is, which may be
		// a day after the game.
		ch, err := c.a.cfg.Store.Challenge(ctx, id)
		return err == nil && !ch.State.Open()
	}
	if c.a.cfg.Now().Sub(sg.Updated) > lobby.MaxTimeLimit {
		return true
	}
	_, err := c.a.cfg.Store.RaceOfGame(ctx, sg.ID)
	return err == nil
}

func (c *call) games() int {
	var asJSON bool
	if _, code, ok := c.flags(0, jsonFlag(&asJSON)); !ok {
		return code
	}
	ctx, cancel := c.timeout()
	defer cancel()
	list, err := c.a.cfg.Store.ListGames(ctx, c.player, store.Page{Limit: store.MaxListLimit})
	if err != nil {
		return c.storeErr("games", err)
	}
	reps := make([]gameReport, 0, len(list))
	for _, sg := range list {
		reps = append(reps, report(sg, c.dealShown(ctx, sg)))
	}
	if asJSON {
		return c.writeJSON(reps)
	}
	if len(reps) == 0 {
		fmt.Fprintln(c.stdout, "no games yet")
		return 0
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "id\trules\tdeal\tstatus\tkind\tremoved\tmoves\tupdated")
	for i, r := range reps {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n", r.ID, rulesSpec(r.Rules), dealName(list[i], !r.DealHidden), r.Status, r.Kind, r.Removed, len(r.Moves), r.Updated)
	}
	_ = tw.Flush()
	return 0
}

// errNoSuchGame is what replay says of a game the caller may not see,
// whether or not it exists, so that IDs tell nothing.
var errNoSuchGame = errors.New("no such game")

// visible reports whether the caller may replay a game: their own, or
// another player's daily once that day (UTC) is over, when the line can
// help nobody on the day's board; an admin, any game (the games of a
// reported player).
func (c *call) visible(sg store.Game) bool {
	if sg.PlayerID == c.player || c.admin {
		return true
	}
	return sg.Daily != "" && sg.Daily < c.today()
}

// today is the UTC date now.
func (c *call) today() string { return c.a.cfg.Now().UTC().Format(time.DateOnly) }

func (c *call) replay() int {
	var asJSON bool
	args, code, ok := c.flags(1, jsonFlag(&asJSON))
	if !ok {
		return code
	}
	if len(args) != 1 {
		return c.usageErr("replay needs a game ID (games lists your games)")
	}
	id, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil || id <= 0 {
		return c.usageErr(fmt.Sprintf("bad game ID \"%s\": want a number (games lists your games)", word(args[0])))
	}
	ctx, cancel := c.timeout()
	defer cancel()
	sg, err := c.a.cfg.Store.Game(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && !c.visible(sg)) {
		return c.fail(fmt.Sprintf("game %d not found: %v of yours, nor a past day's daily (games lists yours)", id, errNoSuchGame))
	}
	if err != nil {
		return c.storeErr(fmt.Sprintf("game %d", id), err)
	}
	g, err := engine.Replay(games.RecordOf(sg))
	if err != nil {
		return c.fail(fmt.Sprintf("game %d does not replay: %v", id, err))
	}
	shown := c.dealShown(ctx, sg)
	rep := report(sg, shown)
	rep.Board = board(g, shown)
	if sg.Kind == store.KindRace {
		race, err := c.a.cfg.Store.RaceOfGame(ctx, sg.ID)
		switch {
		case err == nil:
			rep.Race = raceResults(race)
		case !errors.Is(err, store.ErrNotFound): // a race that ended with no result has none
			return c.storeErr(fmt.Sprintf("the race of game %d", id), err)
		}
	}
	if asJSON {
		return c.writeJSON(rep)
	}
	defer c.printRaceResults(rep.Race, sg.ID)
	daily := ""
	if sg.Daily != "" {
		daily = " · daily of " + sg.Daily
	}
	fmt.Fprintf(c.stdout, "game %d · %s · deal %s%s · %s · %s\nmoves: %s\n\n%s", rep.ID, rep.Rules, dealName(sg, shown), daily,
		rep.Status, plural(len(rep.Moves), "move"), joinMoves(rep.Moves), rep.Board)
	return 0
}

// board is a replayed game's board without the position's status at the
// end of the engine's header line ("playing" for an abandoned game): the
// replay says the stored status instead.
func board(g *engine.Game, shown bool) string {
	s := g.String()
	header, rest, _ := strings.Cut(s, "\n")
	if i := strings.LastIndex(header, " · "); i >= 0 {
		header = header[:i]
	}
	if d := g.Deal(); !shown && d.Numbered {
		header = strings.Replace(header, "deal "+strconv.FormatUint(d.Number, 10), "hidden deal", 1)
	}
	return header + "\n" + rest
}

func (c *call) top() int {
	var asJSON bool
	var date string
	args, code, ok := c.flags(2, func(fs *flag.FlagSet) {
		jsonFlag(&asJSON)(fs)
		fs.StringVar(&date, "date", "", "the daily deal of this UTC date (YYYY-MM-DD)")
	})
	if !ok {
		return code
	}
	if len(args) > 0 && args[0] == "race" {
		if date != "" {
			return c.usageErr("--date is for daily boards: race ratings are as of now")
		}
		return c.topRace(args[1:], asJSON) // cmd_race.go
	}
	if len(args) != 1 {
		return c.usageErr("top needs daily, a rule set or race")
	}
	r, err := engine.ParseRules(args[0])
	if err != nil {
		return c.usageErr(err.Error())
	}
	today := c.a.cfg.Now().UTC().Format(time.DateOnly)
	if date != "" {
		if _, err := time.Parse(time.DateOnly, date); err != nil {
			return c.usageErr(fmt.Sprintf("bad date \"%s\": want YYYY-MM-DD", word(date)))
		}
	}
	ctx, cancel := c.timeout()
	defer cancel()
	if r.Daily || date != "" {
		if date == "" {
			date = today
		}
		var board []store.DailyEntry
		if date <= today {
			if board, err = c.a.cfg.Store.Leaderboard(ctx, r.ID(), date, 20); err != nil {
				return c.storeErr("leaderboard", err)
			}
		}
		return c.printBoard(r, date, date > today, board, asJSON)
	}
	list, err := c.a.cfg.Store.Top(ctx, r.ID(), store.TopWins, 20)
	if err != nil {
		return c.storeErr("top", err)
	}
	return c.printTop(r, list, asJSON)
}

// boardReport is one line of top --json for a daily board.
type boardReport struct {
	Rank    int    `json:"rank"`
	Name    string `json:"name"`
	Removed int    `json:"removed"`
	Won     bool   `json:"won"`
	TimeMS  int64  `json:"time_ms"`
	Moves   int    `json:"moves"`
	You     bool   `json:"you,omitempty"`
	// ArenaWinner: the player won an arena in the last 7 days.
	ArenaWinner bool `json:"arena_winner,omitempty"`
}

// dailyTitle names a daily board's rule set without saying "daily" twice.
func dailyTitle(r engine.Rules) string {
	if r.Daily && r.ID() == "daily" {
		return "The daily deal"
	}
	return r.Title() + " (" + r.Spec() + "), the daily deal"
}

func (c *call) printBoard(r engine.Rules, date string, future bool, board []store.DailyEntry, asJSON bool) int {
	reps := make([]boardReport, 0, len(board))
	var winners map[string]store.Trophy
	if len(board) > 0 {
		ctx, cancel := c.timeout()
		defer cancel()
		winners = c.arenaWinners(ctx)
	}
	for _, e := range board {
		_, won := winners[e.PlayerID]
		reps = append(reps, boardReport{Rank: e.Rank, Name: playerName(e.PlayerName), Removed: e.Removed,
			Won: e.Won, TimeMS: e.Elapsed.Milliseconds(), Moves: e.Moves, You: e.PlayerID == c.player, ArenaWinner: won})
	}
	if asJSON {
		return c.writeJSON(reps)
	}
	par := ""
	if !future {
		par = c.dailyPar(r, date) // cmd_par.go
	}
	fmt.Fprintf(c.stdout, "%s of %s%s: first finished attempt of each player; most pyramid cards removed, then time\n", dailyTitle(r), date, par)
	switch {
	case future:
		fmt.Fprintf(c.stdout, "%s has not come yet (today is %s UTC)\n", date, c.a.cfg.Now().UTC().Format(time.DateOnly))
		return 0
	case len(reps) == 0:
		fmt.Fprintln(c.stdout, "nobody has finished it yet")
		return 0
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tname\tremoved\twon\ttime\tmoves")
	marks := false
	for _, e := range reps {
		you := ""
		if e.You {
			you = "  ← you"
		}
		marks = marks || e.ArenaWinner
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%d%s\n", e.Rank, marked(e.Name, e.ArenaWinner), e.Removed, yesNo(e.Won), duration(time.Duration(e.TimeMS)*time.Millisecond), e.Moves, you)
	}
	_ = tw.Flush()
	c.winnerLegend(marks)
	return 0
}

// topReport is one line of top --json for a rule set.
type topReport struct {
	Rank       int    `json:"rank"`
	Name       string `json:"name"`
	Won        int    `json:"won"`
	Played     int    `json:"played"`
	BestTimeMS int64  `json:"best_time_ms,omitempty"`
	You        bool   `json:"you,omitempty"`
	// ArenaWinner: the player won an arena in the last 7 days.
	ArenaWinner bool `json:"arena_winner,omitempty"`
}

func (c *call) printTop(r engine.Rules, list []store.TopEntry, asJSON bool) int {
	reps := make([]topReport, 0, len(list))
	var winners map[string]store.Trophy
	if len(list) > 0 {
		ctx, cancel := c.timeout()
		defer cancel()
		winners = c.arenaWinners(ctx)
	}
	for _, e := range list {
		_, won := winners[e.PlayerID]
		reps = append(reps, topReport{Rank: e.Rank, Name: playerName(e.PlayerName), Won: e.Won,
			Played: e.Played, BestTimeMS: e.BestTime.Milliseconds(), You: e.PlayerID == c.player, ArenaWinner: won})
	}
	if asJSON {
		return c.writeJSON(reps)
	}
	fmt.Fprintf(c.stdout, "%s (%s): most wins\n", r.Title(), r.Spec())
	if len(reps) == 0 {
		// The list holds wins that count: of dealt deals, unassisted.
		fmt.Fprintln(c.stdout, "no win that counts yet (wins of chosen deals and assisted wins are practice)")
		return 0
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tname\twon\tplayed\tbest time")
	marks := false
	for _, e := range reps {
		marks = marks || e.ArenaWinner
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%s\n", e.Rank, marked(e.Name, e.ArenaWinner), e.Won, e.Played, duration(time.Duration(e.BestTimeMS)*time.Millisecond))
	}
	_ = tw.Flush()
	c.winnerLegend(marks)
	return 0
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
