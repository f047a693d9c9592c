package arcade

import (
	"context"
	"slices"
	"sync"

	"pyramid/engine"
)

// The arenas' deals: every race of an arena is dealt a deal the solver
// proves winnable, and a thousand players whose races ended together
// need a few hundred at once. A pool per rule set keeps some found in
// the background, so that a pairing takes one at once rather than wait
// for the solver (whose slots hints and new rooms share); an empty pool
// finds one there and then, as before.

// Sizes of the arenas' deal pools.
const (
	// dealPoolSize is how many deals a pool of one rule set keeps: a
	// round of pairings of a few hundred races takes its first this many
	// at once, the rest as the solver finds them.
	dealPoolSize = 64
	// dealPoolRemember is how many of the deals a pool gave out it
	// remembers, never to give one of them again: more than an arena's
	// races in its longest run (3 hours of 1-minute races of 4 players,
	// for a thousand players), so that no arena races a deal twice.
	dealPoolRemember = 1 << 16
)

// dealPool keeps winnable deals of each rule set for the arenas' races.
// It is safe for concurrent use.
type dealPool struct {
	// find finds a winnable deal under r (findDeal): the filler's way,
	// and the way of a take from an empty pool.
	find func(ctx context.Context, r engine.Rules) (uint64, engine.Verdict)
	ctx  context.Context // ends the filling (the server's shutdown)
	size int

	mu    sync.Mutex
	pools map[string]*rulesPool
}

// rulesPool is the pool of one rule set.
type rulesPool struct {
	deals   []uint64 // proven winnable, not given yet, oldest first
	given   map[uint64]bool
	order   []uint64 // given, oldest first, to forget past dealPoolRemember
	filling bool
}

// newDealPool makes pools that fill with find until ctx ends, keeping
// size deals of each rule set.
func newDealPool(ctx context.Context, size int, find func(context.Context, engine.Rules) (uint64, engine.Verdict)) *dealPool {
	return &dealPool{find: find, ctx: ctx, size: size, pools: map[string]*rulesPool{}}
}

// pool returns the pool of rule set id, made on first use, with p.mu held.
func (p *dealPool) pool(id string) *rulesPool {
	rp := p.pools[id]
	if rp == nil {
		rp = &rulesPool{given: map[uint64]bool{}}
		p.pools[id] = rp
	}
	return rp
}

// Take returns a deal of r for a new race: one of the pool's, which
// then fills again in the background, or, with the pool empty, one found
// now. No deal is given twice (of the last dealPoolRemember): one found
// now that was is found again, up to three times (of deals drawn at
// random from a trillion).
func (p *dealPool) Take(r engine.Rules) (uint64, engine.Verdict) {
	id := r.ID()
	p.mu.Lock()
	defer p.mu.Unlock()
	rp := p.pool(id)
	defer p.fill(r, rp)
	if len(rp.deals) > 0 {
		n := rp.deals[0]
		rp.deals = rp.deals[1:]
		rp.give(n)
		return n, engine.Winnable
	}
	var n uint64
	var v engine.Verdict
	for range 3 {
		p.mu.Unlock()
		n, v = p.find(p.ctx, r)
		p.mu.Lock()
		if !rp.given[n] {
			break
		}
	}
	rp.give(n)
	return n, v
}

// Len returns how many deals of rule set id the pool holds.
func (p *dealPool) Len(id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.pool(id).deals)
}

// give notes that n was given out, with the pool's lock held.
func (rp *rulesPool) give(n uint64) {
	rp.given[n] = true
	rp.order = append(rp.order, n)
	if len(rp.order) > dealPoolRemember {
		delete(rp.given, rp.order[0])
		rp.order = rp.order[1:]
	}
}

// fill starts filling rp in the background unless it is full or being
// filled, with p.mu held.
func (p *dealPool) fill(r engine.Rules, rp *rulesPool) {
	if rp.filling || len(rp.deals) >= p.size || p.ctx.Err() != nil {
		return
	}
	rp.filling = true
	go p.filler(r, rp)
}

// filler finds deals of r until rp is full, or the server shuts down.
// A deal found that the solver could not prove winnable (its search ran
// out of time) is not kept: the filler stops there, and the next take
// starts it again; so it does after three deals in a row it had.
func (p *dealPool) filler(r engine.Rules, rp *rulesPool) {
	defer func() {
		p.mu.Lock()
		rp.filling = false
		p.mu.Unlock()
	}()
	for again := 0; again < 3 && p.ctx.Err() == nil; {
		p.mu.Lock()
		full := len(rp.deals) >= p.size
		p.mu.Unlock()
		if full {
			return
		}
		n, v := p.find(p.ctx, r)
		if v != engine.Winnable {
			return
		}
		p.mu.Lock()
		if rp.given[n] || slices.Contains(rp.deals, n) {
			again++ // a finder that keeps coming back with one deal is left alone
		} else {
			rp.deals, again = append(rp.deals, n), 0
		}
		p.mu.Unlock()
	}
}
