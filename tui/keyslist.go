package tui

import (
	"context"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// keysMsg brings the player's keys, read through Account.Keys.
type keysMsg struct {
	req  int
	keys []KeyInfo
	err  error
}

// unlinkedMsg is the account's answer to an unlink.
type unlinkedMsg struct {
	fp  string
	err error
}

func (keysMsg) to() screenID     { return screenKeys }
func (unlinkedMsg) to() screenID { return screenKeys }

// keysScreen lists the player's SSH keys and unlinks one (a lost
// laptop's): every key but the session's own.
type keysScreen struct {
	chrome
	name    string
	req     int
	loading bool
	keys    []KeyInfo
	cur     int
	// asking is the fingerprint the screen asks about unlinking.
	asking  string
	pending bool
	up      key.Binding
	down    key.Binding
	unlink  key.Binding
	reload  key.Binding
	back    key.Binding
	bar     *helpBar
}

// newKeysScreen builds the screen; open shows and loads it.
func newKeysScreen(e *env, w, h int) *keysScreen {
	upDown := "↑/↓"
	if !e.gl.unicode {
		upDown = "up/down"
	}
	return &keysScreen{
		chrome: chrome{env: e, w: w, h: h},
		up:     key.NewBinding(key.WithKeys("up", "k", "w"), key.WithHelp(upDown, "key")),
		down:   key.NewBinding(key.WithKeys("down", "j", "s", "tab")),
		unlink: key.NewBinding(key.WithKeys("u", "x", "delete"), key.WithHelp("u", "unlink")),
		reload: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload")),
		back:   key.NewBinding(key.WithKeys("q", "esc"), key.WithHelp("q", "menu")),
		bar:    newHelpBar(),
	}
}

// open shows the screen for the player called name and loads the keys.
func (s *keysScreen) open(name string) tea.Cmd {
	s.name, s.asking, s.msg = name, "", ""
	return s.load()
}

// load asks the account for the keys, in a command.
func (s *keysScreen) load() tea.Cmd {
	s.req++
	s.loading = true
	acc, player, ctx, req := s.env.account, s.env.player.ID, s.env.ctx, s.req
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, loadTimeout)
		defer cancel()
		ks, err := acc.Keys(ctx, player)
		return keysMsg{req: req, keys: ks, err: err}
	}
}

// update moves through the keys, asks before unlinking one, reloads or
// goes back.
func (s *keysScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case keysMsg:
		if msg.req == s.req {
			s.loading = false
			if msg.err != nil {
				s.msg, s.msgSt = clean("could not list your keys: "+Reason(msg.err), 200), sErr
				return nil
			}
			s.keys = msg.keys
			s.cur = max(0, min(s.cur, len(s.keys)-1))
		}
		return nil
	case unlinkedMsg:
		s.pending = false
		if msg.err != nil {
			s.msg, s.msgSt = clean("not unlinked: "+Reason(msg.err), 200), sErr
			return nil
		}
		s.msg, s.msgSt = "unlinked "+shortFP(msg.fp, s.env.gl)+": that key no longer plays as you", sOK
		return s.load()
	case tea.KeyMsg:
		return s.key(msg)
	}
	return nil
}

// key handles a key press.
func (s *keysScreen) key(k tea.KeyMsg) tea.Cmd {
	if s.asking != "" {
		fp := s.asking
		s.asking, s.msg = "", ""
		if k.String() != "y" && k.String() != "Y" {
			return nil
		}
		s.pending = true
		s.msg, s.msgSt = "unlinking"+s.env.gl.ell, sInfo
		acc, player, ctx := s.env.account, s.env.player.ID, s.env.ctx
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(ctx, saveTimeout)
			defer cancel()
			got, err := acc.Unlink(ctx, player, fp)
			if got == "" {
				got = fp
			}
			return unlinkedMsg{fp: got, err: err}
		}
	}
	switch {
	case key.Matches(k, s.up) && len(s.keys) > 0:
		s.cur = (s.cur + len(s.keys) - 1) % len(s.keys)
	case key.Matches(k, s.down) && len(s.keys) > 0:
		s.cur = (s.cur + 1) % len(s.keys)
	case key.Matches(k, s.reload) && !s.loading:
		return s.load()
	case key.Matches(k, s.unlink) && len(s.keys) > 0 && !s.pending:
		ki := s.keys[s.cur]
		if ki.This {
			s.msg, s.msgSt = "that is the key of this session: connect with another of your keys to unlink it", sErr
			return nil
		}
		s.asking = ki.Fingerprint
		s.msg, s.msgSt = clean("unlink "+shortFP(ki.Fingerprint, s.env.gl)+"? it then plays as a new player · y: yes, any other key: no", 200), sWarn
	case key.Matches(k, s.back):
		s.event = backMsg{}
	}
	return nil
}

// keyFacts is the second line of a key: its type, when it was added and
// when it last connected, each that is known.
func keyFacts(k KeyInfo, sep string) string {
	var parts []string
	if k.Type != "" {
		parts = append(parts, clean(strings.TrimPrefix(k.Type, "ssh-"), 20))
	}
	if !k.Added.IsZero() {
		parts = append(parts, "added "+k.Added.UTC().Format("2006-01-02"))
	}
	if !k.LastUsed.IsZero() {
		parts = append(parts, "last used "+k.LastUsed.UTC().Format("2006-01-02 15:04")+" UTC")
	}
	return strings.Join(parts, sep)
}

// shortFP is a fingerprint cut to what tells keys apart on a screen.
func shortFP(fp string, gl *glyphs) string {
	fp = clean(fp, 60)
	if strings.HasPrefix(fp, "SHA256:") && len(fp) > 7+16 {
		return fp[:7+16] + gl.ell
	}
	return fp
}

// view draws the screen, exactly h lines.
func (s *keysScreen) view() string {
	e := s.env
	pal := e.pal
	body := []string{""}
	switch {
	case s.loading && len(s.keys) == 0:
		body = append(body, "    listing your keys"+e.gl.ell)
	case len(s.keys) > 0:
		body = append(body, "    The SSH keys that play as "+clean(s.name, maxNameCells)+":", "")
		for i, k := range s.keys {
			mark := "    "
			if i == s.cur {
				mark = "  > "
			}
			line := shortFP(k.Fingerprint, e.gl)
			if k.Label != "" {
				line += strings.Repeat(" ", max(1, 26-cells(line))) + clean(k.Label, 24)
			}
			if k.This {
				line += e.gl.sep + "this key"
			}
			if i == s.cur {
				line = pal.style(sMenuCur, line)
			}
			body = append(body, mark+line, pal.style(sDim, "      "+keyFacts(k, e.gl.sep)))
		}
		body = append(body, "", pal.style(sDim, cut("    Unlink a lost laptop's key: u, then y. Name a key: label FINGERPRINT NAME.", s.w-1, e.gl.ell)))
	}
	s.unlink.SetEnabled(len(s.keys) > 1 && !s.pending)
	return drawPage(e, s.w, s.h, "Pyramid Solitaire"+e.gl.sep+"your keys", identity(e, s.name), body,
		s.msg, s.msgSt, s.bar, []key.Binding{s.up, s.unlink, s.reload, s.back})
}
