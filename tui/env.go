package tui

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"io"
	"time"

	"pyramid/engine"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// env is what every screen of a session shares and never changes: the
// dependencies and the session's drawing tools. It is built by New, and
// again by Model.setGlyphs when the player switches between suit
// symbols and letters: the models Bubble Tea holds keep theirs.
type env struct {
	now    func() time.Time
	rand   io.Reader // Deps.Rand
	ctx    context.Context
	solver Solver
	games  Games
	player Player
	// renderer is the session's lipgloss renderer, for the lipgloss
	// styles left: the name form's text input.
	renderer *lipgloss.Renderer
	// pal and gl are shared with every session of the same colour
	// profile and character set: they are read-only.
	pal *palette
	gl  *glyphs
	// translate maps messages from outside (Deps.Translate), or is nil.
	translate func(tea.Msg) tea.Msg
	// account is the player's account (Deps.Account), or nil.
	account Account
	// connect is how players connect (Deps.Connect).
	connect string
	// inbox carries messages from the server (Deps.Inbox), or is nil.
	inbox Inbox
	// lobby is the session's lobby (Deps.Lobby), or nil.
	lobby Lobby
	// races are the server's race rooms (Deps.Races), or nil.
	races Races
	// ghosts are the recorded games to race (Deps.Ghosts), or nil.
	ghosts Ghosts
	// challenges are the player's challenges to play (Deps.Challenges),
	// or nil.
	challenges Challenges
	// arenas are the server's arenas (Deps.Arenas), or nil.
	arenas Arenas
	// watchStep is the time between two moves when the watch screen
	// plays the solver's line by itself (watchStep; tests shorten it).
	watchStep time.Duration
	// saveStop ends when a shutdown stops the save in flight
	// (stopSaves).
	saveStop  context.Context
	stopSaves context.CancelFunc
	// wait returns a command that brings read's message once d has
	// passed (Deps.After, or tick; tests replace it).
	wait func(d time.Duration, read func() tea.Msg) tea.Cmd
	// await returns a command that brings read's message once notify
	// says so (Deps.Await, or waitIn).
	await func(notify func(ready func()) bool, read func() tea.Msg) tea.Cmd
}

// after returns a command that brings msg once d has passed.
func (e *env) after(d time.Duration, msg tea.Msg) tea.Cmd {
	return e.wait(d, func() tea.Msg { return msg })
}

// tick is env.wait as Bubble Tea does it: a goroutine waits.
func tick(d time.Duration, read func() tea.Msg) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return read() })
}

// waitIn is env.await with a goroutine that waits: the command reads,
// and read waits.
func waitIn(_ func(ready func()) bool, read func() tea.Msg) tea.Cmd { return read }

// inboxMsg is a message that came through the inbox.
type inboxMsg struct{ msg tea.Msg }

// FrameGap is the least time between the last frame and the frame after
// the message (server.FrameGapper: the session's renderer asks): a
// room's events that only
// change what the race panel, the chat or the room's line show are drawn
// at most once per raceEventGap; everything else as soon as it comes.
func (msg inboxMsg) FrameGap() time.Duration {
	if batch, ok := msg.msg.(InboxBatch); ok {
		for _, m := range batch {
			if !slackEvent(m) {
				return 0
			}
		}
		return raceEventGap
	}
	if slackEvent(msg.msg) {
		return raceEventGap
	}
	return 0
}

// waitInbox returns the command that brings the next inbox message, or
// nil without an inbox. It gives up when the session ends.
func (e *env) waitInbox() tea.Cmd {
	if e.inbox == nil {
		return nil
	}
	in, ctx := e.inbox, e.ctx
	return e.await(in.Notify, func() tea.Msg {
		msg, err := in.Next(ctx)
		if err != nil {
			return nil
		}
		return inboxMsg{msg}
	})
}

// Time limits of the calls made in tea.Cmds.
const (
	saveTimeout  = 10 * time.Second
	loadTimeout  = 10 * time.Second
	hintTimeout  = 3 * time.Second
	dealTimeout  = 10 * time.Second
	dailyTimeout = 10 * time.Second
	// solveTimeout bounds the question whether a deal could be won, and
	// the one for its winning line, asked when a game ends.
	solveTimeout = 10 * time.Second
)

// watchStep is the time between two moves of the solver's line when the
// watch screen plays it by itself.
const watchStep = 600 * time.Millisecond

// accounts reports whether the session shows the player's account:
// stats, the daily board, the name and linking keys.
func (e *env) accounts() bool {
	return e.account != nil && !e.player.Guest && e.player.ID != ""
}

// persist reports whether games are stored for this session.
func (e *env) persist() bool { return e.games != nil && !e.player.Guest && e.player.ID != "" }

// clockMsg carries the time, read in a tea.Cmd, to whoever asked for it.
type clockMsg struct {
	token int
	what  clockWhat
	now   time.Time
}

// clockWhat says why the time was read.
type clockWhat uint8

const (
	clockStart clockWhat = iota // a game's play starts now
	clockWon                    // the game was just won
	clockSeed                   // the session's seed for new deal numbers
)

// drawDeal draws a deal number for the server to pick (engine.DrawDeal).
// It runs in a tea.Cmd, never in Update.
func (e *env) drawDeal() uint64 { return engine.DrawDeal(e.rand) }

// dealSeedMsg carries the session's secret seed of new deal numbers, read
// in a tea.Cmd at its start.
type dealSeedMsg struct{ seed [32]byte }

// readDealSeed returns a command that reads the session's deal seed from
// Deps.Rand (crypto/rand when nil or when it fails).
func (e *env) readDealSeed() tea.Cmd {
	return func() tea.Msg {
		var msg dealSeedMsg
		r := e.rand
		if r == nil {
			r = rand.Reader
		}
		if _, err := io.ReadFull(r, msg.seed[:]); err != nil {
			_, _ = rand.Read(msg.seed[:]) // crypto/rand.Read never fails on supported systems
		}
		return msg
	}
}

// seededDeal is the n-th new deal number of a session whose secret seed
// is seed: one-way (SHA-256), so that a deal shown after its game tells
// nothing of the next one, and made in Update without a round trip
// through a command (keys typed meanwhile would be lost).
func seededDeal(seed [32]byte, n int) uint64 {
	h := sha256.New()
	h.Write(seed[:])
	h.Write(binary.BigEndian.AppendUint64(nil, uint64(n)))
	var b [8]byte
	copy(b[:], h.Sum(nil))
	return engine.DealOf(b)
}

// readClock returns a command that reads the clock.
func (e *env) readClock(token int, what clockWhat) tea.Cmd {
	return func() tea.Msg { return clockMsg{token: token, what: what, now: e.now()} }
}
