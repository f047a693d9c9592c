package tui

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// linkCodeMsg brings a new link code, and the clock's reading when it
// came, to say how long the code lasts.
type linkCodeMsg struct {
	req     int
	code    string
	expires time.Time
	now     time.Time
	err     error
}

// linkScreen shows a one-time code that links another SSH key to the
// player, how long it lasts and the exact command to run with that key.
// While it shows, it looks at the player's keys every few seconds: once
// a new one is there, the code was used, and the screen says so.
type linkScreen struct {
	chrome
	name    string
	req     int // of the latest request; older answers are dropped
	loading bool
	code    string
	expires time.Time
	now     time.Time
	// known are the player's keys when the code came (nil until the
	// first look); linked is the key that used the code, once seen.
	known   map[string]bool
	linked  string
	showing bool
	renew   key.Binding
	back    key.Binding
	bar     *helpBar
}

// linkPollMsg asks the link screen to look at the player's keys again;
// linkKeysMsg brings them, with the clock's reading.
type (
	linkPollMsg struct{ req int }
	linkKeysMsg struct {
		req  int
		keys []KeyInfo
		now  time.Time
		err  error
	}
)

func (linkPollMsg) to() screenID { return screenLink }
func (linkKeysMsg) to() screenID { return screenLink }

// linkPoll is the time between two looks at the player's keys.
const linkPoll = 3 * time.Second

// look reads the player's keys and the clock, in a command.
func (l *linkScreen) look() tea.Cmd {
	e, req := l.env, l.req
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(e.ctx, loadTimeout)
		defer cancel()
		ks, err := e.account.Keys(ctx, e.player.ID)
		return linkKeysMsg{req: req, keys: ks, now: e.now(), err: err}
	}
}

// looked takes the player's keys: the first look is what there was
// before the code; a key beyond those used it.
func (l *linkScreen) looked(msg linkKeysMsg) tea.Cmd {
	if msg.req != l.req || l.code == "" || l.linked != "" {
		return nil
	}
	if !msg.now.IsZero() {
		l.now = msg.now
	}
	if msg.err == nil {
		if l.known == nil {
			l.known = map[string]bool{}
			for _, k := range msg.keys {
				l.known[k.Fingerprint] = true
			}
		} else {
			for _, k := range msg.keys {
				if !l.known[k.Fingerprint] {
					l.linked = clean(k.Fingerprint, 60)
					return nil
				}
			}
		}
	}
	if !l.showing || !l.now.Before(l.expires) {
		return nil
	}
	return l.env.after(linkPoll, linkPollMsg{req: l.req})
}

// newLinkScreen builds the screen; open shows it and asks for a code.
func newLinkScreen(e *env, w, h int) *linkScreen {
	return &linkScreen{
		chrome: chrome{env: e, w: w, h: h},
		renew:  key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new code")),
		back:   key.NewBinding(key.WithKeys("q", "esc"), key.WithHelp("q", "menu")),
		bar:    newHelpBar(),
	}
}

// open shows the screen for the player called name and asks for a code.
func (l *linkScreen) open(name string) tea.Cmd {
	l.name = name
	l.code = ""
	l.showing = true
	return l.load()
}

// load asks the account for a new code, in a command that also reads
// the clock.
func (l *linkScreen) load() tea.Cmd {
	if l.code != "" && l.linked == "" {
		l.msg, l.msgSt = "the old code "+l.code+" no longer works: the new one replaces it", sInfo
	} else {
		l.msg = ""
	}
	l.req++
	l.loading = true
	l.known, l.linked = nil, ""
	e, req := l.env, l.req
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(e.ctx, loadTimeout)
		defer cancel()
		code, exp, err := e.account.LinkCode(ctx, e.player.ID)
		return linkCodeMsg{req: req, code: code, expires: exp, now: e.now(), err: err}
	}
}

// loaded takes the account's answer.
func (l *linkScreen) loaded(msg linkCodeMsg) {
	if msg.req != l.req {
		return
	}
	l.loading = false
	if msg.err != nil {
		l.code = ""
		l.msg, l.msgSt = clean("could not make a link code: "+Reason(msg.err), 200), sErr
		return
	}
	l.code, l.expires, l.now = formatCode(clean(msg.code, 40)), msg.expires, msg.now
}

// formatCode writes an eight-character code in two groups, as the
// server's commands do ("ABCD-EFGH"); the server reads it either way.
func formatCode(c string) string {
	if len(c) == 8 && !strings.ContainsAny(c, "- ") {
		return c[:4] + "-" + c[4:]
	}
	return c
}

// Update asks for a new code or goes back.
func (l *linkScreen) update(msg tea.Msg) tea.Cmd {
	switch r := msg.(type) {
	case linkCodeMsg:
		l.loaded(r)
		if l.code == "" || l.env.account == nil {
			return nil
		}
		return l.look()
	case linkPollMsg:
		if r.req != l.req || !l.showing || l.linked != "" {
			return nil
		}
		return l.look()
	case linkKeysMsg:
		return l.looked(r)
	}
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, l.renew) && !l.loading:
		return l.load()
	case key.Matches(k, l.back):
		l.showing = false
		l.event = backMsg{}
	}
	return nil
}

// connectCommand is the command that reaches this server.
func connectCommand(e *env) string {
	c := clean(e.connect, 200)
	if c == "" {
		c = "ssh HOST"
	}
	return c
}

// View draws the screen, exactly h lines.
func (l *linkScreen) view() string {
	e := l.env
	pal := e.pal
	var body []string
	switch {
	case l.loading:
		body = append(body, "", "    asking for a link code"+e.gl.ell)
	case l.linked != "":
		ok := "✓ "
		if !e.gl.unicode {
			ok = ""
		}
		body = append(body,
			"",
			"    "+pal.style(sOK, ok+"Linked "+shortFP(l.linked, e.gl)),
			"    The code "+l.code+" was used: that key plays as "+clean(l.name, maxNameCells)+" now.",
			"",
			pal.style(sDim, "    Your keys… in the menu lists your keys and unlinks one."))
	case l.code != "":
		left := int(math.Ceil(l.expires.Sub(l.now).Minutes()))
		valid := "It works once, until " + l.expires.UTC().Format("15:04") + " UTC (" +
			strconv.Itoa(left) + plural(left, " minute", " minutes") + " from now)."
		if left <= 0 {
			valid = "It has expired: press n for a new one."
		}
		body = append(body,
			"",
			"    Your link code:  "+pal.style(sTitle, l.code),
			"    "+valid,
			"",
			"    On the machine with the other SSH key, run:",
			"")
		for _, line := range wrapWords(connectCommand(e)+" link "+l.code, l.w-7) {
			body = append(body, "      "+pal.style(sBold, line))
		}
		body = append(body,
			"",
			"    Or connect with that key and choose Use a link code in its menu.",
			"    That key then plays as "+clean(l.name, maxNameCells)+", with the same stats and games.",
			pal.style(sDim, "    Keep the code to yourself: whoever runs that command plays as you."))
	}
	l.renew.SetEnabled(!l.loading)
	return drawPage(e, l.w, l.h, "Pyramid Solitaire"+e.gl.sep+"link another key", identity(e, l.name), body,
		l.msg, l.msgSt, l.bar, []key.Binding{l.renew, l.back})
}
