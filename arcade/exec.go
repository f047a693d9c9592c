package arcade

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"pyramid/engine"
	"pyramid/keys"
	"pyramid/server"
	"pyramid/store"
)

// call is one run of a plain-text command.
type call struct {
	a              *App
	ctx            context.Context
	s              *server.Session
	player         string // the player's ID; empty for a guest or without a store
	name           string
	args           []string
	stdout, stderr io.Writer
}

// command is one plain-text command of a session without a terminal.
type command struct {
	name, usage, help string
	needsStore        bool
	admin             bool
	run               func(c *call) int
}

// commands lists the plain-text commands, in help order.
func commands() []command {
	return []command{
		{"help", "", "this list", false, false, (*call).help},
		{"whoami", "[--json]", "your player: name, ID and keys", false, false, (*call).whoami},
		{"who", "[--json]", "who is online and what each is doing", false, false, (*call).who},
		{"stats", "[RULES] [--json]", "your records, per rule set", true, false, (*call).stats},
		{"games", "[--json]", "your games, newest first", true, false, (*call).games},
		{"top", "daily|RULES [--date YYYY-MM-DD] [--json]", "a leaderboard: the daily deal's, or a rule set's", true, false, (*call).top},
		{"replay", "ID [--json]", "a game's moves and final board", true, false, (*call).replay},
		{"name", "NEW", "change your display name", true, false, (*call).rename},
		{"link", "[CODE]", "without CODE: a code to link another key; with CODE (from the new key): link this key", true, false, (*call).link},
		{"ban", "NAME", "(admins) ban a player", true, true, (*call).ban},
		{"unban", "NAME", "(admins) lift a ban", true, true, (*call).ban},
		{"rename", "NAME NEW", "(admins) rename a player", true, true, (*call).adminRename},
	}
}

// exec runs the command named by the session's first word.
func (a *App) exec(ctx context.Context, s *server.Session, stdout, stderr io.Writer) int {
	if len(s.Args) == 0 {
		fmt.Fprintf(stderr, "pyramid: this session has no terminal: connect with %s to play, or run a command (help lists them)\n", a.cfg.Connect)
		return 1
	}
	name := s.Args[0]
	for _, cmd := range commands() {
		if cmd.name != name {
			continue
		}
		c := &call{a: a, ctx: ctx, s: s, args: s.Args[1:], stdout: stdout, stderr: stderr}
		if cmd.name == "link" && len(c.args) > 0 && a.cfg.Store != nil && !s.Guest() {
			return c.redeem() // a new key: no player of its own needed
		}
		if cmd.needsStore && a.cfg.Store == nil {
			return c.fail("this server keeps no records")
		}
		if cmd.needsStore && s.Guest() {
			return c.fail("guests have no records: connect with an SSH key (make one with ssh-keygen -t ed25519)")
		}
		p, _, _, err := a.player(ctx, s)
		if err != nil {
			return c.fail(err.Error())
		}
		c.player, c.name = p.ID, p.Name
		if cmd.admin && (a.cfg.Admins == nil || !a.cfg.Admins.IsAdmin(s.Identity)) {
			return c.fail(name + " is for the server's admins")
		}
		return cmd.run(c)
	}
	if _, err := engine.ParseRules(name); err == nil {
		fmt.Fprintf(stderr, "pyramid: %q opens a game, which needs a terminal: add -t (ssh -t … %s)\n", keys.Clean(name, 40), strings.Join(cleanAll(s.Args), " "))
		return 1
	}
	fmt.Fprintf(stderr, "pyramid: unknown command %q (help lists the commands)\n", keys.Clean(name, 40))
	return 1
}

// fail prints an error and returns exit status 1.
func (c *call) fail(msg string) int {
	fmt.Fprintln(c.stderr, "pyramid: "+msg)
	return 1
}

// flags parses the call's arguments: the named flags and at most maxArgs
// positional words, returned in order. ok is false after a usage error,
// already reported.
func (c *call) flags(maxArgs int, define func(fs *flag.FlagSet)) (args []string, ok bool) {
	fs := flag.NewFlagSet(c.s.Args[0], flag.ContinueOnError)
	fs.SetOutput(cleanWriter{c.stderr})
	define(fs)
	rest := c.args
	for {
		if err := fs.Parse(rest); err != nil {
			return nil, false
		}
		if fs.NArg() == 0 {
			break
		}
		args = append(args, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(args) > maxArgs {
		fmt.Fprintf(c.stderr, "pyramid %s: unexpected argument %q\n", c.s.Args[0], keys.Clean(args[maxArgs], 40))
		return nil, false
	}
	return args, true
}

// cleanWriter cleans untrusted text (flag names echoed back) before it is
// printed.
type cleanWriter struct{ w io.Writer }

func (cw cleanWriter) Write(p []byte) (int, error) {
	lines := strings.Split(string(p), "\n")
	for i, l := range lines {
		lines[i] = keys.Clean(l, 200)
	}
	_, err := io.WriteString(cw.w, strings.Join(lines, "\n"))
	return len(p), err
}

// cleanAll cleans untrusted words for printing.
func cleanAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = keys.Clean(w, 40)
	}
	return out
}

// writeJSON prints v as indented JSON.
func (c *call) writeJSON(v any) int {
	enc := json.NewEncoder(c.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return c.fail("write: " + err.Error())
	}
	return 0
}

// storeErr tells the player what went wrong with a store call.
func (c *call) storeErr(what string, err error) int {
	if errors.Is(err, store.ErrNotFound) {
		return c.fail(what + ": not found")
	}
	c.a.cfg.Logger.Error("command failed", "cmd", c.s.Args[0], "err", err)
	return c.fail(what + ": the server could not do it now, try again")
}

// timeout bounds one command's store calls.
func (c *call) timeout() (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.ctx, storeTimeout)
}

func (c *call) help() int {
	fmt.Fprintf(c.stdout, "Pyramid arcade.\n\nPlay:     %s\nDeep link: ssh -t … RULES [DEAL], e.g. ssh -t … classic 42, or ssh -t … daily\nRULES:    classic relaxed open-stock one-pass easy draw-three double daily,\n          optionally followed by ,knob=value (e.g. classic,cover=overlap)\n\nCommands (%s COMMAND):\n", c.a.cfg.Connect, c.a.cfg.Connect)
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	for _, cmd := range commands() {
		fmt.Fprintf(tw, "  %s %s\t%s\n", cmd.name, cmd.usage, cmd.help)
	}
	_ = tw.Flush()
	return 0
}

// whoamiReport is whoami's --json output.
type whoamiReport struct {
	ID    string   `json:"id"`
	Name  string   `json:"name"`
	Guest bool     `json:"guest"`
	Key   string   `json:"key,omitempty"`
	Keys  []string `json:"keys,omitempty"`
	Admin bool     `json:"admin,omitempty"`
}

func (c *call) whoami() int {
	var asJSON bool
	if _, ok := c.flags(0, func(fs *flag.FlagSet) { fs.BoolVar(&asJSON, "json", false, "print JSON") }); !ok {
		return 2
	}
	rep := whoamiReport{ID: c.player, Name: c.name, Guest: c.s.Guest(), Key: c.s.Identity,
		Admin: c.a.cfg.Admins != nil && c.a.cfg.Admins.IsAdmin(c.s.Identity)}
	if c.a.cfg.Store != nil && !c.s.Guest() {
		ctx, cancel := c.timeout()
		defer cancel()
		ks, err := c.a.cfg.Store.Keys(ctx, c.player)
		if err != nil {
			return c.storeErr("keys", err)
		}
		for _, k := range ks {
			rep.Keys = append(rep.Keys, k.Fingerprint)
		}
	}
	if asJSON {
		return c.writeJSON(rep)
	}
	if rep.Guest {
		fmt.Fprintln(c.stdout, "guest: no SSH key, so nothing is kept (make one with ssh-keygen -t ed25519)")
		return 0
	}
	fmt.Fprintf(c.stdout, "name  %s\nid    %s\nkey   %s (this session)\n", rep.Name, rep.ID, rep.Key)
	if len(rep.Keys) > 1 {
		fmt.Fprintf(c.stdout, "keys  %s\n", strings.Join(rep.Keys, "\n      "))
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
}

func (c *call) stats() int {
	var asJSON bool
	args, ok := c.flags(1, func(fs *flag.FlagSet) { fs.BoolVar(&asJSON, "json", false, "print JSON") })
	if !ok {
		return 2
	}
	ctx, cancel := c.timeout()
	defer cancel()
	var all []store.Stats
	if len(args) == 1 {
		r, err := engine.ParseRules(args[0])
		if err != nil {
			return c.fail(err.Error())
		}
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
	if asJSON {
		return c.writeJSON(reps)
	}
	if len(reps) == 0 {
		fmt.Fprintln(c.stdout, "no finished games yet")
		return 0
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "rules\tplayed\twon\twin %\tstreak\tbest streak\tbest time\tfewest moves\tavg removed\tdaily")
	for _, r := range reps {
		daily := "-"
		if r.BestDaily != nil {
			daily = fmt.Sprintf("%d played, best %d", r.DailyPlayed, *r.BestDaily)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%d\t%d\t%s\t%s\t%.1f\t%s\n", r.Rules, r.Played, r.Won, 100*r.WinRate,
			r.CurrentStreak, r.BestStreak, duration(time.Duration(r.BestTimeMS)*time.Millisecond), count(r.FewestMoves), r.AvgRemoved, daily)
	}
	_ = tw.Flush()
	return 0
}

// duration prints a play time, "-" for none.
func duration(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return d.Round(time.Second).String()
}

// count prints a count, "-" for none.
func count(n int) string {
	if n <= 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

// gameReport is one game of games --json and replay --json.
type gameReport struct {
	ID       int64    `json:"id"`
	Rules    string   `json:"rules"`
	Deal     uint64   `json:"deal"`
	DealText string   `json:"deal_text,omitempty"`
	Daily    string   `json:"daily,omitempty"`
	Status   string   `json:"status"`
	Moves    []string `json:"moves"`
	Removed  int      `json:"removed"`
	Updated  string   `json:"updated"`
	Board    string   `json:"board,omitempty"`
}

func report(sg store.Game) gameReport {
	moves := sg.Moves
	if moves == nil {
		moves = []string{}
	}
	return gameReport{ID: sg.ID, Rules: sg.RulesID, Deal: sg.DealNumber, DealText: sg.DealText, Daily: sg.Daily,
		Status: string(sg.Status), Moves: moves, Removed: sg.Removed, Updated: sg.Updated.UTC().Format(time.RFC3339)}
}

func (c *call) games() int {
	var asJSON bool
	if _, ok := c.flags(0, func(fs *flag.FlagSet) { fs.BoolVar(&asJSON, "json", false, "print JSON") }); !ok {
		return 2
	}
	ctx, cancel := c.timeout()
	defer cancel()
	list, err := c.a.cfg.Store.ListGames(ctx, c.player, store.Page{Limit: store.MaxListLimit})
	if err != nil {
		return c.storeErr("games", err)
	}
	reps := make([]gameReport, 0, len(list))
	for _, sg := range list {
		reps = append(reps, report(sg))
	}
	if asJSON {
		return c.writeJSON(reps)
	}
	if len(reps) == 0 {
		fmt.Fprintln(c.stdout, "no games yet")
		return 0
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "id\trules\tdeal\tstatus\tremoved\tmoves\tupdated")
	for i, r := range reps {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%d\t%s\n", r.ID, r.Rules, dealName(list[i]), r.Status, r.Removed, len(r.Moves), r.Updated)
	}
	_ = tw.Flush()
	return 0
}

func (c *call) replay() int {
	var asJSON bool
	args, ok := c.flags(1, func(fs *flag.FlagSet) { fs.BoolVar(&asJSON, "json", false, "print JSON") })
	if !ok {
		return 2
	}
	if len(args) != 1 {
		return c.fail("usage: replay ID (games lists your games)")
	}
	id, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil {
		return c.fail(fmt.Sprintf("bad game id %q", keys.Clean(args[0], 20)))
	}
	ctx, cancel := c.timeout()
	defer cancel()
	sg, err := c.a.cfg.Store.Game(ctx, id)
	// Other players' games are shown once finished, so a replay cannot
	// help anyone with a game in progress.
	if err == nil && sg.PlayerID != c.player && sg.Status == store.StatusPlaying {
		err = store.ErrNotFound
	}
	if err != nil {
		return c.storeErr(fmt.Sprintf("game %d", id), err)
	}
	g, err := engine.Replay(record(sg))
	if err != nil {
		return c.fail(fmt.Sprintf("game %d does not replay: %v", id, err))
	}
	rep := report(sg)
	rep.Board = g.String()
	if asJSON {
		return c.writeJSON(rep)
	}
	fmt.Fprintf(c.stdout, "game %d · %s · deal %s · %s\nmoves: %s\n\n%s", rep.ID, rep.Rules, dealName(sg), rep.Status, joinMoves(rep.Moves), rep.Board)
	return 0
}

func (c *call) top() int {
	var asJSON bool
	var date string
	args, ok := c.flags(1, func(fs *flag.FlagSet) {
		fs.BoolVar(&asJSON, "json", false, "print JSON")
		fs.StringVar(&date, "date", "", "the daily deal of this UTC `date` (YYYY-MM-DD)")
	})
	if !ok {
		return 2
	}
	if len(args) != 1 {
		return c.fail("usage: top daily|RULES [--date YYYY-MM-DD] [--json]")
	}
	r, err := engine.ParseRules(args[0])
	if err != nil {
		return c.fail(err.Error())
	}
	if date != "" {
		if _, err := time.Parse(store.DateFormat, date); err != nil {
			return c.fail(fmt.Sprintf("bad date %q: want YYYY-MM-DD", keys.Clean(date, 20)))
		}
	}
	ctx, cancel := c.timeout()
	defer cancel()
	if r.Daily || date != "" {
		if date == "" {
			date = c.a.cfg.Now().UTC().Format(store.DateFormat)
		}
		board, err := c.a.cfg.Store.Leaderboard(ctx, r.ID(), date, 20)
		if err != nil {
			return c.storeErr("leaderboard", err)
		}
		return c.printBoard(r, date, board, asJSON)
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
}

func (c *call) printBoard(r engine.Rules, date string, board []store.DailyEntry, asJSON bool) int {
	reps := make([]boardReport, 0, len(board))
	for _, e := range board {
		reps = append(reps, boardReport{Rank: e.Rank, Name: keys.Clean(e.PlayerName, keys.MaxNameWidth), Removed: e.Removed,
			Won: e.Won, TimeMS: e.Elapsed.Milliseconds(), Moves: e.Moves, You: e.PlayerID == c.player})
	}
	if asJSON {
		return c.writeJSON(reps)
	}
	fmt.Fprintf(c.stdout, "%s daily deal, %s: first finished attempt of each player; most pyramid cards removed, then time\n", r.Title(), date)
	if len(reps) == 0 {
		fmt.Fprintln(c.stdout, "nobody has finished it yet")
		return 0
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tname\tremoved\twon\ttime\tmoves")
	for _, e := range reps {
		you := ""
		if e.You {
			you = "  ← you"
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%d%s\n", e.Rank, e.Name, e.Removed, yesNo(e.Won), duration(time.Duration(e.TimeMS)*time.Millisecond), e.Moves, you)
	}
	_ = tw.Flush()
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
}

func (c *call) printTop(r engine.Rules, list []store.TopEntry, asJSON bool) int {
	reps := make([]topReport, 0, len(list))
	for _, e := range list {
		reps = append(reps, topReport{Rank: e.Rank, Name: keys.Clean(e.PlayerName, keys.MaxNameWidth), Won: e.Won,
			Played: e.Played, BestTimeMS: e.BestTime.Milliseconds(), You: e.PlayerID == c.player})
	}
	if asJSON {
		return c.writeJSON(reps)
	}
	fmt.Fprintf(c.stdout, "%s (%s): most wins\n", r.Title(), r.ID())
	if len(reps) == 0 {
		fmt.Fprintln(c.stdout, "no finished games yet")
		return 0
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tname\twon\tplayed\tbest time")
	for _, e := range reps {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%s\n", e.Rank, e.Name, e.Won, e.Played, duration(time.Duration(e.BestTimeMS)*time.Millisecond))
	}
	_ = tw.Flush()
	return 0
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// account is the caller's account, shared with the menu's account screens.
func (c *call) account() *account {
	return c.a.account(c.player, c.s.Identity)
}

// renameTo changes a player's name, telling why a name is refused.
func (c *call) renameTo(id, name string) int {
	ctx, cancel := c.timeout()
	defer cancel()
	norm, err := c.account().Rename(ctx, id, name)
	if err != nil {
		return c.fail(err.Error())
	}
	fmt.Fprintf(c.stdout, "name: %s\n", norm)
	return 0
}

func (c *call) rename() int {
	args, ok := c.flags(1, func(*flag.FlagSet) {})
	if !ok || len(args) != 1 {
		return c.fail("usage: name NEW (1–16 letters, digits, _ . -)")
	}
	return c.renameTo(c.player, args[0])
}

// linkValidity is how long a link code works.
const linkValidity = 15 * time.Minute

// link creates a code that links another key to this player.
func (c *call) link() int {
	if _, ok := c.flags(0, func(*flag.FlagSet) {}); !ok {
		return 2
	}
	ctx, cancel := c.timeout()
	defer cancel()
	code, expires, err := c.account().LinkCode(ctx, c.player)
	if err != nil {
		return c.storeErr("link code", err)
	}
	fmt.Fprintf(c.stdout, "link code %s, valid until %s UTC.\nFrom the machine with the other key run:\n  %s link %s\nor connect with that key and choose Use a link code in its menu.\n",
		code, expires.UTC().Format("15:04"), c.a.cfg.Connect, code)
	return 0
}

// redeem links this session's key to the player of a code, through the
// account adapter the menu's Use a link code uses: one place for the
// words.
func (c *call) redeem() int {
	args, ok := c.flags(1, func(*flag.FlagSet) {})
	if !ok || len(args) != 1 {
		return c.fail("usage: link CODE")
	}
	ctx, cancel := c.timeout()
	defer cancel()
	name, err := c.account().Redeem(ctx, args[0])
	if err != nil {
		return c.fail(err.Error())
	}
	fmt.Fprintf(c.stdout, "this key now plays as %s: connect with %s to play as %s\n", name, c.a.cfg.Connect, name)
	return 0
}

// target finds the player an admin command names.
func (c *call) target(name string) (store.Player, bool) {
	ctx, cancel := c.timeout()
	defer cancel()
	p, err := c.a.cfg.Store.PlayerByName(ctx, name)
	if err != nil {
		c.storeErr(fmt.Sprintf("player %q", keys.Clean(name, 20)), err)
		return store.Player{}, false
	}
	return p, true
}

func (c *call) ban() int {
	args, ok := c.flags(1, func(*flag.FlagSet) {})
	if !ok || len(args) != 1 {
		return c.fail("usage: " + c.s.Args[0] + " NAME")
	}
	p, ok := c.target(args[0])
	if !ok {
		return 1
	}
	banned := c.s.Args[0] == "ban"
	ctx, cancel := c.timeout()
	defer cancel()
	if err := c.a.cfg.Store.SetBanned(ctx, p.ID, banned); err != nil {
		return c.storeErr("ban", err)
	}
	c.a.cfg.Logger.Info("admin", "by", c.s.Identity, "banned", banned, "player", p.ID)
	fmt.Fprintf(c.stdout, "%s is %s\n", keys.Clean(p.Name, keys.MaxNameWidth), map[bool]string{true: "banned", false: "no longer banned"}[banned])
	return 0
}

func (c *call) adminRename() int {
	args, ok := c.flags(2, func(*flag.FlagSet) {})
	if !ok || len(args) != 2 {
		return c.fail("usage: rename NAME NEW")
	}
	p, ok := c.target(args[0])
	if !ok {
		return 1
	}
	c.a.cfg.Logger.Info("admin rename", "by", c.s.Identity, "player", p.ID)
	return c.renameTo(p.ID, args[1])
}
