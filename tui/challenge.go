package tui

import (
	"context"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"pyramid/engine"
	"pyramid/lobby"
)

// Challenges lets a player play their one game of a challenge: an
// asynchronous duel on a hidden deal the server picked. Every method may
// wait on the store and is only ever called from a tea.Cmd. Errors are
// meant for the player as they are (not yours, played already, …).
type Challenges interface {
	// Open returns the player's game of the challenge ref names (its
	// number), taken over for this session: a new game at the first
	// opening, the same one after that, and an error once it is over
	// (one attempt each) or the challenge is not open for play. The
	// table saves it through Games like any game.
	Open(ctx context.Context, ref string) (SavedGame, error)
	// Offer challenges the player called name to a deal of r the server
	// picks (the Lobby's c, the daily board's) and returns what to tell
	// the player.
	Offer(ctx context.Context, name string, r engine.Rules) (string, error)
}

// challengeUndo is where a challenge's table says undo is limited, as a
// race's: removals only, never a draw or a redeal.
const challengeUndo = "a challenge"

// challengeArgs reads the deep link `challenge ID`: ok is false when args
// are not one.
func challengeArgs(args []string) (ref string, ok bool) {
	if len(args) != 2 || !strings.EqualFold(args[0], "challenge") {
		return "", false
	}
	return strings.TrimSpace(args[1]), true
}

// challengeLink takes `challenge ID` at the start of the session: the
// dealing screen shows until the game comes (Init asks for it).
func (m *Model) challengeLink(ref string) {
	if m.env.challenges == nil || !m.env.persist() {
		m.menu().say(sErr, "this server keeps no challenges for you: connect with an SSH key")
		return
	}
	m.dealReq++
	m.challengeRef = ref
	d := m.screens[screenDealing].(*dealingScreen)
	d.text = "Fetching your challenge" + m.env.gl.ell
	m.show(screenDealing)
}

// challengeOpen asks for the game of the challenge the deep link named;
// it comes as a resumed game that is a challenge's.
func (m *Model) challengeOpen() tea.Cmd {
	if m.challengeRef == "" {
		return nil
	}
	req, ref, ch, ctx := m.dealReq, m.challengeRef, m.env.challenges, m.env.ctx
	m.challengeRef = ""
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, loadTimeout)
		defer cancel()
		sg, err := ch.Open(ctx, ref)
		return resumedMsg{req: req, game: sg, err: err, challenge: ref}
	}
}

// challengeTable makes the seated table a challenge's: no hints, no
// "tell me when a deal can no longer be won", undo of removals only, and
// the deal hidden until the challenge is over (not only the player's
// game), as a racer's.
func (t *tableScreen) challengeTable(ref string) {
	t.undoLimit, t.noHints, t.challenge = challengeUndo, true, ref
	t.setLive(false) // lost.go: no solver's word while it is played
	t.raceTable, t.raceOver = true, false
	t.say(sInfo, "challenge "+ref+": one attempt · no hints · undo: removals only")
}

// challengeOfferedMsg brings what became of a challenge offered from a
// screen's line of a player (the Lobby's, the daily board's): the words
// to show, or why not.
type challengeOfferedMsg struct {
	screen screenID
	text   string
	err    error
}

func (m challengeOfferedMsg) to() screenID { return m.screen }

// challengeAskMsg: a screen's line of a player (the Lobby's, the daily
// board's) asks to challenge them. The root offers it on the rules of
// the player's last game (the menu's), as a new race room is.
type challengeAskMsg struct {
	screen screenID
	name   string
}

// offerChallenge challenges the player called name to a deal of r from
// screen, in a command: the server deals and stores the challenge, which
// takes the solver a moment. The screen says what became of it (said).
func offerChallenge(e *env, screen screenID, name string, r engine.Rules) tea.Cmd {
	ch, ctx := e.challenges, e.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, loadTimeout)
		defer cancel()
		text, err := ch.Offer(ctx, name, r)
		return challengeOfferedMsg{screen: screen, text: text, err: err}
	}
}

// said shows on a screen's message line what became of a challenge.
func (c *chrome) said(msg challengeOfferedMsg) {
	if msg.err != nil {
		c.say(sErr, clean(Reason(msg.err), 200))
		return
	}
	c.say(sOK, clean(msg.text, 200))
}

// canChallenge reports whether the Lobby's cursor is on a player the
// player may challenge: one with a key, not themselves, on a server that
// keeps challenges.
func (l *lobbyScreen) canChallenge() bool {
	if l.env.challenges == nil || l.env.player.Guest || l.cur >= len(l.who) {
		return false
	}
	p := l.who[l.cur]
	return !p.Guest && p.ID != "" && !l.isYou(p)
}

// offer challenges p from the Lobby.
func (l *lobbyScreen) offer(p lobby.Presence) tea.Cmd {
	l.say(sInfo, "challenging "+clean(p.Name, 16)+l.env.gl.ell)
	l.event = challengeAskMsg{screen: screenLobby, name: p.Name}
	return nil
}
