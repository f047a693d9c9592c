package server

import (
	"fmt"
	"io"
	mrand "math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// lazyMsg is a message whose frame may wait: a room's event or a clock
// tick, as the tui's are.
type lazyMsg struct {
	n     int
	slack time.Duration
}

func (m lazyMsg) FrameSlack() time.Duration { return m.slack }

// gappedMsg is a message whose frame comes at least gap after the last
// one: a room's event, as the tui's are.
type gappedMsg struct {
	n   int
	gap time.Duration
}

func (m gappedMsg) FrameGap() time.Duration { return m.gap }

// The test messages keep the renderer's contract (frame.go).
var (
	_ FrameSlacker = lazyMsg{}
	_ FrameGapper  = gappedMsg{}
)

// countModel shows how many messages of each kind it took: every
// message changes the view, so that every frame drawn is written.
type countModel struct{ keys, events, lazy int }

func (m countModel) Init() tea.Cmd { return nil }
func (m countModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg.(type) {
	case tea.KeyMsg:
		m.keys++
	case lazyMsg, gappedMsg:
		m.lazy++
	case eventMsg:
		m.events++
	}
	return m, nil
}
func (m countModel) View() string {
	return fmt.Sprintf("keys %d\nevents %d\nlazy %d", m.keys, m.events, m.lazy)
}

// simTimer is a pacing timer on the simulation's clock.
type simTimer struct {
	due    time.Time
	f      func()
	active bool
	sim    *paceSim
}

func (t *simTimer) Stop() bool {
	was := t.active
	t.active = false
	return was
}

func (t *simTimer) Reset(d time.Duration) bool {
	was := t.active
	t.due, t.active = t.sim.now.Add(d), true
	return was
}

// paceSim runs a session's messages through the renderer on a clock of
// its own: the messages at their times, the pacing timer's flushes at
// theirs.
type paceSim struct {
	now    time.Time
	timers []*simTimer
	r      *frameRenderer
	m      tea.Model
	fires  int // the pacing timer's flushes: wake-ups of the session's program
}

// simArrival is a message the session gets at a time.
type simArrival struct {
	at  time.Duration
	msg tea.Msg
}

// newPaceSim is a session that has just drawn its first frame at t0.
func newPaceSim() *paceSim {
	s := &paceSim{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	s.r = newFrameRenderer(io.Discard, func() time.Time { return s.now }, 100, 34)
	s.r.afterFunc = func(d time.Duration, f func()) flushTimer {
		t := &simTimer{due: s.now.Add(d), f: f, active: true, sim: s}
		s.timers = append(s.timers, t)
		return t
	}
	s.m = &framedModel{model: countModel{}, r: s.r}
	s.r.send = func(msg tea.Msg) { s.m, _ = s.m.Update(msg) } // the flush, at the timer's time
	s.m.Init()
	return s
}

// run delivers the arrivals (sorted by time) and the timers' flushes in
// time order, and returns, for each arrival, the time from its arrival
// to the frame that first showed it.
func (s *paceSim) run(arrivals []simArrival) []time.Duration {
	start := s.now
	shown := make([]time.Duration, len(arrivals))
	waiting := []int{}
	frames := s.r.frames
	settle := func() {
		if s.r.frames != frames {
			frames = s.r.frames
			for _, i := range waiting {
				shown[i] = s.now.Sub(start.Add(arrivals[i].at))
			}
			waiting = waiting[:0]
		}
	}
	for i := 0; ; {
		var next *simTimer
		for _, t := range s.timers {
			if t.active && (next == nil || t.due.Before(next.due)) {
				next = t
			}
		}
		switch {
		case next != nil && (i == len(arrivals) || !start.Add(arrivals[i].at).Before(next.due)):
			s.now = next.due
			next.active = false
			s.fires++
			next.f()
		case i < len(arrivals):
			s.now = start.Add(arrivals[i].at)
			waiting = append(waiting, i)
			s.m, _ = s.m.Update(arrivals[i].msg)
			i++
		default:
			return shown
		}
		settle()
	}
}

// racerLoad is one racer's messages at 1,000 racers for d, as
// tools/loadgen's race mode makes them: a key every 500 ms, every fourth
// a move typed at the prompt (":" and the move in one read, then enter)
// whose stored answer comes storeWait later with the room's echo of it
// before; seven opponents who each move every 2 s; the race clock's tick
// every second. eventGap is the room events' gap (FrameGap), tickSlack
// the ticks' slack.
func racerLoad(d, storeWait, eventGap, tickSlack time.Duration, seed uint64) (msgs []simArrival, opponent []bool) {
	rng := mrand.New(mrand.NewPCG(seed, 1))
	add := func(at time.Duration, msg tea.Msg, opp bool) {
		msgs = append(msgs, simArrival{at: at, msg: msg})
		opponent = append(opponent, opp)
	}
	phase := time.Duration(rng.Int64N(int64(500 * time.Millisecond)))
	for k := 0; ; k++ {
		at := phase + time.Duration(k)*500*time.Millisecond
		if at >= d {
			break
		}
		if k%4 == 3 {
			add(at, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(":3a")}, false)
			add(at+50*time.Microsecond, tea.KeyMsg{Type: tea.KeyEnter}, false)
			add(at+storeWait*2/3, gappedMsg{n: k, gap: eventGap}, false) // the room's echo
			add(at+storeWait, eventMsg(k), false)                        // the store's answer
			continue
		}
		add(at, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("j")}, false)
	}
	for o := range 7 {
		phase := time.Duration(rng.Int64N(int64(2 * time.Second)))
		for at := phase; at < d; at += 2 * time.Second {
			jitter := time.Duration(rng.Int64N(int64(storeWait)))
			add(at+jitter, gappedMsg{n: 1000 + o, gap: eventGap}, true)
		}
	}
	for at := time.Duration(rng.Int64N(int64(time.Second))); at < d; at += time.Second {
		add(at, lazyMsg{n: -1, slack: tickSlack}, false)
	}
	idx := make([]int, len(msgs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return msgs[idx[a]].at < msgs[idx[b]].at })
	sorted, opp := make([]simArrival, len(msgs)), make([]bool, len(msgs))
	for i, j := range idx {
		sorted[i], opp[i] = msgs[j], opponent[j]
	}
	return sorted, opp
}

// TestPaceFramesPerRacer: with the room events' gap and the clock ticks'
// slack, a racer at 1,000 racers' pace gets fewer frames a second, its
// keys none later, and an opponent's move waits at most the gap.
func TestPaceFramesPerRacer(t *testing.T) {
	const d = 120 * time.Second
	type result struct {
		fps             float64
		flushes         float64       // the pacing timer's wake-ups a second
		keyWait         time.Duration // the most a key's frame waited (inputGap after a frame, at most)
		oppP50, oppMost time.Duration // an opponent's move: arrival to frame
	}
	simulate := func(eventGap, tickSlack time.Duration) result {
		var res result
		var opp []time.Duration
		for seed := range uint64(8) {
			msgs, isOpp := racerLoad(d, 170*time.Millisecond, eventGap, tickSlack, seed)
			s := newPaceSim()
			f0 := s.r.frames
			shown := s.run(msgs)
			res.fps += float64(s.r.frames-f0) / d.Seconds() / 8
			res.flushes += float64(s.fires) / d.Seconds() / 8
			for i, a := range msgs {
				if k, ok := a.msg.(tea.KeyMsg); ok && k.Type == tea.KeyRunes {
					res.keyWait = max(res.keyWait, shown[i])
				}
				if isOpp[i] {
					opp = append(opp, shown[i])
				}
			}
		}
		slices.Sort(opp)
		res.oppP50, res.oppMost = opp[len(opp)/2], opp[len(opp)-1]
		return res
	}
	const gap, slack = 50 * time.Millisecond, 400 * time.Millisecond // tui's raceEventGap, raceTickSlack
	for _, tt := range []struct {
		name            string
		eventGap, slack time.Duration
	}{{"as before", eventGap, 0}, {"the ticks' slack", eventGap, slack}, {"the events' gap and the ticks' slack", gap, slack}, {"a 100 ms gap", 100 * time.Millisecond, slack}} {
		r := simulate(tt.eventGap, tt.slack)
		t.Logf("%s: %.2f frames/s and %.2f pacing-timer wake-ups/s, a key waits at most %v, an opponent's move p50 %v, at most %v",
			tt.name, r.fps, r.flushes, r.keyWait, r.oppP50, r.oppMost)
	}
	before, after := simulate(eventGap, 0), simulate(gap, slack)
	if after.keyWait > inputGap || before.keyWait > inputGap {
		t.Errorf("a key's frame waited %v (%v before), want at most inputGap: keys never wait for the gap or the slack", after.keyWait, before.keyWait)
	}
	if after.oppMost > gap {
		t.Errorf("an opponent's move waited %v for its frame, want at most the gap, %v", after.oppMost, gap)
	}
	if after.fps > before.fps*0.9 {
		t.Errorf("%.2f frames/s with the gap and the slack, %.2f without: want a tenth fewer at least", after.fps, before.fps)
	}
}

// TestPaceGap: an event with a gap is drawn at once when the last frame
// is older, and else held until the gap has passed, sharing its frame
// with the events that come meanwhile; a key draws them all at once.
func TestPaceGap(t *testing.T) {
	s := newPaceSim()
	step := func(after time.Duration, msg tea.Msg) {
		s.now = s.now.Add(after)
		s.m, _ = s.m.Update(msg)
	}
	step(time.Second, gappedMsg{gap: 100 * time.Millisecond})
	if s.r.frames != 2 || s.r.held {
		t.Fatalf("an event long after a frame: frames %d held %v, want it drawn at once", s.r.frames, s.r.held)
	}
	step(30*time.Millisecond, gappedMsg{gap: 100 * time.Millisecond})
	if s.r.frames != 2 || !s.r.held || !s.r.due.Equal(s.r.last.Add(100*time.Millisecond)) {
		t.Fatalf("an event 30ms after a frame: frames %d held %v due %v after it, want held for the gap", s.r.frames, s.r.held, s.r.due.Sub(s.r.last))
	}
	step(30*time.Millisecond, gappedMsg{gap: 100 * time.Millisecond})
	s.run(nil)
	if s.r.frames != 3 || s.r.held || s.now.Sub(s.r.last) != 0 {
		t.Fatalf("after the gap: frames %d held %v, want one frame for both", s.r.frames, s.r.held)
	}
	step(10*time.Millisecond, gappedMsg{gap: 100 * time.Millisecond})
	step(10*time.Millisecond, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("j")})
	if s.r.frames != 4 || s.r.held || s.r.armed {
		t.Fatalf("a key after a held event: frames %d held %v armed %v, want one frame for both and the timer stopped", s.r.frames, s.r.held, s.r.armed)
	}
}

// TestPaceSlackHeldUntilAnotherFrame: a lazy message's frame waits for
// its slack, a key within it carries it (and the timer is stopped: no
// wake-up for nothing), and lazy messages that come while one is held
// join it.
func TestPaceSlackHeldUntilAnotherFrame(t *testing.T) {
	s := newPaceSim()
	step := func(after time.Duration, msg tea.Msg) {
		s.now = s.now.Add(after)
		s.m, _ = s.m.Update(msg)
	}
	step(time.Second, lazyMsg{slack: 400 * time.Millisecond})
	if s.r.frames != 1 || !s.r.held || !s.r.armed || !s.r.due.Equal(s.now.Add(400*time.Millisecond)) {
		t.Fatalf("a lazy message: frames %d held %v armed %v due in %v, want held for 400ms", s.r.frames, s.r.held, s.r.armed, s.r.due.Sub(s.now))
	}
	step(100*time.Millisecond, lazyMsg{slack: 50 * time.Millisecond}) // due sooner: the timer moves
	if !s.r.due.Equal(s.now.Add(50 * time.Millisecond)) {
		t.Fatalf("a second lazy message due in %v, want 50ms", s.r.due.Sub(s.now))
	}
	step(10*time.Millisecond, lazyMsg{slack: 400 * time.Millisecond}) // later: joins
	if !s.r.due.Equal(s.now.Add(40 * time.Millisecond)) {
		t.Fatalf("a third lazy message moved the timer to %v, want it left at 40ms", s.r.due.Sub(s.now))
	}
	step(10*time.Millisecond, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("j")})
	if s.r.frames != 2 || s.r.held || s.r.armed {
		t.Fatalf("a key: frames %d held %v armed %v, want one frame for all and the timer stopped", s.r.frames, s.r.held, s.r.armed)
	}
	if active := slices.IndexFunc(s.timers, func(t *simTimer) bool { return t.active }); active >= 0 {
		t.Fatal("the timer still runs after the frame it waited for went out")
	}
	step(time.Second, lazyMsg{slack: 0}) // no slack: at once, as any event
	if s.r.frames != 3 {
		t.Fatalf("a message with no slack: frames %d, want 3", s.r.frames)
	}
	step(time.Second, lazyMsg{slack: 30 * time.Millisecond})
	s.run(nil) // the timer's flush
	if s.r.frames != 4 || s.r.held {
		t.Fatalf("after the slack: frames %d held %v, want the frame drawn", s.r.frames, s.r.held)
	}
}

// TestPaceKeysOfOneRead: keys that came in one read (a move typed at the
// prompt with its enter) make one frame; a key alone and a paste are
// drawn at once, and keys of one read with nothing after them wait
// inputGap at most.
func TestPaceKeysOfOneRead(t *testing.T) {
	s := newPaceSim()
	step := func(after time.Duration, msg tea.Msg) {
		s.now = s.now.Add(after)
		s.m, _ = s.m.Update(msg)
	}
	step(time.Second, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("j")})
	if s.r.frames != 2 {
		t.Fatalf("a key alone: frames %d, want it drawn at once", s.r.frames)
	}
	step(time.Second, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(":3a")})
	if s.r.frames != 2 || !s.r.held || !s.r.due.Equal(s.now.Add(inputGap)) {
		t.Fatalf("keys of one read: frames %d held %v due in %v, want held for inputGap", s.r.frames, s.r.held, s.r.due.Sub(s.now))
	}
	step(50*time.Microsecond, tea.KeyMsg{Type: tea.KeyEnter})
	if s.r.frames != 3 || s.r.held || s.r.armed {
		t.Fatalf("their enter: frames %d held %v armed %v, want one frame for the read", s.r.frames, s.r.held, s.r.armed)
	}
	step(time.Second, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("pasted text"), Paste: true})
	if s.r.frames != 4 {
		t.Fatalf("a paste: frames %d, want it drawn at once", s.r.frames)
	}
	step(time.Second, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("ab")})
	s.run(nil)
	if s.r.frames != 5 || s.now.Sub(s.r.last) != 0 {
		t.Fatalf("keys of one read alone: frames %d, want one after inputGap", s.r.frames)
	}
}
