package lobby

import (
	"errors"
	"slices"
	"strconv"
	"time"

	"pyramid/arena"
)

// Forfeits of arena races: a racer who has not moved by
// arena.FirstMoveTime after the race's start (a frozen client, a player
// who walked away) is out of it, counted as left, and paused in the
// arena, so that they do not hold their opponents' races to the time
// limit again and again. The lease holder finds them from the rooms'
// state on the cluster's clock (arenaIdle, in its duties) and logs a
// forfeit for each; the fold (arenaForfeit) decides from the log alone,
// the same on every server.

// OpArenaForfeit: the lease holder found a racer (Target) of an arena
// race (Code, Round) who made no move in the race's first
// arena.FirstMoveTime: they leave the race and are paused in the arena.
const OpArenaForfeit OpKind = "arenaforfeit"

// ErrForfeited refuses a racer's way back into the arena race they
// forfeited.
var ErrForfeited = errors.New("you made no move in time: you are out of this race")

// Forfeited is posted to the session of an arena racer who forfeited
// their race for not moving in time (OpArenaForfeit): they are out of
// it and paused in the arena.
type Forfeited struct {
	Code  string
	Round int
	// Arena is the arena's ID.
	Arena int64
}

// arenaIdle returns the forfeits the lease holder logs for the room at
// clusterNow: its racers present who have made no move by
// arena.FirstMoveTime after the race's start, with the room's lock held.
func (rs *Rooms) arenaIdle(r *room, clusterNow time.Time) []RoomOp {
	if r.cfg.Arena.ID == 0 || r.phase != PhaseRacing || clusterNow.Before(r.startsDB.Add(arena.FirstMoveTime)) {
		return nil
	}
	var out []RoomOp
	for _, m := range r.members {
		if m.present() && !m.forfeit && m.progress.State == RacerPlaying && m.progress.Moves == 0 {
			out = append(out, RoomOp{Kind: OpArenaForfeit, Code: r.code, Round: r.round, Target: m.ID,
				Arena: &ArenaInfo{ID: r.cfg.Arena.ID}, At: clusterNow})
		}
	}
	return out
}

// arenaForfeitOnce is the once key of a racer's forfeit: two holders log
// one.
func arenaForfeitOnce(m RoomOp) string {
	return "arenaforfeit/" + m.Code + "/" + strconv.Itoa(m.Round) + "/" + m.Target
}

// arenaForfeit folds a forfeit: the racer, if still in the race, hears
// of it, leaves the race (counted as left: the race ends once the others
// are done) and may not come back to it; in the arena they are paused,
// for not playing (ArenaStanding.Idle), and their race's opponents are
// their last ones.
func (rs *Rooms) arenaForfeit(m RoomOp) error {
	r := rs.rooms[m.Code]
	if r == nil {
		return nil // the race ended and its room closed meanwhile
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	mb := r.member(m.Target)
	if r.cfg.Arena.ID == 0 || r.round != m.Round || r.phase != PhaseRacing || mb == nil || !mb.present() || mb.forfeit {
		return nil // they left, or the race ended, before it came
	}
	if s := rs.sessionOf(mb.inst, mb.sid); s != nil {
		rs.post(s, Forfeited{Code: r.code, Round: r.round, Arena: r.cfg.Arena.ID})
	}
	mb.forfeit = true
	ar := rs.arenas[r.cfg.Arena.ID]
	if p := ar.player(mb.ID); p != nil && p.code == r.code {
		var ids []string
		for _, o := range r.members {
			ids = append(ids, o.ID)
		}
		p.raced(ids)
		p.code, p.pauseNext, p.idle = "", false, true
		if p.sid == "" {
			p.state = ArenaAway
		} else {
			p.state = ArenaPaused
		}
		rs.arenaChanged(ar)
	}
	rs.leave(r, mb)
	return nil
}

// raced notes the racers of p's race that ended (ids, p among them) as
// p's last opponents, the game before's kept for pairing (recent).
func (p *arenaPlayer) raced(ids []string) {
	p.prev = p.last
	p.last = slices.DeleteFunc(slices.Clone(ids), func(o string) bool { return o == p.ID })
}

// recent is whom p raced in their last arena.RecentGames games, for
// pairing.
func (p *arenaPlayer) recent() []string {
	if len(p.prev) == 0 {
		return p.last
	}
	out := slices.Clone(p.last)
	for _, id := range p.prev {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}
