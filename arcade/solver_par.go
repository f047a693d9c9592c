package arcade

import (
	"context"
	"fmt"
	"slices"
	"time"

	"pyramid/engine"
	"pyramid/tui"
)

// The solver's second level: par, where a win was lost, and
// the live check, with the same slots and budget as the other solves.

var _ tui.Analyst = (*Solver)(nil)

// parCacheSize is the most deals whose par the solver keeps; past it the
// finished entries are dropped. A par is a few bytes: the bound is there
// so that a server up for months does not grow without end.
const parCacheSize = 4096

// Par solves have a lane of their own: one at a time for the whole
// server, first come first served, never in the solve slots that hints,
// new deals and race deals take (a race never waits on a par). With more
// waiting, the lane rests after each par as long as it took, so that a
// burst of new races (an arena's pairings) takes at most half a core
// from the players' keys for its pars rather than a whole one. Each is
// bounded in positions (parBudget) and in time (parWorkTime), which bounds
// its memory, and at most parQueueMax wait: when many rooms open at once
// on as many deals, the pars past those are not worked out (the results
// show none) unless somebody asks again later. The pars of a burst (a
// run of the lane that had more than one par to work out: it waits
// parGather as it starts, for the pars asked with the first), and those
// within parCalm after one (the next round of an arena's pairings, whose
// first may come alone), have the smaller parBusyBudget: they follow one
// another for many seconds, and the few hard ones among them would hold
// tens of megabytes each, which the collector's goal doubles, while the
// server is busiest. A deal one of them leaves undecided is not kept, so
// that a later ask on a quiet lane has the whole budget.
const (
	// parBudget is the most positions a par's shortest-line search
	// stores: a few tens of megabytes at most; most race deals need a
	// tenth of it.
	parBudget = 1 << 20
	// parBusyBudget is parBudget in a burst: a few megabytes at most,
	// and enough for most race deals (docs/solver.md says how many).
	parBusyBudget = 1 << 17
	// parGather is how long the lane waits as it starts, so that the
	// pars asked together (the rooms of one round of pairings) are known
	// as a burst from its first.
	parGather = 250 * time.Millisecond
	// parCalm is how long after a burst's last par the lane keeps to
	// parBusyBudget: longer than an arena's short games.
	parCalm = 2 * time.Minute
	// parWorkTime bounds a par's whole work, both searches.
	parWorkTime = 20 * time.Second
	// parQueueMax is the most pars waiting for the lane.
	parQueueMax = 64
)

// parJob is a par waiting for the lane.
type parJob struct {
	r engine.Rules
	d engine.Deal
	e *parEntry
}

// liveBudget is the most positions the live check ("tell me when a deal
// can no longer be won") searches after a move: a fraction of a second.
// It runs after every move of every player who turned the setting on,
// so it must stay small; most positions are decided well within it.
const liveBudget = 1 << 20

// parKey names a deal under a rule set.
type parKey struct {
	rules string
	// number is the deal's number for a numbered deal; cards its cards
	// (as bytes) for one given as text.
	number uint64
	cards  string
}

// parEntry is a deal's par being worked out or known: 0 when there is
// none (the deal cannot be won, or the budget did not prove a line
// shortest).
type parEntry struct {
	done chan struct{}
	par  int
	// line is the shortest winning line, of par moves, when par > 0:
	// the line a player who asks to watch the deal is shown.
	line []engine.Move
}

// keyOf returns the cache key of deal d under r.
func keyOf(r engine.Rules, d engine.Deal) parKey {
	k := parKey{rules: r.ID()}
	if d.Numbered {
		k.number = d.Number
		return k
	}
	b := make([]byte, len(d.Cards))
	for i, c := range d.Cards {
		b[i] = byte(c)
	}
	k.cards = string(b)
	return k
}

// Par returns the length of the shortest winning line of deal d under r,
// proved shortest within the solver's budget. It is worked out once per
// rule set and deal, whoever asks first, in a solve slot, and the work
// goes on when that asker gives up, so that the next asker gets it at
// once. It fails with tui.ErrNoPar when the deal cannot be won or no
// line was proved shortest.
func (s *Solver) Par(ctx context.Context, r engine.Rules, d engine.Deal) (int, error) {
	e := s.parEntry(r, d)
	select {
	case <-e.done:
		if e.par <= 0 {
			return 0, fmt.Errorf("par of %s deal %s: %w", r.ID(), parDealName(d), tui.ErrNoPar)
		}
		return e.par, nil
	case <-ctx.Done():
		return 0, fmt.Errorf("par: %w", ctx.Err())
	}
}

// WarmPar starts working out the par of deal d under r, if it is not
// known or on its way, without waiting for it: the daily deal's and each
// race deal's, so that it is known by the time a player wins.
func (s *Solver) WarmPar(r engine.Rules, d engine.Deal) { s.parEntry(r, d) }

// parEntry returns the cache entry of deal d under r, queueing its work
// for the par lane when it is new. When parQueueMax pars wait already,
// the entry returned is done without a par and is not kept: a later ask
// queues it again.
func (s *Solver) parEntry(r engine.Rules, d engine.Deal) *parEntry {
	key := keyOf(r, d)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pars == nil {
		s.pars = map[parKey]*parEntry{}
	}
	if e, ok := s.pars[key]; ok {
		return e
	}
	e := &parEntry{done: make(chan struct{})}
	if len(s.parQueue) >= parQueueMax {
		close(e.done)
		return e
	}
	if len(s.pars) >= parCacheSize {
		s.forgetPars()
	}
	s.pars[key] = e
	s.parQueue = append(s.parQueue, parJob{r: r, d: d, e: e})
	s.parRun++
	if !s.parRunning {
		s.parRunning = true
		go s.parLane()
	}
	return e
}

// parLane works out the pars queued, one at a time, and ends when none
// is left.
func (s *Solver) parLane() {
	s.rest(parGather)
	for {
		s.mu.Lock()
		if len(s.parQueue) == 0 {
			s.parRunning = false
			s.parQueue, s.parRun = nil, 0
			s.mu.Unlock()
			return
		}
		job := s.parQueue[0]
		s.parQueue[0] = parJob{}
		s.parQueue = s.parQueue[1:]
		more, burst := len(s.parQueue) > 0, s.parRun > 1
		calming := s.now().Before(s.calmFrom)
		s.mu.Unlock()
		began := time.Now()
		full := min(s.budget, parBudget)
		budget := full
		if burst || calming {
			budget = min(full, parBusyBudget)
		}
		s.workPar(job, budget, budget < full)
		if burst {
			s.mu.Lock()
			s.calmFrom = s.now().Add(parCalm)
			s.mu.Unlock()
		}
		if more {
			s.rest(time.Since(began))
		}
	}
}

// workPar works out one par within budget positions and closes its
// entry. When cut is set (the budget is less than the lane's whole one),
// an entry it leaves undecided (no par, and the deal not proved
// unwinnable) is not kept.
func (s *Solver) workPar(job parJob, budget int, cut bool) {
	e := job.e
	decided := false
	defer func() {
		if !decided && cut {
			s.dropPar(job)
		}
		close(e.done)
	}()
	defer func() {
		if recover() != nil {
			e.par = 0
		}
	}()
	// Not the asker's context: the par is for everybody.
	ctx, cancel := context.WithTimeout(context.Background(), parWorkTime)
	defer cancel()
	g, err := engine.NewGame(job.r, job.d)
	if err != nil {
		return
	}
	sol := s.optimal(ctx, g, budget)
	if sol.Verdict == engine.Winnable && sol.Optimal {
		e.par, e.line = len(sol.Moves), sol.Moves
	}
	decided = e.par > 0 || sol.Verdict == engine.Unwinnable
}

// dropPar takes job's entry out of the par cache, unless a newer one
// took its place: the next ask queues the deal again.
func (s *Solver) dropPar(job parJob) {
	key := keyOf(job.r, job.d)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pars[key] == job.e {
		delete(s.pars, key)
	}
}

// knownShortest returns the shortest winning line of g's deal when g is
// at its start and its par is known already, so that the line a player
// watches is par's, not merely a winning one.
func (s *Solver) knownShortest(g *engine.Game) ([]engine.Move, bool) {
	if g.MovesMade() != 0 {
		return nil, false
	}
	s.mu.Lock()
	e := s.pars[keyOf(g.Rules(), g.Deal())]
	s.mu.Unlock()
	if e == nil {
		return nil, false
	}
	select {
	case <-e.done:
		return slices.Clone(e.line), e.par > 0
	default:
		return nil, false
	}
}

// forgetPars drops the finished entries of the par cache. The caller
// holds s.mu.
func (s *Solver) forgetPars() {
	for k, e := range s.pars {
		select {
		case <-e.done:
			delete(s.pars, k)
		default:
		}
	}
}

// parDealName is a deal's number, or "given as text".
func parDealName(d engine.Deal) string {
	if d.Numbered {
		return fmt.Sprint(d.Number)
	}
	return "given as text"
}

// WhereLost says where g lost its win (engine.WhereLost within the
// solver's budget). When the budget runs out before the move is found,
// the verdict is still the one a solve of the deal from its start gives,
// without the move: the end screen says no less than it did before. It
// fails only when no solve slot frees up before ctx is done, or when ctx
// ends the search.
func (s *Solver) WhereLost(ctx context.Context, g *engine.Game) (engine.WinLoss, error) {
	if err := s.acquire(ctx); err != nil {
		return engine.WinLoss{Verdict: engine.Unknown}, err
	}
	defer s.release()
	wl := engine.WhereLost(ctx, g, s.budget)
	if wl.Verdict == engine.Unknown && ctx.Err() == nil {
		// engine.WhereLost's budget covers all its solves, so a hard
		// deal can run it out after the first: ask that one again.
		if start, err := engine.NewGame(g.Rules(), g.Deal()); err == nil {
			sol := engine.Solve(ctx, start, s.budget)
			wl = engine.WinLoss{Verdict: sol.Verdict, States: wl.States + sol.States}
		}
	}
	if err := ctx.Err(); err != nil && wl.Verdict == engine.Unknown {
		return wl, fmt.Errorf("where lost: %w", err)
	}
	return wl, nil
}

// liveWait is the longest the live check waits for a solve slot: it is
// a courtesy, and must not queue behind hints and deals when the server
// is busy (the next move asks again).
const liveWait = 250 * time.Millisecond

// StillWinnable reports whether g's position can still be won, searching
// at most liveBudget positions (the solver's budget when smaller). When
// no solve slot frees up within liveWait, it answers engine.Unknown.
func (s *Solver) StillWinnable(ctx context.Context, g *engine.Game) (engine.Verdict, error) {
	wait, cancel := context.WithTimeout(ctx, liveWait)
	err := s.acquire(wait)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return engine.Unknown, fmt.Errorf("still winnable: %w", ctx.Err())
		}
		return engine.Unknown, nil // busy: not now
	}
	defer s.release()
	v := engine.StillWinnable(ctx, g, min(s.budget, liveBudget))
	if err := ctx.Err(); err != nil && v == engine.Unknown {
		return v, fmt.Errorf("still winnable: %w", err)
	}
	return v, nil
}

// warmParOf starts working out the par of deal number n under r when s
// is the arcade's Solver: the race code's one line when it picks a race
// deal, so that the par is known by the results.
func warmParOf(s tui.Solver, r engine.Rules, n uint64) {
	if as, ok := s.(*Solver); ok {
		as.WarmPar(r, engine.NewDeal(n, r.Decks))
	}
}

// parOf returns the par of deal number n under r, and whether s knows it
// before ctx is done: the race code's one line for the results.
func parOf(ctx context.Context, s tui.Solver, r engine.Rules, n uint64) (int, bool) {
	a, ok := s.(tui.Analyst)
	if !ok {
		return 0, false
	}
	p, err := a.Par(ctx, r, engine.NewDeal(n, r.Decks))
	return p, err == nil
}
