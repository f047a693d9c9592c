package arcade

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"pyramid/arena"
	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/race"
	"pyramid/store"
)

// Arenas in the arcade: the rooms (lobby) pair an arena's players and run
// its races; the store keeps its events and scores; this file wires them
// for a session (tui.Arenas) and for the lease holder (the deals of its
// races, their scores).

// arenaSeed is how many lines of an arena's standings a server reads from
// the store the first time one of its sessions joins it (a server that
// started while it ran), for the standings it shows.
const arenaSeed = 1000

// arenaList is how many arenas the menu lists at most.
const arenaList = 20

// arenas is one session's way into the arenas (tui.Arenas), through its
// rooms' seat (races: its entrant and sink).
type arenas struct {
	a  *App
	rs *races

	mu     sync.Mutex
	joined map[int64]bool
}

// newArenas binds the arenas to the session of rs: when it ends, the
// session leaves the arenas it is in (its points stay).
func (a *App) newArenas(rs *races) *arenas {
	as := &arenas{a: a, rs: rs, joined: map[int64]bool{}}
	context.AfterFunc(rs.ctx, as.leaveAll)
	return as
}

// List returns the running and upcoming arenas, soonest first.
func (as *arenas) List(ctx context.Context) ([]arena.Event, error) {
	st := as.a.cfg.Store
	if st == nil {
		return nil, nil
	}
	now := as.a.cfg.Now()
	evs, err := st.Arenas(ctx, now, arenaList)
	if err != nil {
		return nil, fmt.Errorf("arenas: %w", err)
	}
	if as.a.scheduleArenas(ctx, evs, now) {
		if evs, err = st.Arenas(ctx, now, arenaList); err != nil {
			return nil, fmt.Errorf("arenas: %w", err)
		}
	}
	out := evs[:0]
	for _, e := range evs {
		if p := e.PhaseAt(now); p == arena.Running || p == arena.Upcoming {
			out = append(out, e)
		}
	}
	return out, nil
}

// Join puts the player in the arena, or back in it.
func (as *arenas) Join(ctx context.Context, id int64) (lobby.ArenaView, error) {
	if as.rs.me.Guest {
		return lobby.ArenaView{}, lobby.ErrArenaGuest
	}
	e, err := as.a.arenaEvent(ctx, id)
	if err != nil {
		return lobby.ArenaView{}, err
	}
	now := as.a.cfg.Now()
	switch e.PhaseAt(now) {
	case arena.Upcoming:
		return lobby.ArenaView{}, &refusal{cause: lobby.ErrArenaNotYet,
			words: fmt.Sprintf("%s starts at %s UTC, in %s", e.Name, e.Start.UTC().Format("15:04 Jan 2"), e.Start.Sub(now).Round(time.Second))}
	case arena.Cancelled:
		return lobby.ArenaView{}, fmt.Errorf("%s was cancelled", e.Name)
	case arena.Finished:
		return lobby.ArenaView{}, lobby.ErrArenaOver
	}
	mine, err := as.a.cfg.Store.ArenaPlayer(ctx, id, as.rs.me.ID)
	if err != nil {
		return lobby.ArenaView{}, fmt.Errorf("arena %d: your line: %w", id, err)
	}
	as.a.seedArena(ctx, e)
	me := as.rs.me
	me.Addr = as.rs.addr
	lines := race.ArenaStandings([]store.ArenaLine{mine})
	v, err := as.a.rooms.JoinArena(lobby.ArenaInfoOf(e), me, as.rs.sink, lines[0])
	if err != nil {
		return lobby.ArenaView{}, err
	}
	as.mu.Lock()
	as.joined[id] = true
	as.mu.Unlock()
	return v, nil
}

// View returns the arena as it stands: the rooms', or for an arena they
// do not know (it ended before this server started), the store's.
func (as *arenas) View(ctx context.Context, id int64) (lobby.ArenaView, error) {
	if v, ok := as.a.rooms.ArenaView(id, as.rs.me.ID, lobby.DefaultArenaTop); ok {
		return v, nil
	}
	e, err := as.a.arenaEvent(ctx, id)
	if err != nil {
		return lobby.ArenaView{}, err
	}
	return as.a.storedArenaView(ctx, e, as.rs.me.ID)
}

// Pause pauses or resumes the player's pairing.
func (as *arenas) Pause(id int64, paused bool) error {
	return as.a.rooms.PauseArena(id, as.rs.me.ID, paused)
}

// Leave takes the session out of the arena's pairing.
func (as *arenas) Leave(id int64) error {
	as.mu.Lock()
	delete(as.joined, id)
	as.mu.Unlock()
	return as.a.rooms.LeaveArena(id, as.rs.me.ID, as.rs.sink)
}

// Berserk gives up undo in the player's arena race of the room.
func (as *arenas) Berserk(code string) error {
	return as.a.rooms.Berserk(code, as.rs.me.ID)
}

// leaveAll takes the session out of its arenas, when it ends.
func (as *arenas) leaveAll() {
	as.mu.Lock()
	ids := as.joined
	as.joined = map[int64]bool{}
	as.mu.Unlock()
	for id := range ids {
		// Another session of the player that joined since holds the
		// arena: the rooms refuse to take it away with this one.
		_ = as.a.rooms.LeaveArena(id, as.rs.me.ID, as.rs.sink)
	}
}

// arenaEvent reads an arena, with a message for a player when there is
// none.
func (a *App) arenaEvent(ctx context.Context, id int64) (arena.Event, error) {
	if a.cfg.Store == nil {
		return arena.Event{}, errors.New("this server keeps no arenas")
	}
	e, err := a.cfg.Store.Arena(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return arena.Event{}, fmt.Errorf("no arena %d: `arenas` lists them", id)
	}
	if err != nil {
		return arena.Event{}, fmt.Errorf("arena %d: %w", id, err)
	}
	return e, nil
}

// seedArena gives the rooms the arena's standings as stored, the first
// time a session of this server joins it.
func (a *App) seedArena(ctx context.Context, e arena.Event) {
	a.arenaMu.Lock()
	if a.seeded[e.ID] {
		a.arenaMu.Unlock()
		return
	}
	a.seeded[e.ID] = true
	a.arenaMu.Unlock()
	lines, err := a.cfg.Store.ArenaStandings(ctx, e.ID, arenaSeed)
	if err != nil {
		a.cfg.Logger.Warn("arena standings not read", "arena", e.ID, "err", err)
		a.arenaMu.Lock()
		delete(a.seeded, e.ID)
		a.arenaMu.Unlock()
		return
	}
	a.rooms.SeedArena(lobby.ArenaInfoOf(e), race.ArenaStandings(lines))
}

// storedArenaView is an arena's view from the store alone: its standings
// as stored, for an arena the rooms do not know.
func (a *App) storedArenaView(ctx context.Context, e arena.Event, playerID string) (lobby.ArenaView, error) {
	now := a.cfg.Now()
	lines, err := a.cfg.Store.ArenaStandings(ctx, e.ID, arenaSeed)
	if err != nil {
		return lobby.ArenaView{}, fmt.Errorf("arena %d: standings: %w", e.ID, err)
	}
	v := lobby.ArenaView{Arena: lobby.ArenaInfoOf(e), Now: now, Over: e.PhaseAt(now) != arena.Running, Players: len(lines)}
	all := race.ArenaStandings(lines)
	for i := range all {
		all[i].State = lobby.ArenaAway
	}
	v.Top = all[:min(lobby.DefaultArenaTop, len(all))]
	for i, s := range all {
		if s.ID == playerID {
			v.You = s
			if i >= lobby.DefaultArenaTop {
				v.Near = all[max(lobby.DefaultArenaTop, i-2):min(len(all), i+3)]
			}
		}
	}
	return v, nil
}

// scheduleArenas stores the next occurrence of each recurring arena of
// evs that has started (once: the store keeps one per series and start),
// and reports whether there was any: a list of evs is to be read again.
func (a *App) scheduleArenas(ctx context.Context, evs []arena.Event, now time.Time) bool {
	any := false
	for _, e := range evs {
		if e.Every == arena.Once || e.Cancelled || now.Before(e.Start) {
			continue
		}
		any = true
		if _, err := a.cfg.Store.ScheduleNextArena(ctx, e.ID); err != nil {
			a.cfg.Logger.Warn("next arena not scheduled", "arena", e.ID, "err", err)
		}
	}
	return any
}

// arenaDeal is the deal of a new arena race (the rooms' ArenaDeal, on the
// lease holder): one the solver proves winnable, from the deal pool.
func (a *App) arenaDeal(rulesID string) (uint64, engine.Verdict) {
	rules, err := engine.ParseRules(rulesID)
	if err != nil {
		rules = engine.Classic()
	}
	return a.deals.Take(rules)
}
