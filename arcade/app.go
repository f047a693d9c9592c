package arcade

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/log"

	"pyramid/budget"
	"pyramid/bus"
	"pyramid/cluster"
	"pyramid/engine"
	"pyramid/games"
	"pyramid/keys"
	"pyramid/lobby"
	"pyramid/race"
	"pyramid/server"
	"pyramid/store"
	"pyramid/tui"
)

// Config is what the arcade needs from the world.
type Config struct {
	// Store keeps players, games and results; nil keeps nothing (every
	// player plays as if a guest).
	Store store.Store
	// Admins are the keys that may rename and ban players; nil means none.
	Admins *keys.Admins
	// Solver, when set, enables winnable deals, solver hints and the
	// solver's daily deal.
	Solver tui.Solver
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives session events; nil means log.Default().
	Logger *log.Logger
	// Connect is the command players connect with, for the hints the
	// arcade prints, e.g. "ssh -p 23234 games.example.org".
	Connect string

	// Race rooms (arcade/race.go).
	// MaxRooms is the most race rooms open at once (--max-rooms);
	// lobby.DefaultMaxRooms when 0.
	MaxRooms int
	// MaxRoomsPerAddress is the most open rooms opened from one address
	// (--max-rooms-per-address); a quarter of MaxRooms when 0.
	MaxRoomsPerAddress int
	// Bus, when set, joins this server to the other servers on it (the
	// PostgreSQL bus when they share a PostgreSQL): a takeover of a game
	// tells the player's sessions on every server at once, and who lists
	// every server's players. nil: this server is alone, and its race
	// rooms run over a bus of its own, in memory.
	Bus bus.Bus
	// Instance names this server on the bus and in the keys of the races
	// it stores; empty: a random name, new at each start (a restarted
	// server is a new one to the others).
	Instance string
	// Cluster tunes presence across servers (heartbeats, time to live).
	Cluster cluster.PresenceConfig
	// Lease, with Bus, makes the race rooms the cluster's: the servers on
	// the bus share them, and the lease's holder runs their clock. DBNow
	// is the cluster's clock (the database's). nil: the server's rooms are
	// its own (over a bus and a lease in memory).
	Lease cluster.Lease
	DBNow func(ctx context.Context) (time.Time, error)
	// LeaseTTL is the lease's time to live (cluster.DefaultLeaseTTL when 0).
	LeaseTTL time.Duration
	// SeatGrace is how long a racer whose server died keeps their seat
	// (lobby.DefaultSeatGrace when 0).
	SeatGrace time.Duration
	// Trace, when set, times the rooms' progress from the other servers
	// (cluster.RoomsConfig.Trace; a debugging aid).
	Trace *bus.Trace
	// Budgets hold what each address and account may do (arcade/budget.go);
	// nil: the defaults of package budget.
	Budgets *budget.Budgets
}

// App implements server.App.
type App struct {
	cfg   Config
	lobby *lobby.Lobby

	// The lobby across servers (package cluster), on a bus; nil: this
	// server's only (or it could not join).
	takeovers  *cluster.Takeovers
	presence   *cluster.Presence
	spectating *cluster.Spectating

	// Race rooms (arcade/race.go); the Lobby screen lists the public ones
	// (presence.go).
	rooms *cluster.Rooms
	// seeded is the arenas whose stored standings this server gave its
	// rooms (arena.go), under arenaMu.
	arenaMu sync.Mutex
	seeded  map[int64]bool
	// deals is the arenas' races' deals, found ahead (dealpool.go);
	// stopDeals ends their search at Close.
	deals     *dealPool
	stopDeals context.CancelFunc
	race      *race.Service
	instance  string

	// Account events (moderation.go): this server's sessions of players
	// with keys, the events' subscription, and the bus in memory it is
	// on when this server is alone.
	live     liveSessions
	accounts *cluster.Accounts
	ownBus   bus.Bus

	// budgets hold what each address and account may do (budget.go).
	budgets *budget.Budgets

	// guestRand draws guest names (guest.go); crypto/rand when nil.
	guestRand io.Reader
}

var _ server.App = (*App)(nil)

// storeTimeout bounds the store calls made while a session starts.
const storeTimeout = 5 * time.Second

// New returns the arcade.
func New(cfg Config) *App {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = log.Default()
	}
	if cfg.Connect == "" {
		cfg.Connect = "ssh -p 23234 HOST"
	}
	a := &App{cfg: cfg, lobby: lobby.New(lobby.Config{Now: cfg.Now}), budgets: newBudgets(cfg), seeded: map[int64]bool{}}
	dealsCtx, stopDeals := context.WithCancel(context.Background())
	a.stopDeals = stopDeals
	a.deals = newDealPool(dealsCtx, dealPoolSize, func(ctx context.Context, r engine.Rules) (uint64, engine.Verdict) {
		return a.findDeal(ctx, r, 0, false)
	})
	if a.cfg.Instance == "" {
		a.cfg.Instance = sessionToken()
	}
	// Race rooms (arcade/race.go).
	a.instance = a.cfg.Instance
	a.race = race.New(race.Config{Store: cfg.Store, Now: cfg.Now, Logger: cfg.Logger,
		Writer: func() *games.Writer { return a.newWriter(nil) }})
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	// Across servers: takeovers, presence and spectating (package
	// cluster). A server that cannot join still serves its own players.
	if cfg.Bus != nil {
		a.joinCluster(ctx)
	}
	a.openRooms(ctx)
	a.joinAccounts(ctx) // moderation.go
	return a
}

// joinCluster joins the lobby to the other servers on the bus: the
// takeovers of a player's games, who is online, and spectating (which
// needs presence).
func (a *App) joinCluster(ctx context.Context) {
	b, instance, logger := a.cfg.Bus, a.cfg.Instance, a.cfg.Logger
	var err error
	if a.takeovers, err = cluster.JoinTakeovers(ctx, a.lobby, b, instance); err != nil {
		logger.Error("takeovers stay on this server", "err", err)
	}
	cc := a.cfg.Cluster
	if cc.Logf == nil {
		cc.Logf = func(f string, args ...any) { logger.Warn(fmt.Sprintf(f, args...)) }
	}
	if a.presence, err = cluster.JoinPresence(ctx, a.lobby, b, instance, cc); err != nil {
		logger.Error("who lists this server's players only", "err", err)
		return
	}
	if a.spectating, err = cluster.JoinSpectating(ctx, a.presence); err != nil {
		logger.Error("spectators watch this server's players only", "err", err)
	}
}

// leaveCluster ends the lobby across servers, once the lobby is closed:
// spectating first, which sends the ends of this server's spectators,
// then presence, which says bye.
func (a *App) leaveCluster() {
	if a.spectating != nil {
		a.spectating.Close()
	}
	if a.presence != nil {
		a.presence.Close()
	}
	if a.takeovers != nil {
		a.takeovers.Close()
	}
}

// openRooms starts the race rooms: the cluster's, over its bus and lease,
// or, on a server alone (or one whose cluster's rooms cannot be read),
// this server's own over a bus and a lease in memory.
func (a *App) openRooms(ctx context.Context) {
	cfg := cluster.RoomsConfig{
		RoomsConfig: lobby.RoomsConfig{Instance: a.cfg.Instance, SeatGrace: a.cfg.SeatGrace, MaxRooms: a.cfg.MaxRooms,
			MaxRoomsPerAddress: a.cfg.MaxRoomsPerAddress,
			OnCountdown:        a.race.Countdown, OnRaceEnd: a.race.Store, OnRoundOver: a.race.RoundOver,
			OnArenaRace: a.race.ScoreArena, ArenaDeal: a.arenaDeal,
			Logf: func(f string, args ...any) { a.cfg.Logger.Warn(fmt.Sprintf(f, args...)) }},
		LeaseTTL: a.cfg.LeaseTTL, DBNow: a.cfg.DBNow, Trace: a.cfg.Trace}
	cfg.OnRated = a.lobby.RatingsMoved // the web page's rating lists
	if a.cfg.Bus != nil && a.cfg.Lease != nil {
		cfg.Bus, cfg.Lease = a.cfg.Bus, a.cfg.Lease
		rooms, err := cluster.NewRooms(ctx, cfg)
		if err == nil {
			a.rooms = rooms
			a.cfg.Logger.Info("race rooms shared with the cluster", "instance", a.cfg.Instance, "clock offset", rooms.Offset())
			return
		}
		a.cfg.Logger.Error("race rooms stay on this server", "err", err)
	}
	cfg.Bus, cfg.Lease, cfg.DBNow = nil, nil, nil
	rooms, err := cluster.NewRooms(ctx, cfg)
	if err != nil {
		panic(fmt.Sprintf("arcade: race rooms in memory: %v", err)) // a bus in memory never refuses
	}
	a.rooms = rooms
}

// Close ends the arcade's lobby and rooms: the other servers of a cluster
// are told that this one's players are gone. Call it after the server
// shut down, before closing the bus.
func (a *App) Close() {
	a.stopDeals()
	a.rooms.Shutdown()
	a.lobby.Close()
	a.leaveCluster()
	a.leaveAccounts()
	a.budgets.Close()
}

// player resolves who plays a session: a guest, named guest-XXXX at
// random, a name nobody in the cluster has (freeGuestName); the player the session's
// key belongs to in the store (created on first sight, named after the SSH
// user name when that is a valid name like no reserved one, keys.NameFromUser,
// and free, like no other player's, else a generated player-… name); or,
// without a store or when
// it fails, the key's fingerprint unsaved. note says what the player should
// know about it.
func (a *App) player(ctx context.Context, s *server.Session) (p tui.Player, saved bool, note string, err error) {
	if s.Guest() {
		return tui.Player{Name: a.freeGuestName(ctx), Guest: true}, false, "", nil
	}
	name, ok := keys.NameFromUser(s.User)
	if !ok {
		name = ""
	}
	if a.cfg.Store == nil {
		if name == "" {
			name = "player"
		}
		return tui.Player{ID: s.Identity, Name: name}, false, "", nil
	}
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	if err := a.accountBudget(ctx, s); err != nil {
		return tui.Player{}, false, "", err
	}
	sp, created, err := a.cfg.Store.GetOrCreatePlayer(ctx, s.Identity, name)
	if err != nil {
		a.cfg.Logger.Error("player lookup failed: playing unsaved", "key", s.Identity, "err", err)
		return tui.Player{ID: s.Identity, Name: "player"}, false,
			"the server cannot reach its database: this game is not saved", nil
	}
	a.touchKey(ctx, s.Identity, s.PublicKey.Type()) // cmd_keys.go
	if sp.Banned {
		return tui.Player{}, false, "", errors.New(banWords(sp)) // moderation.go
	}
	if created {
		a.cfg.Logger.Info("new player", "id", sp.ID, "name", sp.Name)
		_ = a.budgets.Take(budget.AccountMade, budget.Who{Addr: s.AddrKey()}) // made: spent, whatever is left
	}
	return tui.Player{ID: sp.ID, Name: keys.Clean(sp.Name, keys.MaxNameWidth)}, true, "", nil
}

// Model builds the Bubble Tea model of an interactive session.
func (a *App) Model(s *server.Session) tea.Model {
	p, saved, note, err := a.player(s.Context(), s)
	if err != nil {
		// The server writes it once the program is gone: a program that
		// quits at once never draws its one frame.
		s.End("pyramid: " + err.Error())
		return messageModel{text: "pyramid: " + err.Error() + "\n"}
	}
	deps := tui.Deps{
		Renderer:  s.Renderer,
		Player:    p,
		Args:      s.Args,
		Unicode:   s.UTF8,
		Now:       a.cfg.Now,
		Solver:    a.cfg.Solver,
		Context:   s.Context(),
		Width:     s.Width,
		Height:    s.Height,
		Translate: translate,
		Connect:   a.cfg.Connect,
		After:     s.After,
		Await:     s.Await,
	}
	sess := a.join(s.Context(), p)
	if saved {
		a.track(s, p.ID, sess) // moderation.go
	}
	spoil := a.newSpoilers(p)                                                            // spoilers.go
	live := &presence{lobby: a.lobby, rooms: a.rooms.Rooms, self: sess, spoilers: spoil, // presence.go
		budgets: a.budgets, who: who(s.AddrKey(), lobby.Entrant{ID: p.ID, Guest: p.Guest || p.ID == ""})}
	context.AfterFunc(s.Context(), live.leaveSeat)
	var w *games.Writer
	if saved {
		w = a.newWriter(sess)
		sg := a.sessionGames(p.ID, w)
		sg.challenges = &challengeGames{a: a, player: p.ID, w: w, addr: s.AddrKey()} // challenge.go
		deps.Games, deps.Challenges = sg, sg.challenges
		acct := a.account(p.ID, s.Identity, s.AddrKey())
		acct.instance, acct.session = a.instance, sess.ID() // its own changes it shows itself
		deps.Account = acct
		live.acct, live.player = acct, p.ID
		a.lobby.SetWatchable(sess, a.watchable(s.Context(), acct, p.ID))
	}
	deps.Lobby = live
	// Race rooms (arcade/race.go).
	rs := a.newRaces(s.Context(), p, sess, w)
	rs.addr = s.AddrKey()
	deps.Races = rs
	if a.cfg.Store != nil {
		deps.Arenas = a.newArenas(rs) // arcade/arena.go
	}
	if gh := a.newGhosts(p, w); gh != nil { // arcade/ghost.go
		gh.spoilers = spoil
		deps.Ghosts = gh
	}
	if saved {
		if note == "" {
			note = a.challengeNote(s.Context(), p.ID)
		}
	}
	deps.Inbox = inbox{q: sess.Queue(), spoilers: spoil, unwatch: func() { a.lobby.Unwatch(sess) }}
	m := tui.New(deps)
	if note != "" {
		return noticeFirst{Model: m, note: note}
	}
	return m
}

// sessionToken returns a random token naming one session as the owner of
// the games it writes.
func sessionToken() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported systems
	return hex.EncodeToString(b[:])
}

// translate maps the server's messages to the tui's.
func translate(msg tea.Msg) tea.Msg {
	if sm, ok := msg.(server.ShutdownMsg); ok {
		// The model waits for its saves for most of the grace, keeping
		// time to stop the one in flight, hear back and draw its farewell.
		return tui.ShutdownMsg{Text: "the server is restarting; reconnect in a moment", Wait: shutdownWait(sm.Grace)}
	}
	return msg
}

// shutdownWait is how long a session may wait for its saves in a shutdown
// that closes it after grace: all of it but two seconds (one to stop the
// save in flight and hear back, one to draw the farewell), at least a
// second; zero (the tui's default) when the grace is unknown.
func shutdownWait(grace time.Duration) time.Duration {
	if grace <= 0 {
		return 0
	}
	return max(grace-2*time.Second, time.Second)
}

// noticeFirst is the tui model with a notice shown at the start.
type noticeFirst struct {
	*tui.Model
	note string
}

// Init starts the model and shows the notice.
func (n noticeFirst) Init() tea.Cmd {
	note := n.note
	return tea.Batch(n.Model.Init(), func() tea.Msg { return tui.NoticeMsg{Text: note} })
}

// messageModel shows one message and ends the session.
type messageModel struct{ text string }

func (m messageModel) Init() tea.Cmd                       { return tea.Quit }
func (m messageModel) Update(tea.Msg) (tea.Model, tea.Cmd) { return m, tea.Quit }
func (m messageModel) View() string                        { return m.text }

// ExitStatus is 1: the message says why the session could not start
// (server.ExitStatuser).
func (m messageModel) ExitStatus() int { return 1 }
