package arcade

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"pyramid/engine"
	"pyramid/tui"
)

// DailyBudget is the solver budget that picks daily deals. It is fixed, not
// configurable, so that every server (and every version that keeps it)
// picks the same daily deal for a date.
const DailyBudget = engine.DefaultBudget

// Solver is the engine's solver as the sessions use it: tui.Solver with a
// budget per query, a bound on the solves running at once (each holds
// memory in proportion to its budget, so a crowd pressing hint cannot take
// the server down), and the daily deals worked out once per rule set and
// day for everybody.
type Solver struct {
	budget int
	slots  chan struct{}

	mu    sync.Mutex
	daily map[dailyKey]*dailyDeal
	// secret is the database's secret the daily deals derive from
	// (UseDailySecret); nil until told.
	secret []byte
	// pars are the deals' pars worked out or on their way
	// (solver_par.go), made on first use; parQueue the ones waiting for
	// the par lane, parRunning whether its worker runs, parRun how many
	// were queued since it started, calmFrom when the lane is out of its
	// last burst.
	pars       map[parKey]*parEntry
	parQueue   []parJob
	parRunning bool
	parRun     int
	calmFrom   time.Time
	// optimal is the shortest-line search (engine.SolveOptimal; tests
	// replace it).
	optimal func(ctx context.Context, g *engine.Game, budget int) engine.Solution
	// rest is how the par lane waits as it starts and rests between
	// pars (time.Sleep; tests replace it), now its clock (time.Now).
	rest func(time.Duration)
	now  func() time.Time
}

var _ tui.Solver = (*Solver)(nil)

// dailyKey names a daily deal: a rule set and a UTC date.
type dailyKey struct{ rules, date string }

// dailyDeal is a daily deal being worked out or known.
type dailyDeal struct {
	done   chan struct{}
	number uint64
	err    error
}

// NewSolver returns a solver that searches at most budget positions per
// query (engine.DefaultBudget when zero or less) and runs at most
// concurrent queries at once (1 when less).
func NewSolver(budget, concurrent int) *Solver {
	if budget <= 0 {
		budget = engine.DefaultBudget
	}
	return &Solver{budget: budget, slots: make(chan struct{}, max(concurrent, 1)), daily: map[dailyKey]*dailyDeal{},
		optimal: engine.SolveOptimal, rest: time.Sleep, now: time.Now}
}

// acquire waits for a free solve slot; release gives it back.
func (s *Solver) acquire(ctx context.Context) error {
	select {
	case s.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("solver busy: %w", ctx.Err())
	}
}

func (s *Solver) release() { <-s.slots }

// Hint returns a move that keeps g winnable, or the verdict without a move.
func (s *Solver) Hint(ctx context.Context, g *engine.Game) (engine.Move, engine.Verdict, error) {
	if err := s.acquire(ctx); err != nil {
		return engine.Move{}, engine.Unknown, err
	}
	defer s.release()
	h := engine.SolveHint(ctx, g, s.budget)
	switch h.Verdict {
	case engine.Winnable:
		if !h.OK {
			return engine.Move{}, engine.Winnable, nil
		}
		return h.Move, engine.Winnable, nil
	case engine.Unwinnable:
		return engine.Move{}, engine.Unwinnable, nil
	}
	return engine.Move{}, engine.Unknown, nil
}

// Solve returns what the solver knows about g's position within the
// budget and, when it is winnable, a line of moves that wins from it: from
// a deal's start whose par is known, the shortest line. It fails only when no solve slot frees up before ctx is done, or when ctx
// ends the search: a search cut by the budget is VerdictUnknown.
func (s *Solver) Solve(ctx context.Context, g *engine.Game) (engine.Verdict, []engine.Move, error) {
	if line, ok := s.knownShortest(g); ok {
		return engine.Winnable, line, nil
	}
	if err := s.acquire(ctx); err != nil {
		return engine.Unknown, nil, err
	}
	defer s.release()
	sol := engine.Solve(ctx, g, s.budget)
	switch sol.Verdict {
	case engine.Winnable:
		return engine.Winnable, sol.Moves, nil
	case engine.Unwinnable:
		return engine.Unwinnable, nil, nil
	}
	if err := ctx.Err(); err != nil {
		return engine.Unknown, nil, fmt.Errorf("solve: %w", err)
	}
	return engine.Unknown, nil, nil
}

// NextWinnable returns the first deal at or after start that the solver
// proves winnable under r.
func (s *Solver) NextWinnable(ctx context.Context, r engine.Rules, start uint64) (uint64, error) {
	if err := s.acquire(ctx); err != nil {
		return 0, err
	}
	defer s.release()
	n, _, err := engine.NextWinnable(ctx, r, start, s.budget)
	return n, err
}

// UseDailySecret sets the secret the daily deals derive from (the
// database's, store.Secrets), before the first DailyDeal: with it nobody
// can compute a day's deal offline. The daily deals worked out before are
// forgotten.
func (s *Solver) UseDailySecret(secret []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.secret = slices.Clone(secret)
	clear(s.daily)
}

// DailyDeal returns the daily deal of r for day's UTC date: the first deal
// at or after the date's number (engine.DailyNumber, of the daily secret)
// the solver proves winnable. It is worked
// out once per rule set and date, whoever asks first, and the work goes on
// when that asker gives up, so that everybody gets the same deal.
func (s *Solver) DailyDeal(ctx context.Context, r engine.Rules, day time.Time) (uint64, error) {
	key := dailyKey{r.ID(), day.UTC().Format(time.DateOnly)}
	s.mu.Lock()
	d, ok := s.daily[key]
	if !ok {
		d = &dailyDeal{done: make(chan struct{})}
		s.daily[key] = d
		s.forgetOldDays(key.date)
		secret := s.secret
		go func() {
			defer close(d.done)
			defer func() {
				if p := recover(); p != nil {
					d.err = fmt.Errorf("daily deal: solver panicked: %v", p)
				}
			}()
			// Not the asker's context: the deal must be found even if
			// the first asker leaves.
			d.number, d.err = engine.DailyDeal(context.Background(), r, secret, day, DailyBudget)
			if d.err == nil { // solver_par.go: the daily deal shows its par
				s.WarmPar(r, engine.NewDeal(d.number, r.Decks))
			}
		}()
	}
	s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		// An asker that has given up is told so, even when the deal is
		// known already (select would pick either at random).
		return 0, fmt.Errorf("daily deal: %w", err)
	}
	select {
	case <-d.done:
		return d.number, d.err
	case <-ctx.Done():
		return 0, fmt.Errorf("daily deal: %w", ctx.Err())
	}
}

// forgetOldDays drops daily deals of dates before the day before date, so
// the cache stays small. The caller holds s.mu.
func (s *Solver) forgetOldDays(date string) {
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return
	}
	cutoff := t.AddDate(0, 0, -1).Format(time.DateOnly)
	for k := range s.daily {
		if k.date < cutoff {
			delete(s.daily, k)
		}
	}
}
