// Package budget holds the one limit on what costs the server or other
// players: wrong room codes, rooms made, accounts made, names taken, chat
// lines, spectator seats and reports. Each kind of action has a budget
// per client address (the server's address key: IPv4, an IPv6 address's
// /64, the address a trusted balancer's PROXY header gave) and one per
// account; a guest has no account and spends its address's only. So
// neither more keys, more guests nor more connections buy more.
//
// A budget is a token bucket: Limit.N actions at once, then one more
// every Limit.Per/N. Spectator seats are a count of seats held at once
// (Hold), not a rate. The budgets are one server's: across a cluster each
// server keeps its own (the README's limits section says so with the
// figures), so that counting costs no database write.
package budget

import (
	"errors"
	"fmt"
	"pyramid/floodlog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/log"
)

// Kind is a kind of action with a budget.
type Kind int

// The kinds of action with a budget.
const (
	// WrongCode is a room code typed that names no room.
	WrongCode Kind = iota
	// RoomMade is a race room opened.
	RoomMade
	// AccountMade is a player made for a key seen for the first time.
	AccountMade
	// NameTaken is a display name taken (a rename).
	NameTaken
	// ChatLine is a line said in a room's chat.
	ChatLine
	// SpectatorSeat is a spectator's seat held, at a room or a player
	// (Hold): Limit.N seats per address and per account at one target.
	SpectatorSeat
	// Report is a report of a player to the admins.
	Report
	// ChallengeMade is a challenge offered to another player.
	ChallengeMade
	// ArenaMade is an arena set up by a player who is no admin (on a
	// server without admins; each account also 3 a day, kept in the
	// database).
	ArenaMade
	numKinds
)

// kindInfo is what the package says of each kind: its name in metrics
// and logs, its words in a refusal, its flag and its default.
var kindInfo = [numKinds]struct {
	name, words, flag string
	def               Limit
}{
	WrongCode:     {"wrong_code", "wrong room codes", "limit-wrong-codes", Limit{N: 10, Per: 2 * time.Minute}},
	RoomMade:      {"room_made", "new rooms", "limit-rooms", Limit{N: 20, Per: 10 * time.Minute}},
	AccountMade:   {"account_made", "new accounts", "limit-accounts", Limit{N: 20, Per: time.Hour}},
	NameTaken:     {"name_taken", "name changes", "limit-renames", Limit{N: 10, Per: time.Hour}},
	ChatLine:      {"chat_line", "chat lines", "limit-chat", Limit{N: 60, Per: time.Minute}},
	SpectatorSeat: {"spectator_seat", "spectator seats here", "limit-spectator-seats", Limit{N: 5}},
	Report:        {"report", "reports", "limit-reports", Limit{N: 20, Per: 24 * time.Hour}},
	ChallengeMade: {"challenge_made", "challenges", "limit-challenges", Limit{N: 20, Per: time.Hour}},
	ArenaMade:     {"arena_made", "arenas set up", "limit-arenas", Limit{N: 10, Per: 24 * time.Hour}},
}

// Kinds returns every kind, in the order Stats reports them.
func Kinds() []Kind {
	out := make([]Kind, numKinds)
	for i := range out {
		out[i] = Kind(i)
	}
	return out
}

// String returns the kind's name in metrics and logs ("wrong_code").
func (k Kind) String() string {
	if k < 0 || k >= numKinds {
		return "kind_" + strconv.Itoa(int(k))
	}
	return kindInfo[k].name
}

// Flag returns the name of the serve flag that sets the kind's limit.
func (k Kind) Flag() string {
	if k < 0 || k >= numKinds {
		return ""
	}
	return kindInfo[k].flag
}

// Default returns the kind's limit when none is configured: one a club
// never meets in normal play.
func (k Kind) Default() Limit {
	if k < 0 || k >= numKinds {
		return Limit{}
	}
	return kindInfo[k].def
}

// words is the kind in a refusal ("wrong room codes").
func (k Kind) words() string {
	if k < 0 || k >= numKinds {
		return k.String()
	}
	return kindInfo[k].words
}

// held reports whether the kind counts seats held rather than a rate.
func (k Kind) held() bool { return k == SpectatorSeat }

// Limit is a kind's budget: N actions at once, then one every Per/N (N
// per Per in the long run). For seats held (SpectatorSeat) N is the
// most held at once and Per is unused.
type Limit struct {
	N   int
	Per time.Duration
}

// String formats l as ParseLimit reads it: "10/2m", "20/24h", or "5"
// for seats.
func (l Limit) String() string {
	if l.Per == 0 {
		return strconv.Itoa(l.N)
	}
	// Duration.String writes 2m as 2m0s and 1h as 1h0m0s.
	per := l.Per.String()
	if strings.HasSuffix(per, "m0s") {
		per = strings.TrimSuffix(per, "0s")
	}
	if strings.HasSuffix(per, "h0m") {
		per = strings.TrimSuffix(per, "0m")
	}
	return strconv.Itoa(l.N) + "/" + per
}

// ParseLimit reads "N/DURATION" (10/1m: ten a minute, ten at once) or,
// for seats held, "N".
func ParseLimit(text string) (Limit, error) {
	count, per, rate := strings.Cut(strings.TrimSpace(text), "/")
	n, err := strconv.Atoi(count)
	if err != nil || n <= 0 {
		return Limit{}, fmt.Errorf("limit %q: %q is not a positive number", text, count)
	}
	l := Limit{N: n}
	if rate {
		if l.Per, err = time.ParseDuration(per); err != nil || l.Per <= 0 {
			return Limit{}, fmt.Errorf("limit %q: %q is not a positive duration", text, per)
		}
	}
	return l, nil
}

// check reports a limit that makes no sense for k.
func (l Limit) check(k Kind) error {
	switch {
	case l.N <= 0:
		return fmt.Errorf("budget %s (--%s): %s: want a positive number", k, k.Flag(), l)
	case k.held() && l.Per != 0:
		return fmt.Errorf("budget %s (--%s): %s: seats are a number held at once, not a rate", k, k.Flag(), l)
	case !k.held() && l.Per <= 0:
		return fmt.Errorf("budget %s (--%s): %s: want N/DURATION, e.g. %s", k, k.Flag(), l, k.Default())
	}
	return nil
}

// Who is who acts: the address key of their connection ("" when
// unknown) and their account ("" for a guest, who spends their
// address's budget only).
type Who struct {
	Addr    string
	Account string
}

// ErrRefused is what every refusal of a budget is (errors.Is).
var ErrRefused = errors.New("over budget")

// Refusal is a budget's refusal: which kind, whose budget (the
// address's or the account's) and when to try again. Its message is one
// sentence that fits an 80-column message line.
type Refusal struct {
	Kind   Kind
	ByAddr bool
	// Wait is how long until the budget allows one more; 0 for seats
	// held, which free up when one is let go.
	Wait time.Duration
}

// Error says which limit and when to try again.
func (r *Refusal) Error() string {
	whose := "your account"
	if r.ByAddr {
		whose = "your address"
	}
	if r.Kind.held() {
		return "too many " + r.Kind.words() + " from " + whose + ": leave one first"
	}
	return "too many " + r.Kind.words() + " from " + whose + ": try again in " + inWords(r.Wait)
}

// Is makes every refusal ErrRefused.
func (r *Refusal) Is(target error) bool { return target == ErrRefused }

// inWords says a wait for people: "a second", "40 seconds", "3 minutes",
// "2 hours", rounded up.
func inWords(d time.Duration) string {
	unit, name := time.Second, "second"
	switch {
	case d > 2*time.Hour:
		unit, name = time.Hour, "hour"
	case d > 2*time.Minute:
		unit, name = time.Minute, "minute"
	}
	n := max(1, int((d+unit-1)/unit))
	if n == 1 {
		return "a " + name
	}
	return strconv.Itoa(n) + " " + name + "s"
}

// DefaultMaxKeys is how many budgets (kind and address or account) are
// kept at most unless Config says: past it, those idle (full again) are
// forgotten, and if none is, a quarter of them at random.
const DefaultMaxKeys = 1 << 16

// DefaultLogInterval is how often the refusals are summed up in the log
// unless Config says.
const DefaultLogInterval = 10 * time.Second

// Config configures the budgets. The zero value of a field means its
// default.
type Config struct {
	// Limits are the kinds' limits; a kind missing or zero has its
	// Default.
	Limits map[Kind]Limit
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// MaxKeys bounds the budgets kept (DefaultMaxKeys when 0).
	MaxKeys int
	// Logger, when set, is told of refusals: the first of an address in
	// a LogInterval at once, the rest in one summary line per address at
	// its end.
	Logger *log.Logger
	// LogInterval is DefaultLogInterval when 0.
	LogInterval time.Duration
}

// Budgets are the budgets of one server. They are safe for concurrent
// use.
type Budgets struct {
	limits  [numKinds]Limit
	now     func() time.Time
	maxKeys int
	log     *floodlog.Log

	allowed, refused [numKinds]atomic.Uint64

	mu      sync.Mutex
	buckets map[key]*bucket
	seats   map[seatKey]int
}

// scope is whose budget a bucket is.
type scope uint8

const (
	byAddr scope = iota
	byAccount
)

type key struct {
	kind  Kind
	scope scope
	id    string
}

type seatKey struct {
	key
	target string
}

// bucket is a token bucket kept as the moment it is full again (the
// generic cell rate algorithm's theoretical arrival time): each action
// moves it on by Limit.interval, and an action is allowed while it is
// less than Limit.tolerance ahead of now. Durations, not fractions of a
// token: the counts are exact.
type bucket struct {
	tat time.Time
}

// interval is the time one action takes to come back.
func (l Limit) interval() time.Duration { return l.Per / time.Duration(l.N) }

// tolerance is how far ahead of now a bucket may be full again and still
// allow an action: the burst, less the action itself.
func (l Limit) tolerance() time.Duration { return l.Per - l.interval() }

// New returns the budgets of cfg, or an error naming a limit that makes
// no sense.
func New(cfg Config) (*Budgets, error) {
	b := &Budgets{now: cfg.Now, maxKeys: cfg.MaxKeys, buckets: map[key]*bucket{}, seats: map[seatKey]int{}}
	if b.now == nil {
		b.now = time.Now
	}
	if b.maxKeys <= 0 {
		b.maxKeys = DefaultMaxKeys
	}
	for _, k := range Kinds() {
		l := cfg.Limits[k]
		if l == (Limit{}) {
			l = k.Default()
		}
		if err := l.check(k); err != nil {
			return nil, err
		}
		b.limits[k] = l
	}
	if cfg.Logger != nil {
		interval := cfg.LogInterval
		if interval <= 0 {
			interval = DefaultLogInterval
		}
		b.log = floodlog.New(cfg.Logger, interval, "budget refusals")
	}
	return b, nil
}

// Limit returns the limit of kind k.
func (b *Budgets) Limit(k Kind) Limit { return b.limits[k] }

// keys returns the budgets w spends of kind k: the address's and the
// account's, as they are known.
func keys(k Kind, w Who) []key {
	out := make([]key, 0, 2)
	if w.Addr != "" {
		out = append(out, key{kind: k, scope: byAddr, id: w.Addr})
	}
	if w.Account != "" {
		out = append(out, key{kind: k, scope: byAccount, id: w.Account})
	}
	return out
}

// Check reports whether w may do one action of kind k now, spending
// nothing: what a look-up that must learn nothing while refused asks
// first (a wrong room code is spent with Take once it is known to be
// wrong). A refusal is counted (Stats) and logged as Take's is; an
// allowance is not, the Take that may follow counts it.
func (b *Budgets) Check(k Kind, w Who) error {
	b.mu.Lock()
	_, err := b.refusalLocked(k, w, b.now())
	b.mu.Unlock()
	if err != nil {
		b.count(k, w, err)
	}
	return err
}

// Take spends one action of kind k from w's budgets (both, or neither
// when one is spent), or returns the Refusal that says which and when.
// The verdict is counted (Stats) and a refusal logged.
func (b *Budgets) Take(k Kind, w Who) error {
	if k.held() {
		return fmt.Errorf("budget: %s is held, not taken", k)
	}
	b.mu.Lock()
	now := b.now()
	ks, err := b.refusalLocked(k, w, now)
	if err == nil {
		for _, kk := range ks {
			b.spendLocked(kk, now)
		}
	}
	b.mu.Unlock()
	b.count(k, w, err)
	return err
}

// refusalLocked returns w's buckets of kind k, or the refusal of the
// one that cannot spend, with b.mu held.
func (b *Budgets) refusalLocked(k Kind, w Who, now time.Time) ([]key, error) {
	ks := keys(k, w)
	l := b.limits[k]
	var worst *Refusal
	for _, kk := range ks {
		bk := b.buckets[kk]
		if bk == nil {
			continue // full
		}
		if wait := bk.tat.Sub(now) - l.tolerance(); wait > 0 && (worst == nil || wait > worst.Wait) {
			worst = &Refusal{Kind: k, ByAddr: kk.scope == byAddr, Wait: wait}
		}
	}
	if worst != nil {
		return nil, worst
	}
	return ks, nil
}

// spendLocked spends one action of bucket kk at now, with b.mu held.
func (b *Budgets) spendLocked(kk key, now time.Time) {
	bk := b.buckets[kk]
	if bk == nil {
		if len(b.buckets) >= b.maxKeys {
			b.forgetLocked(now)
		}
		bk = &bucket{tat: now}
		b.buckets[kk] = bk
	}
	if bk.tat.Before(now) {
		bk.tat = now
	}
	bk.tat = bk.tat.Add(b.limits[kk.kind].interval())
}

// forgetLocked makes room in a full table: the buckets full again are
// forgotten (a full bucket is the same as none); if that frees too
// little, a quarter of the others, at random (map order), so that the
// table stays bounded whatever an attacker with many addresses does.
func (b *Budgets) forgetLocked(now time.Time) {
	for kk, bk := range b.buckets {
		if !bk.tat.After(now) {
			delete(b.buckets, kk)
		}
	}
	if len(b.buckets) < b.maxKeys*3/4 {
		return
	}
	drop := len(b.buckets) / 4
	for kk := range b.buckets {
		if drop == 0 {
			break
		}
		delete(b.buckets, kk)
		drop--
	}
}

// Hold takes one seat of kind k (SpectatorSeat) at target (a room's
// code, a player's ID) for w: at most the kind's Limit.N at one target
// per address and per account. release gives it back; call it once.
func (b *Budgets) Hold(k Kind, w Who, target string) (release func(), err error) {
	if !k.held() {
		return nil, fmt.Errorf("budget: %s is taken, not held", k)
	}
	ks := keys(k, w)
	b.mu.Lock()
	for _, kk := range ks {
		if b.seats[seatKey{kk, target}] >= b.limits[k].N {
			err = &Refusal{Kind: k, ByAddr: kk.scope == byAddr}
			break
		}
	}
	if err == nil {
		if len(b.seats) >= b.maxKeys {
			// Every seat is somebody's, held now: past the bound, new
			// targets are not counted rather than refused.
			ks = nil
		}
		for _, kk := range ks {
			b.seats[seatKey{kk, target}]++
		}
	}
	b.mu.Unlock()
	b.count(k, w, err)
	if err != nil {
		return nil, err
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			for _, kk := range ks {
				sk := seatKey{kk, target}
				if b.seats[sk] <= 1 {
					delete(b.seats, sk)
				} else {
					b.seats[sk]--
				}
			}
		})
	}, nil
}

// count counts a verdict and logs a refusal.
func (b *Budgets) count(k Kind, w Who, err error) {
	if err == nil {
		b.allowed[k].Add(1)
		return
	}
	b.refused[k].Add(1)
	if b.log != nil {
		who := w.Addr
		if who == "" {
			who = "account " + w.Account
		}
		kv := []any{"address", who, "kind", k.String(), "refusal", err.Error()}
		if w.Account != "" {
			kv = append(kv, "account", w.Account)
		}
		b.log.Note(who, k.String(), "budget refused", kv...)
	}
}

// Stat is one kind's count of actions allowed and refused since start.
type Stat struct {
	Kind             Kind
	Allowed, Refused uint64
}

// Stats returns the counts of every kind, in the order of Kinds.
func (b *Budgets) Stats() []Stat {
	out := make([]Stat, 0, numKinds)
	for _, k := range Kinds() {
		out = append(out, Stat{Kind: k, Allowed: b.allowed[k].Load(), Refused: b.refused[k].Load()})
	}
	return out
}

// Close stops the summary of the refusals due.
func (b *Budgets) Close() {
	if b.log != nil {
		b.log.Stop()
	}
}
