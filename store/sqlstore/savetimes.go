package sqlstore

import (
	"slices"
	"sync"
	"time"
)

// saveTimes keeps where the group commit's time goes, save by save and
// batch by batch, for the benchmarks (bench_test.go) and a look at a
// loaded server: a nil *saveTimes keeps nothing and costs nothing.
type saveTimes struct {
	mu sync.Mutex
	// Per save: behind is the wait for the batch being stored when it
	// came (queued until that batch ended), handoff the wait from then
	// until a leader cut its own batch (the gate's wake-up, the
	// scheduler), work its batch's transaction and answer the wait from
	// the commit until its caller had the answer.
	behind, handoff, work, answer []time.Duration
	// Per batch: its saves, BEGIN, the statements, COMMIT.
	sizes                []int
	begin, stmts, commit []time.Duration
	// other is how long the writers outside the group held the gate,
	// total each grouped save's whole wait.
	other, total []time.Duration
	// lastDone is when the last batch's transaction ended.
	lastDone time.Time
}

func (t *saveTimes) now() time.Time {
	if t == nil {
		return time.Time{}
	}
	return time.Now()
}

// batch records one transaction of n saves.
func (t *saveTimes) batch(n int, begin, stmts, commit time.Duration) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.sizes = append(t.sizes, n)
	t.begin = append(t.begin, begin)
	t.stmts = append(t.stmts, stmts)
	t.commit = append(t.commit, commit)
	t.mu.Unlock()
}

// took marks the saves of a batch just cut off the queue.
func (t *saveTimes) took(batch []*saveReq) {
	now := time.Now()
	t.mu.Lock()
	prev := t.lastDone
	t.mu.Unlock()
	for _, r := range batch {
		r.taken = now
		r.turn = r.queued
		if prev.After(r.queued) {
			// It came while the last batch was being stored.
			r.turn = prev
		}
	}
}

// batchDone marks the batch's saves stored, before they are answered.
func (t *saveTimes) batchDone(batch []*saveReq) {
	if t == nil {
		return
	}
	now := time.Now()
	t.mu.Lock()
	t.lastDone = now
	t.mu.Unlock()
	for _, r := range batch {
		r.stored = now
	}
}

// answered records a save's stages once its caller has the answer.
func (t *saveTimes) answered(r *saveReq) {
	if r.taken.IsZero() || r.stored.IsZero() {
		return // given up, or answered without a batch
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.behind = append(t.behind, r.turn.Sub(r.queued))
	t.handoff = append(t.handoff, r.taken.Sub(r.turn))
	t.work = append(t.work, r.stored.Sub(r.taken))
	t.answer = append(t.answer, now.Sub(r.stored))
	t.total = append(t.total, now.Sub(r.queued))
}

// held records a write outside the group that held the gate for d.
func (t *saveTimes) held(d time.Duration) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.other = append(t.other, d)
	t.mu.Unlock()
}

// pct returns the p-th quantile of ds (sorted in place), in ms.
func pct(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return float64(ds[min(len(ds)-1, int(p*float64(len(ds))))].Microseconds()) / 1000
}
