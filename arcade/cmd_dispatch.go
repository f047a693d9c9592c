package arcade

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"pyramid/engine"
	"pyramid/keys"
	"pyramid/server"
	"pyramid/store"
	"pyramid/tui"
)

// call is one run of a plain-text command.
type call struct {
	a              *App
	ctx            context.Context
	s              *server.Session
	player         string // the player's ID; empty for a guest or without a store
	name           string
	admin          bool // the session's key is an admin's
	args           []string
	stdout, stderr io.Writer
}

// command is one plain-text command of a session without a terminal. The
// table of commands is the one place a command is declared: dispatch, help
// and the deep-link check all read it.
type command struct {
	name, usage, help string
	// needsStore: the command reads or writes the player's records, so it
	// needs a store and a key.
	needsStore bool
	// admin: only the server's admins may run it, and only they see it in
	// help.
	admin bool
	// run runs the command; nil for a screen's words (a deep link),
	// which need ssh -t and without a terminal only print their usage.
	run func(c *call) int
	// opens, when not nil, reports whether the words after the command's
	// name open a screen rather than run as text (challenge ID plays,
	// challenge NAME offers).
	opens func(args []string) bool
}

// terminal reports whether cmd's words open a screen.
func (cmd command) terminal() bool { return cmd.run == nil }

// screen reports whether cmd with args opens a screen.
func (cmd command) screen(args []string) bool {
	return cmd.terminal() || cmd.opens != nil && cmd.opens(args)
}

// playsChallenge reports whether challenge's words name a challenge to
// play: its number alone.
func playsChallenge(args []string) bool {
	if len(args) != 1 {
		return false
	}
	_, err := strconv.ParseInt(args[0], 10, 64)
	return err == nil
}

// commands lists the plain-text commands, in help order.
func commands() []command {
	return []command{
		{"help", "[--json]", "this list", false, false, (*call).help, nil},
		{"version", "[--json]", "the server's version", false, false, (*call).version, nil},
		{"whoami", "[--json]", "your player: name, ID and keys", false, false, (*call).whoami, nil},
		{"who", "[--json]", "who is online and what each is doing", false, false, (*call).who, nil},
		{"rooms", "[--json]", "the public race rooms (join one with ssh -t … race CODE)", false, false, (*call).rooms, nil},
		{"stats", "[RULES] [--json]", "your records, per rule set", true, false, (*call).stats, nil},
		{"games", "[--json]", "your games, newest first", true, false, (*call).games, nil},
		{"top", "daily|RULES|race [RULES] [--date YYYY-MM-DD] [--json]", "a leaderboard: the daily deal's, a rule set's, or race ratings", true, false, (*call).top, nil},
		{"replay", "ID [--json]", "a game's moves and board: yours, or a past day's daily", true, false, (*call).replay, nil},
		{"share", "ID [--json]", "a game's one spoiler-free line to paste in a chat", true, false, (*call).share, nil},
		{"name", "NEW [--json]", "change your display name", true, false, (*call).rename, nil},
		{"link", "[CODE] [--json]", "a code to link another key; with CODE, from that key: link it", true, false, (*call).link, nil},
		{"label", "FINGERPRINT NAME", "name one of your keys, e.g. laptop (whoami lists them)", true, false, (*call).label, nil},
		{"unlink", "FINGERPRINT", "remove one of your keys (one older than yours: --yes)", true, false, (*call).unlink, nil},
		{"report", "NAME REASON", "tell the admins about a player (5 a day)", true, false, (*call).report, nil},
		{"audit", "[NAME]", "what was done to your account (admins: to all, or NAME)", true, false, (*call).audit, nil},
		{"ban", "NAME [DURATION] [REASON]", "ban a player, for good or for a while (1h, 7d): their open sessions end now, saying why", true, true, (*call).ban, nil},
		{"unban", "NAME", "lift a ban", true, true, (*call).unban, nil},
		{"kick", "NAME [REASON]", "end a player's open sessions, on every server, saying why", true, true, (*call).kick, nil},
		{"rename", "NAME NEW", "rename a player", true, true, (*call).adminRename, nil},
		{"reports", "[--all] [--json]", "the players' open reports, newest first, with the reported players' races and games", true, true, (*call).reports, nil},
		{"close-report", "ID [REASON]", "close a report: it is dealt with", true, true, (*call).closeReport, nil},
		{"void", "RACE_ID REASON", "void a race: it counts for nobody, the ratings after it are computed again", true, true, (*call).void, nil},
		{"close-room", "CODE [REASON]", "close a race room; its members and spectators are told why", false, true, (*call).closeRoom, nil},
		{name: "challenge", usage: "NAME [RULES] | accept ID | decline ID | ID", needsStore: true, run: (*call).challenge, opens: playsChallenge,
			help: "challenge a player to a hidden deal, each playing it once within 24 hours; answer one; with ssh -t, play one"},
		{"challenges", "[--json]", "your open and recent challenges, with what to do next", true, false, (*call).challenges, nil},
		{name: "arenas", usage: "[--json]", needsStore: true, run: (*call).arenas,
			help: "the arenas: upcoming, running, and finished in the last 7 days"},
		{name: "arena", usage: "ID [--json] | new RULES --start WHEN --duration D --name NAME [--every day|week] [--game D] | edit ID [RULES] [flags] | cancel ID",
			needsStore: true, run: (*call).arena, opens: opensArena,
			help: "an arena, its standings and podium (with ssh -t: play in it); set one up, change or cancel it (docs/arenas.md)"},
		{name: "race", usage: "[CODE | new [RULES] [DEAL] [--public] [--time 10m] [--max N] | watch CODE | ghost daily|ID]",
			help: "with ssh -t: a quick match, a room by its code, a new room, a room to watch, or a race against a past game"},
		{name: "watch", usage: "NAME", help: "with ssh -t: watch a player's game"},
	}
}

// lookup returns the command named name.
func lookup(name string) (command, bool) {
	for _, cmd := range commands() {
		if cmd.name == name {
			return cmd, true
		}
	}
	return command{}, false
}

// IsCommand reports whether args name a plain-text command rather than a
// deep link (a rule set and a deal), so that a session with a terminal
// (ssh -t HOST help) can run it as text too: the server then calls Exec
// for it, which ends its lines in CR LF on a terminal.
func (a *App) IsCommand(args []string) bool {
	if len(args) == 0 {
		return false
	}
	cmd, ok := lookup(args[0])
	// A screen's words are a deep link, but for its --help.
	return ok && (!cmd.screen(args[1:]) || asksHelp(args[1:]))
}

// asksHelp reports whether a command's words ask for its usage.
func asksHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// Exec runs the plain-text command named by the session's first word: a
// session without a terminal, or one whose words are a command
// (IsCommand).
func (a *App) Exec(ctx context.Context, s *server.Session, stdout, stderr io.Writer) int {
	if len(s.Args) == 0 {
		fmt.Fprintf(stderr, "pyramid: this session has no terminal: connect with %s to play, or run a command (help lists them)\n", a.cfg.Connect)
		return 1
	}
	if s.PTY {
		// ssh -t HOST help: the client's terminal is raw, so a line
		// ends in CR LF.
		stdout, stderr = crlfWriter{stdout}, crlfWriter{stderr}
	}
	name := s.Args[0]
	c := &call{a: a, ctx: ctx, s: s, args: s.Args[1:], stdout: stdout, stderr: stderr,
		admin: a.cfg.Admins != nil && !s.Guest() && a.cfg.Admins.IsAdmin(s.Identity)}
	cmd, ok := lookup(name)
	switch {
	case ok && (cmd.terminal() || cmd.screen(c.args) && !asksHelp(c.args) && !(textWithout(cmd.name) && !s.PTY)):
		return c.needsTerminal(cmd)
	case !ok:
		if _, err := engine.ParseRules(name); err == nil {
			return c.fail(fmt.Sprintf("\"%s\" opens a game, which needs a terminal: add -t (ssh -t … %s)", word(name), strings.Join(words(s.Args), " ")))
		}
		return c.fail(fmt.Sprintf("unknown command \"%s\" (help lists the commands)", word(name)))
	case cmd.admin && !c.admin:
		return c.fail(name + " is for the server's admins")
	}
	if cmd.name == "link" && slices.ContainsFunc(c.args, func(a string) bool { return !isFlag(a) }) && a.cfg.Store != nil && !s.Guest() {
		return c.redeem() // a new key: no player of its own needed
	}
	if cmd.needsStore && a.cfg.Store == nil {
		return c.fail("this server keeps no records")
	}
	if cmd.needsStore && s.Guest() && !guestsRead(cmd.name) {
		return c.fail("guests have no records: connect with an SSH key (make one with ssh-keygen -t ed25519)")
	}
	p, _, _, err := a.player(ctx, s)
	if err != nil {
		return c.failErr("", err)
	}
	c.player, c.name = p.ID, p.Name
	return cmd.run(c)
}

// textWithout reports whether a command's words that open a screen with
// a terminal run as text in a session without one, instead of asking for
// -t: arena ID prints the arena; with ssh -t it opens the arena's screen
// (the server hands those words to the TUI, as it does challenge ID).
func textWithout(name string) bool { return name == "arena" }

// guestsRead reports whether guests may run a command that reads the
// store: the public boards (top) and arenas (arenas, arena ID), which
// name nobody's records but what every board shows. arena's words that
// write refuse guests themselves.
func guestsRead(name string) bool { return name == "top" || name == "arenas" || name == "arena" }

// crlfWriter ends lines in CR LF, for a terminal in raw mode.
type crlfWriter struct{ w io.Writer }

func (cw crlfWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(cw.w, strings.ReplaceAll(string(p), "\n", "\r\n")); err != nil {
		return 0, err
	}
	return len(p), nil
}

// isFlag reports whether an argument is a flag.
func isFlag(arg string) bool { return strings.HasPrefix(arg, "-") && arg != "-" }

// fail prints an error and returns exit status 1.
func (c *call) fail(msg string) int {
	fmt.Fprintln(c.stderr, "pyramid: "+msg)
	return 1
}

// needsTerminal answers a screen's words given without a terminal: its
// usage for --help, else how to open it.
func (c *call) needsTerminal(cmd command) int {
	if asksHelp(c.args) {
		fmt.Fprintf(c.stdout, "usage: ssh -t … %s %s\n  %s\n", cmd.name, cmd.usage, cmd.help)
		return 0
	}
	msg := fmt.Sprintf("%s opens a screen, which needs a terminal: add -t (ssh -t … %s)", cmd.name, strings.Join(words(c.s.Args), " "))
	if cmd.name == "race" {
		msg += ", or list the public rooms with rooms"
	}
	return c.fail(msg)
}

// failErr prints why the command failed, err as the player reads it
// (tui.Reason) after prefix, and exits 1; what the player does not read
// of err goes to the log.
func (c *call) failErr(prefix string, err error) int {
	logHidden(c.a.cfg.Logger, "command failed", err, "cmd", c.s.Args[0])
	return c.fail(prefix + tui.Reason(err))
}

// usageErr prints a usage error (the command's usage line) and returns
// exit status 2.
func (c *call) usageErr(msg string) int {
	cmd, _ := lookup(c.s.Args[0])
	fmt.Fprintf(c.stderr, "pyramid: %s\nusage: %s\n", msg, strings.TrimSpace(cmd.name+" "+cmd.usage))
	return 2
}

// flags parses the call's arguments: the named flags and at most maxArgs
// positional words, returned in order. ok is false after a usage error,
// already reported in the same "pyramid:" words as every other error;
// code is then the exit status (0 after --help, 2 otherwise).
func (c *call) flags(maxArgs int, define func(fs *flag.FlagSet)) (args []string, code int, ok bool) {
	cmd, _ := lookup(c.s.Args[0])
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported below, in our words
	define(fs)
	rest := c.args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				c.usage(cmd, fs)
				return nil, 0, false
			}
			msg := err.Error()
			if f, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
				// The flag package names a flag with one dash; help
				// shows two.
				msg = "unknown flag --" + strings.TrimLeft(f, "-")
			}
			if f, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
				msg = "flag needs an argument: --" + strings.TrimLeft(f, "-")
			}
			return nil, c.usageErr(keys.Clean(msg, 200)), false
		}
		if fs.NArg() == 0 {
			break
		}
		args = append(args, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(args) > maxArgs {
		return nil, c.usageErr(fmt.Sprintf("unexpected argument \"%s\"", word(args[maxArgs]))), false
	}
	return args, 0, true
}

// usage prints a command's usage and its flags, for --help.
func (c *call) usage(cmd command, fs *flag.FlagSet) {
	fmt.Fprintf(c.stdout, "usage: %s\n  %s\n", strings.TrimSpace(cmd.name+" "+cmd.usage), cmd.help)
	fs.VisitAll(func(f *flag.Flag) {
		fmt.Fprintf(c.stdout, "  --%s\t%s\n", f.Name, f.Usage)
	})
}

// word cleans one untrusted word for printing. It, words and playerName
// are the commands' one sanitizer: keys.Clean at the widths they print.
func word(s string) string { return keys.Clean(s, 40) }

// words cleans untrusted words for printing.
func words(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = word(w)
	}
	return out
}

// playerName cleans a stored display name for printing.
func playerName(s string) string { return keys.Clean(s, keys.MaxNameWidth) }

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

// helpWidth is the widest help's lines get: an 80-column terminal.
const helpWidth = 78

// help lists the rule sets, the knobs and the commands, all from their
// tables; admin commands only to admins.
func (c *call) help() int {
	var asJSON bool
	if _, code, ok := c.flags(0, jsonFlag(&asJSON)); !ok {
		return code
	}
	if asJSON {
		return c.writeJSON(c.helpReport())
	}
	var knobs []string
	for _, k := range engine.KnobNames() {
		knobs = append(knobs, k+"="+strings.Join(engine.KnobValues(k), "|"))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Pyramid arcade.\n\nPlay:      %s\nDeep link: ssh -t … RULES [DEAL], e.g. ssh -t … classic 42, or ssh -t … daily\n", c.a.cfg.Connect)
	b.WriteString(wrap("RULES:     ", strings.Join(engine.PresetNames(), " ")+", optionally followed by ,knob=value: "+strings.Join(knobs, " ")))
	fmt.Fprintf(&b, "\nCommands (%s COMMAND; --help for a command's flags):\n", c.a.cfg.Connect)
	list := func(admin bool) {
		for _, cmd := range commands() {
			if cmd.admin != admin {
				continue
			}
			use := strings.TrimSpace(cmd.name + " " + cmd.usage)
			if len(use) > 20 {
				b.WriteString(wrap("  ", use))
				use = ""
			}
			b.WriteString(wrap(fmt.Sprintf("  %-20s ", use), cmd.help))
		}
	}
	list(false)
	if c.admin {
		b.WriteString("\nAdmin commands:\n")
		list(true)
	}
	fmt.Fprint(c.stdout, b.String())
	return 0
}

// helpReport is help's --json output: what help lists, from the same
// tables.
type helpReport struct {
	Connect  string              `json:"connect"`
	Rules    []string            `json:"rules"`
	Knobs    map[string][]string `json:"knobs"`
	Commands []helpCommand       `json:"commands"`
}

// helpCommand is one command in help --json.
type helpCommand struct {
	Name  string `json:"name"`
	Usage string `json:"usage"`
	Help  string `json:"help"`
	// Terminal: the command opens a screen, so it needs ssh -t.
	Terminal bool `json:"terminal,omitempty"`
	Admin    bool `json:"admin,omitempty"`
}

// helpReport lists what help prints: admin commands only to admins.
func (c *call) helpReport() helpReport {
	r := helpReport{Connect: c.a.cfg.Connect, Rules: engine.PresetNames(), Knobs: map[string][]string{}}
	for _, k := range engine.KnobNames() {
		r.Knobs[k] = engine.KnobValues(k)
	}
	for _, cmd := range commands() {
		if cmd.admin && !c.admin {
			continue
		}
		r.Commands = append(r.Commands, helpCommand{Name: cmd.name, Usage: cmd.usage, Help: cmd.help, Terminal: cmd.terminal(), Admin: cmd.admin})
	}
	return r
}

// wrap writes text after a lead, in words, over lines of at most
// helpWidth cells, the next lines indented as far as the lead.
func wrap(lead, text string) string {
	indent := strings.Repeat(" ", utf8.RuneCountInString(lead))
	var b strings.Builder
	line := lead
	for i, w := range strings.Fields(text) {
		if i > 0 && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > helpWidth {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = indent
		} else if i > 0 {
			line += " "
		}
		line += w
	}
	return b.String() + line + "\n"
}
