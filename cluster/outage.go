package cluster

// An outage of the database, as the rooms live through it. While
// PostgreSQL is out of reach no server can renew its lease, so when it
// comes back every lease has run out: the first server to take the races'
// lease would judge every other one dead (and its racers gone) though
// they only waited for the database, as it did. So a server tells the
// two apart by its own way to the database:
//
//   - a server that failed to reach the database judges nobody until it
//     has reached it again for JudgeAfter leases' time: the others had
//     that long to renew their leases, as it did; one that did not is
//     dead. A server that kept its way (the database was out of reach of
//     another server only) judges as usual.
//   - a server that failed to reach the database tells the others, once
//     it is back, with an op of the rooms' log (lobby.OpOutage): every
//     race it had racers in that ran meanwhile is void, its racers could
//     not move.

import (
	"context"
	"strconv"
	"time"

	"pyramid/lobby"
)

// JudgeAfter is how many leases' time (RoomsConfig.LeaseTTL) a server
// that could not reach the database waits, once it reaches it again,
// before it judges another server dead: twice, as a server's first
// renewal after the outage may wait for calls that began during it.
const JudgeAfter = 2

// reach is what a server knows of its way to the database, from the
// calls of its lease loop (every LeaseTTL/3), under roomLog.mu.
type reach struct {
	down time.Time // on the cluster's clock, the first failure of those in a row; zero while it answers
	back time.Time // on this server's clock, when it answered again after failures; zero: never failed
	// outage is an outage over whose op is not logged yet.
	outage *lobby.RoomOp
}

// noteReach notes whether this server reached the database just now
// (ok), and, back from an outage, logs it (lobby.OpOutage).
func (l *roomLog) noteReach(ok bool) {
	now := l.cfg.Clock.Now()
	cnow := l.clusterNow()
	l.mu.Lock()
	switch {
	case !ok && l.reach.down.IsZero():
		l.reach.down, l.reach.back = cnow, time.Time{}
	case ok && !l.reach.down.IsZero():
		at := l.reach.down
		if l.reach.outage != nil {
			// Out of reach again before the last outage was logged:
			// one outage, from the first failure.
			at = l.reach.outage.At
		}
		l.reach.outage = &lobby.RoomOp{Kind: lobby.OpOutage, At: at}
		l.reach.down, l.reach.back = time.Time{}, now
	}
	op := l.reach.outage
	l.mu.Unlock()
	if !ok || op == nil {
		return
	}
	l.logf("cluster: rooms: the database is back, out of reach since %s", op.At.Format(time.RFC3339))
	ctx, cancel := context.WithTimeout(l.ctx, roomsTimeout)
	defer cancel()
	once := "outage/" + l.cfg.Instance + "/" + strconv.FormatInt(op.At.UnixMilli(), 10)
	if _, err := l.publish(ctx, once, *op); err != nil {
		l.logf("cluster: rooms: tell of the outage (tried again): %v", err)
		return
	}
	l.mu.Lock()
	if l.reach.outage == op {
		l.reach.outage = nil
	}
	l.mu.Unlock()
}

// judging reports whether this server may judge the others (declare one
// dead, run the holder's duties): it reaches the database, and has for
// JudgeAfter leases' time since an outage.
func (l *roomLog) judging() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.reach
	return r.down.IsZero() && r.outage == nil && (r.back.IsZero() || l.cfg.Clock.Now().Sub(r.back) >= JudgeAfter*l.cfg.LeaseTTL)
}
