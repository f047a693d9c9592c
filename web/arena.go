package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"pyramid/arena"
	"pyramid/keys"
	"pyramid/lobby"
	"pyramid/store"
)

// ArenaSource is what the site reads of the arenas. The arcade's arena
// service implements it; the site only reads, and follows one arena's
// changes while somebody views its page. List is read with the front
// page's data (cached for Config.CacheFor); View and TopBoard on an
// arena page's load and once per change for all its viewers together,
// and View when a stream starts: they should answer from memory (the
// rooms' fold), not from the database.
type ArenaSource interface {
	// List returns the arenas to show: upcoming, running and recently
	// finished ones, at most limit of each phase (arena.Event.PhaseAt
	// tells them apart; cancelled ones are left out by the site).
	List(ctx context.Context, limit int) ([]arena.Event, error)
	// View returns the arena's live view as a visitor sees it, with at
	// most top lines of standings (lobby.ArenaView.Top);
	// store.ErrNotFound for no such arena.
	View(ctx context.Context, id int64, top int) (lobby.ArenaView, error)
	// TopBoard returns the board of the arena's top game (the game of
	// the best ranked player of the race lobby.ArenaView.TopGame names),
	// ok false when no race of the arena runs. Its deal's number, its
	// stock's order and its waste's faces are never shown: the race's
	// racers play the same deal, and may view the page.
	TopBoard(ctx context.Context, id int64) (b lobby.Board, name string, ok bool, err error)
	// Watch makes sink hear lobby.ArenaChanged{ID: id}, coalesced under
	// lobby.ArenaKey(id), whenever the arena's players, standings or top
	// game change, on any server of the cluster, until stop is called.
	// It never blocks, neither on sink (Sink never blocks) nor on the
	// store.
	Watch(id int64, sink lobby.Sink) (stop func())
}

// ArenaResults is what an ArenaSource may also tell: a player's finished
// arenas, for their page. Without it a player's page has no arena
// section.
type ArenaResults interface {
	// PlayerArenas returns the player's results in finished arenas,
	// newest first, at most limit.
	PlayerArenas(ctx context.Context, playerID string, limit int) ([]ArenaResult, error)
}

// ArenaResult is a player's result in one finished arena.
type ArenaResult struct {
	Arena arena.Event
	// Rank is their place by points (ties share it); Players how many
	// played.
	Rank, Players int
	arena.Line
}

// Bounds of the arenas' pages.
const (
	standingsShown = 20
	// arenaEvery is the least time between two renders of one arena's
	// live events: a busy arena costs a few renders a second, whatever
	// its moves.
	arenaEvery = 250 * time.Millisecond
)

// arenaItem is an arena in the front page's lists.
type arenaItem struct {
	ID          int64
	Name, Rules string
	Start, End  time.Time
}

// arenaLists are the front page's arenas by phase.
type arenaLists struct {
	Shown                       bool // the site shows arenas
	Running, Upcoming, Finished []arenaItem
}

// loadArenas reads the arenas to list, by phase.
func (s *Site) loadArenas(ctx context.Context) (arenaLists, error) {
	if s.cfg.Arenas == nil {
		return arenaLists{}, nil
	}
	events, err := s.cfg.Arenas.List(ctx, arenasShown)
	if err != nil {
		return arenaLists{}, fmt.Errorf("arenas: %w", err)
	}
	out := arenaLists{Shown: true}
	now := s.cfg.Now()
	for _, e := range events {
		it := arenaItem{ID: e.ID, Name: arenaName(e.Name), Rules: rulesTitle(e.RulesID), Start: e.Start, End: e.End()}
		switch e.PhaseAt(now) {
		case arena.Running:
			out.Running = append(out.Running, it)
		case arena.Upcoming:
			out.Upcoming = append(out.Upcoming, it)
		case arena.Finished:
			out.Finished = append(out.Finished, it)
		}
	}
	slices.SortFunc(out.Upcoming, func(a, b arenaItem) int { return a.Start.Compare(b.Start) })
	slices.SortFunc(out.Finished, func(a, b arenaItem) int { return b.End.Compare(a.End) })
	for _, l := range []*[]arenaItem{&out.Running, &out.Upcoming, &out.Finished} {
		*l = (*l)[:min(len(*l), arenasShown)]
	}
	return out, nil
}

// arenaName is an arena's name as a page shows it, its controls
// cleaned.
func arenaName(s string) string { return keys.Clean(s, arena.MaxNameLen) }

// arenaData is what an arena's page shows, and its live fragments.
type arenaData struct {
	ID        int64
	Name      string
	Rules     string
	Phase     arena.Phase
	Start     time.Time
	End       time.Time
	Standings standingsView
	Board     topBoard
}

// standingsView is the live part of an arena's page with its standings.
type standingsView struct {
	Over             bool
	Players, Playing int
	Top              []lobby.ArenaStanding
	Now              time.Time
}

// topBoard is the live part of an arena's page with its top game.
type topBoard struct {
	Names []string
	Board *boardView
}

// arenaID reads the {id} of an arena's path; ok is false for a bad one.
func arenaID(r *http.Request) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	return id, err == nil && id > 0
}

// arenaPage serves an arena's page.
func (s *Site) arenaPage(w http.ResponseWriter, r *http.Request) {
	id, ok := arenaID(r)
	if !ok || s.cfg.Arenas == nil {
		s.notFound(w, r, "There is no such arena.")
		return
	}
	d, err := s.arenaData(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		s.notFound(w, r, "There is no such arena.")
		return
	}
	if err != nil {
		s.unavailable(w, "arena", err)
		return
	}
	s.render(w, http.StatusOK, "arena.html", d)
}

// arenaData reads an arena's view and its top game.
func (s *Site) arenaData(ctx context.Context, id int64) (arenaData, error) {
	ctx, cancel := context.WithTimeout(ctx, loadTimeout)
	defer cancel()
	v, err := s.cfg.Arenas.View(ctx, id, standingsShown)
	if err != nil {
		return arenaData{}, fmt.Errorf("arena %d: %w", id, err)
	}
	info := v.Arena
	d := arenaData{ID: id, Name: arenaName(info.Name), Rules: rulesTitle(info.RulesID), Start: info.Start, End: info.End,
		Phase: info.Event().PhaseAt(v.Now)}
	if v.Over {
		d.Phase = arena.Finished
	}
	d.Standings = standingsOf(v)
	if d.Board, err = s.topBoard(ctx, id); err != nil {
		return arenaData{}, err
	}
	return d, nil
}

// standingsOf is the standings part of a view, its names cleaned.
func standingsOf(v lobby.ArenaView) standingsView {
	top := slices.Clone(v.Top)
	for i := range top {
		top[i].Name = cleanName(top[i].Name)
	}
	return standingsView{Over: v.Over, Players: v.Players, Playing: v.Playing, Top: top, Now: v.Now}
}

// topBoard reads and draws the arena's top game.
func (s *Site) topBoard(ctx context.Context, id int64) (topBoard, error) {
	b, name, ok, err := s.cfg.Arenas.TopBoard(ctx, id)
	if err != nil {
		return topBoard{}, fmt.Errorf("arena %d top game: %w", id, err)
	}
	if !ok {
		return topBoard{}, nil
	}
	bv, err := newBoardView(b.Record)
	if err != nil {
		return topBoard{}, fmt.Errorf("arena %d top game: %w", id, err)
	}
	return topBoard{Names: []string{cleanName(name)}, Board: bv}, nil
}

// arenaTopic is the topic of an arena's live events: "standings" and
// "board", as HTML.
func arenaTopic(id int64) string { return "arena/" + strconv.FormatInt(id, 10) }

// arenaEvents is an arena's live stream. The arena is watched while it
// has viewers.
func (s *Site) arenaEvents(w http.ResponseWriter, r *http.Request) {
	id, ok := arenaID(r)
	if !ok || s.cfg.Arenas == nil {
		http.NotFound(w, r)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), loadTimeout)
	_, err := s.cfg.Arenas.View(ctx, id, 1)
	cancel()
	if err != nil {
		http.NotFound(w, r)
		return
	}
	// Subscribed first, then watched: a viewer leaving meanwhile cannot
	// stop the watch this one needs.
	s.stream(w, r, arenaTopic(id), func() { s.arenas.watch(id) }, func(left int) {
		if left == 0 {
			s.arenas.unwatchIfIdle(id)
		}
	})
}

// arenaWatches are the arenas the site follows: those with viewers.
type arenaWatches struct {
	s  *Site
	mu sync.Mutex
	by map[int64]*arenaWatch
}

// arenaWatch follows one arena: its changes arrive in q, and one
// goroutine renders them for the arena's viewers.
type arenaWatch struct {
	stop   func()
	cancel context.CancelFunc
}

func newArenaWatches(s *Site) *arenaWatches {
	return &arenaWatches{s: s, by: map[int64]*arenaWatch{}}
}

// watch follows arena id, unless it is followed already.
func (a *arenaWatches) watch(id int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.by[id] != nil || a.s.ctx.Err() != nil {
		return
	}
	q := lobby.NewQueue(0, a.s.cfg.Now)
	ctx, cancel := context.WithCancel(a.s.ctx)
	w := &arenaWatch{cancel: cancel}
	w.stop = a.s.cfg.Arenas.Watch(id, q)
	a.by[id] = w
	// The first render: what is true now, for the viewer that came
	// between the page load and this watch.
	q.Coalesce(lobby.ArenaKey(id), lobby.ArenaChanged{ID: id})
	a.s.wg.Go(func() {
		defer q.Close()
		for {
			if _, err := q.Next(ctx); err != nil {
				return
			}
			a.s.publishArena(ctx, id)
			select { // at most one render per arenaEvery
			case <-ctx.Done():
				return
			case <-time.After(arenaEvery):
			}
		}
	})
}

// unwatchIfIdle stops following arena id when nobody views it.
func (a *arenaWatches) unwatchIfIdle(id int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	w := a.by[id]
	if w == nil || a.s.hub.viewers(arenaTopic(id)) > 0 {
		return
	}
	delete(a.by, id)
	w.stop()
	w.cancel()
	a.s.hub.forget(arenaTopic(id))
}

// closeAll stops following every arena.
func (a *arenaWatches) closeAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, w := range a.by {
		w.stop()
		w.cancel()
		delete(a.by, id)
	}
}

// watching is how many arenas are followed.
func (a *arenaWatches) watching() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.by)
}

// publishArena renders an arena's standings and top game once and sends
// them to its viewers, in one message.
func (s *Site) publishArena(ctx context.Context, id int64) {
	d, err := s.arenaData(ctx, id)
	if err != nil {
		if ctx.Err() == nil {
			s.cfg.Logger.Warn("web: arena", "id", id, "err", err)
		}
		return
	}
	var events []event
	if html, err := s.fragment("standings", d); err == nil {
		events = append(events, event{"standings", html})
	} else {
		s.cfg.Logger.Error("web: arena standings", "err", err)
	}
	if html, err := s.fragment("topgame", d); err == nil {
		events = append(events, event{"board", html})
	} else {
		s.cfg.Logger.Error("web: arena board", "err", err)
	}
	s.hub.publishAll(arenaTopic(id), events)
}
