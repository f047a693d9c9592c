package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/engine"
	"pyramid/server/sshtest"
)

// player is one racer: an SSH key, the local address it connects from
// (never the balancer's: an instance refuses a connection from there
// without a PROXY header), its terminal on the instance it plays on, and
// the engine's copy of its race game, which its board must show.
type player struct {
	name   string
	key    gossh.Signer
	from   string
	wait   time.Duration
	on     string // the instance it plays on, for the messages
	client *gossh.Client
	term   *sshtest.Term
	game   *engine.Game
}

// open connects the player to the instance at addr (called name) and runs
// cmd with a terminal, as ssh -t does.
func (p *player) open(name, addr, cmd string) error {
	p.close()
	client, err := dial(addr, p.from, p)
	if err != nil {
		return fmt.Errorf("%s: connect to instance %s: %w", p.name, name, err)
	}
	term, err := sshtest.StartTerm(client, sshtest.TermOptions{Command: cmd})
	if err != nil {
		_ = client.Close()
		return fmt.Errorf("%s: %q on instance %s: %w", p.name, cmd, name, err)
	}
	p.client, p.term, p.on = client, term, name
	return nil
}

// dial connects to addr from the address from as p (p's key, and p's
// name as the SSH user name, which names a new player). An address's
// connection just closed may hold its place on the server a moment
// longer: when refused for that, it tries again, a few times 100 ms
// apart (few: each refusal adds to the address's penalty, --penalties).
func dial(addr, from string, p *player) (*gossh.Client, error) {
	client, err := sshtest.DialFromConfig(addr, from, sshtest.ClientConfig(p.name, p.key))
	for try := 0; try < 5 && err != nil && strings.Contains(err.Error(), "Too many connections from your address"); try++ {
		time.Sleep(100 * time.Millisecond)
		client, err = sshtest.DialFromConfig(addr, from, sshtest.ClientConfig(p.name, p.key))
	}
	return client, err //nolint:wrapcheck // the callers say what
}

// close ends the player's connection, if any.
func (p *player) close() {
	if p.term != nil {
		_ = p.term.Close()
	}
	if p.client != nil {
		_ = p.client.Close()
	}
	p.term, p.client = nil, nil
}

// typeKeys types keys on the player's terminal.
func (p *player) typeKeys(keys string) error {
	if err := p.term.Type(keys); err != nil {
		return fmt.Errorf("%s: type %q: %w", p.name, keys, err)
	}
	return nil
}

// waitScreen polls the player's screen until cond holds on two reads at
// least 20 ms apart (a frame comes in several writes: a screen read
// between two is half old, half new), and returns it; it fails after
// p.wait, naming what it waited for and showing the last screen.
func (p *player) waitScreen(what string, cond func(screen string) bool) (string, error) {
	var screen string
	held := time.Time{}
	ok := sshtest.Poll(p.wait, func() bool {
		screen = p.term.Screen()
		if !cond(screen) {
			held = time.Time{}
			return false
		}
		if held.IsZero() {
			held = time.Now()
		}
		return time.Since(held) >= 20*time.Millisecond
	})
	if !ok {
		return screen, fmt.Errorf("%s's screen (on instance %s) did not show %s within %s; it shows:\n%s", p.name, p.on, what, p.wait, screen)
	}
	return screen, nil
}

// waitFor waits until the player's screen contains want.
func (p *player) waitFor(want string) (string, error) {
	return p.waitScreen(strconv.Quote(want), func(s string) bool { return strings.Contains(s, want) })
}

// header is what a board's first line says of the position.
type header struct {
	Pass, Removed, Total, Moves int
	Status                      string // "", "won" or "lost"
}

var headerRE = regexp.MustCompile(`pass (\d+)/\S+ · (\d+)/(\d+) removed · (\d+) moves?(?: · (won|lost))?`)

// readHeader finds the board's header on the first line of a screen.
func readHeader(screen string) (header, bool) {
	first, _, _ := strings.Cut(screen, "\n")
	m := headerRE.FindStringSubmatch(first)
	if m == nil {
		return header{}, false
	}
	n := func(s string) int { v, _ := strconv.Atoi(s); return v }
	return header{Pass: n(m[1]), Removed: n(m[2]), Total: n(m[3]), Moves: n(m[4]), Status: m[5]}, true
}

// headerOf is the header g's position shows.
func headerOf(g *engine.Game) header {
	h := header{Pass: g.Pass(), Removed: g.Removed(), Total: g.Rules().PyramidSize(), Moves: g.MovesMade()}
	switch g.Status() {
	case engine.Won:
		h.Status = "won"
	case engine.Lost:
		h.Status = "lost"
	}
	return h
}

func (h header) String() string {
	s := fmt.Sprintf("pass %d · %d/%d removed · %d moves", h.Pass, h.Removed, h.Total, h.Moves)
	if h.Status != "" {
		s += " · " + h.Status
	}
	return s
}

// waitPosition waits until the player's board shows its game's position.
func (p *player) waitPosition() error {
	want := headerOf(p.game)
	_, err := p.waitScreen("the board's header "+want.String(), func(s string) bool {
		h, ok := readHeader(s)
		return ok && h == want
	})
	return err
}

// play types moves at the ":" prompt, eight at a time, each batch once
// the board shows the one before; the last batch is not waited for when
// it ends the race (the results replace the board).
func (p *player) play(moves []string, endsRace bool) error {
	for len(moves) > 0 {
		n := min(8, len(moves))
		if err := p.typeKeys(":" + strings.Join(moves[:n], " ") + "\r"); err != nil {
			return err
		}
		for _, m := range moves[:n] {
			if err := p.game.ApplyNotation(m); err != nil {
				return fmt.Errorf("%s: the engine refuses %s: %w", p.name, m, err)
			}
		}
		moves = moves[n:]
		if len(moves) > 0 || !endsRace {
			if err := p.waitPosition(); err != nil {
				return err
			}
		}
	}
	return nil
}

// panelRE reads a racer's line of the race panel: cards removed out of
// the pyramid's, moves, pass, state.
func panelRE(name string) *regexp.Regexp {
	return regexp.MustCompile(regexp.QuoteMeta(name) + ` +(\d+)/\d+ +(\d+) mv p\d+ (\S+)`)
}

// waitProgress waits until the player's race panel shows other's
// progress as other's own board has it.
func (p *player) waitProgress(other *player) (string, error) {
	re := panelRE(other.name)
	removed, moves := other.game.Removed(), other.game.MovesMade()
	what := fmt.Sprintf("%s at %d removed, %d moves in the panel", other.name, removed, moves)
	screen, err := p.waitScreen(what, func(s string) bool {
		m := re.FindStringSubmatch(s)
		return m != nil && m[1] == strconv.Itoa(removed) && m[2] == strconv.Itoa(moves)
	})
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(re.FindString(screen)), nil
}

// command runs a plain-text command as p, without a terminal, on the
// instance at addr, connecting from the address from, and returns its
// standard output; a non-zero exit status is an error with its standard
// error.
func command(addr, from string, p *player, cmd string) (string, error) {
	client, err := dial(addr, from, p)
	if err != nil {
		return "", fmt.Errorf("%s: %w", cmd, err)
	}
	defer client.Close()
	sess, err := client.NewSession()
	if err != nil {
		return "", fmt.Errorf("%s: %w", cmd, err)
	}
	defer sess.Close()
	var out, errOut bytes.Buffer
	sess.Stdout, sess.Stderr = &out, &errOut
	if err := sess.Run(cmd); err != nil {
		var exit *gossh.ExitError
		if errors.As(err, &exit) {
			return out.String(), fmt.Errorf("%s: exit status %d: %s", cmd, exit.ExitStatus(), strings.TrimSpace(errOut.String()))
		}
		return out.String(), fmt.Errorf("%s: %w", cmd, err)
	}
	return out.String(), nil
}

// commandJSON runs a command's --json form and decodes what it prints
// into v.
func commandJSON(addr, from string, p *player, cmd string, v any) error {
	out, err := command(addr, from, p, cmd)
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		return fmt.Errorf("%s: %w in %q", cmd, err, out)
	}
	return nil
}

// The --json lines the rehearsal reads (arcade/cmd_*.go).
type (
	roomJSON struct {
		Code    string `json:"code"`
		Phase   string `json:"phase"`
		Players int    `json:"players"`
		Host    string `json:"host"`
		Rated   bool   `json:"rated"`
	}
	whoJSON struct {
		Name    string `json:"name"`
		Doing   string `json:"doing"`
		Room    string `json:"room"`
		Removed *int   `json:"removed"`
	}
	gameJSON struct {
		ID     int64    `json:"id"`
		Rules  string   `json:"rules"`
		Deal   uint64   `json:"deal,string"`
		Status string   `json:"status"`
		Kind   string   `json:"kind"`
		Moves  []string `json:"moves"`
	}
	statsJSON struct {
		Rules string `json:"rules"`
		Race  *struct {
			Races   int `json:"races"`
			Unrated int `json:"unrated"`
		} `json:"race"`
	}
)

// readKey reads an SSH private key file.
func readKey(path string) (gossh.Signer, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	signer, err := gossh.ParsePrivateKey(pem)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return signer, nil
}

// newKey returns a fresh ed25519 key as an SSH signer.
func newKey() gossh.Signer {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		panic(err)
	}
	return signer
}
