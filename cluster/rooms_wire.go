package cluster

import (
	"time"

	"pyramid/arena"
	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/rating"
)

// The wire forms of the rooms' ops (on RoomsTopic) and of a server's
// progress of a room (on ProgressTopic), as JSON. Short keys: a full
// room's progress must fit one event of the bus (bus.MaxBody).
type (
	roomMsg struct {
		Op      string        `json:"op"`
		RoomID  string        `json:"id,omitempty"` // an open's: the new room's ID
		Code    string        `json:"c"`
		Inst    string        `json:"i"`
		Sid     string        `json:"s,omitempty"`
		Wait    bool          `json:"w,omitempty"` // the server that logged it awaits the verdict
		Who     *wireEntrant  `json:"p,omitempty"`
		Cfg     *wireCfg      `json:"cfg,omitempty"`
		Ready   bool          `json:"r,omitempty"`
		Round   int           `json:"n,omitempty"`
		At      int64         `json:"at,omitempty"` // Unix ms on the cluster's clock
		Text    string        `json:"t,omitempty"`
		Target  string        `json:"x,omitempty"`
		Muted   bool          `json:"m,omitempty"`
		Results []wirePlacing `json:"res,omitempty"`
		Gone    string        `json:"g,omitempty"` // a server whose sessions are gone
		// Ratings are a rated's: absent from the ops of servers before it.
		Ratings []wireRating `json:"rat,omitempty"`
		// The arenas' fields: absent from the ops of servers before them.
		Arena   *wireArena      `json:"ar,omitempty"`
		Lines   []wireArenaLine `json:"al,omitempty"`
		Players []string        `json:"pl,omitempty"`
		Pause   bool            `json:"pz,omitempty"`
		Racer   *wireRacer      `json:"rr,omitempty"`
	}
	wireArena struct {
		ID      int64  `json:"id"`
		Name    string `json:"n,omitempty"`
		Rules   string `json:"r,omitempty"`
		StartMS int64  `json:"s,omitempty"`
		EndMS   int64  `json:"e,omitempty"`
		GameMS  int64  `json:"g,omitempty"`
	}
	// wireArenaLine is an arena player's line (lobby.ArenaStanding).
	wireArenaLine struct {
		ID        string `json:"id"`
		Points    int    `json:"p"`
		Streak    int    `json:"s,omitempty"`
		Games     int    `json:"g"`
		Wins      int    `json:"w,omitempty"`
		Berserks  int    `json:"b,omitempty"`
		ReachedMS int64  `json:"t,omitempty"`
	}
	wireRating struct {
		ID          string  `json:"id"`
		Standing    string  `json:"s"`
		Reason      string  `json:"r,omitempty"`
		Before      float64 `json:"b,omitempty"`
		After       float64 `json:"a,omitempty"`
		Provisional bool    `json:"p,omitempty"`
	}
	wireEntrant struct {
		ID    string `json:"id"`
		Name  string `json:"n"`
		Guest bool   `json:"g,omitempty"`
		Addr  string `json:"a,omitempty"` // absent from the ops of servers before mutes held for addresses
	}
	wireCfg struct {
		Rules   string `json:"r"`
		Deal    uint64 `json:"d"`
		Verdict int    `json:"v"`
		Public  bool   `json:"p,omitempty"`
		LimitMS int64  `json:"l"`
		Max     int    `json:"m"`
		Rated   bool   `json:"rt,omitempty"` // absent from the ops of servers before rated rooms: unrated
	}
	wirePlacing struct {
		Place   int    `json:"p"`
		ID      string `json:"id"`
		Name    string `json:"n"`
		Guest   bool   `json:"g,omitempty"`
		GameID  int64  `json:"gid,omitempty"`
		State   int    `json:"s"`
		Removed int    `json:"r"`
		Moves   int    `json:"m"`
		TimeMS  int64  `json:"t"`
		Berserk bool   `json:"b,omitempty"`
	}
	progressMsg struct {
		Inst   string      `json:"i"`
		Round  int         `json:"n"`
		Racers []wireRacer `json:"r"`
		// T is when the progress was made, Unix µs on the sender's
		// clock: set only when RoomsConfig.Trace is.
		T int64 `json:"t,omitempty"`
	}
	wireLine struct {
		N    int      `json:"n"`
		Tail []string `json:"t,omitempty"`
		Sum  uint32   `json:"s"`
	}
	wireRacer struct {
		ID       string    `json:"id"`
		Line     *wireLine `json:"ln,omitempty"`
		Removed  int       `json:"r"`
		Moves    int       `json:"m"`
		Pass     int       `json:"p"`
		Board    uint64    `json:"b"`
		State    int       `json:"s"`
		GameID   int64     `json:"g,omitempty"`
		LastMS   int64     `json:"l,omitempty"`
		FinishMS int64     `json:"f,omitempty"`
	}
)

// unixMilli is t in Unix ms, 0 for the zero time.
func unixMilli(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// fromUnixMilli is unixMilli's inverse.
func fromUnixMilli(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// toWire is op as it goes on the bus.
func toWire(op lobby.RoomOp) roomMsg {
	m := roomMsg{Op: string(op.Kind), RoomID: op.RoomID, Code: op.Code, Inst: op.Inst, Sid: op.Sid, Ready: op.Ready,
		Round: op.Round, At: unixMilli(op.At), Text: op.Text, Target: op.Target, Muted: op.Muted, Gone: op.Gone}
	if op.Who != nil {
		m.Who = &wireEntrant{ID: op.Who.ID, Name: op.Who.Name, Guest: op.Who.Guest, Addr: op.Who.Addr}
	}
	if c := op.Cfg; c != nil {
		m.Cfg = &wireCfg{Rules: c.RulesID, Deal: c.Deal, Verdict: int(c.Verdict), Public: c.Public,
			LimitMS: c.TimeLimit.Milliseconds(), Max: c.MaxPlayers, Rated: c.Rated}
	}
	for _, p := range op.Results {
		m.Results = append(m.Results, wirePlacing{Place: p.Place, ID: p.ID, Name: p.Name, Guest: p.Guest, GameID: p.GameID,
			State: int(p.State), Removed: p.Removed, Moves: p.Moves, TimeMS: p.Time.Milliseconds(), Berserk: p.Berserk})
	}
	for _, c := range op.Ratings {
		m.Ratings = append(m.Ratings, wireRating{ID: c.ID, Standing: c.Standing.String(), Reason: string(c.Reason),
			Before: c.Before, After: c.After, Provisional: c.Provisional})
	}
	if a := op.Arena; a != nil {
		m.Arena = &wireArena{ID: a.ID, Name: a.Name, Rules: a.RulesID, StartMS: unixMilli(a.Start), EndMS: unixMilli(a.End),
			GameMS: a.GameTime.Milliseconds()}
	}
	for _, l := range op.Lines {
		m.Lines = append(m.Lines, wireArenaLine{ID: l.ID, Points: l.Points, Streak: l.Streak, Games: l.Games, Wins: l.Wins,
			Berserks: l.Berserks, ReachedMS: unixMilli(l.Reached)})
	}
	m.Players, m.Pause = op.Players, op.Pause
	if op.Racer != nil {
		w := toWireRacer(*op.Racer)
		m.Racer = &w
	}
	return m
}

// op is m as the rooms apply it (they check and clean it).
func (m roomMsg) op() lobby.RoomOp {
	op := lobby.RoomOp{Kind: lobby.OpKind(m.Op), RoomID: m.RoomID, Code: m.Code, Inst: m.Inst, Sid: m.Sid, Ready: m.Ready,
		Round: m.Round, At: fromUnixMilli(m.At), Text: m.Text, Target: m.Target, Muted: m.Muted, Gone: m.Gone}
	if m.Who != nil {
		op.Who = &lobby.Entrant{ID: m.Who.ID, Name: m.Who.Name, Guest: m.Who.Guest, Addr: m.Who.Addr}
	}
	if c := m.Cfg; c != nil {
		op.Cfg = &lobby.OpConfig{RulesID: c.Rules, Deal: c.Deal, Verdict: engine.Verdict(c.Verdict), Public: c.Public,
			TimeLimit: time.Duration(c.LimitMS) * time.Millisecond, MaxPlayers: c.Max, Rated: c.Rated}
	}
	for _, w := range m.Results {
		op.Results = append(op.Results, lobby.Placing{Place: w.Place, ID: w.ID, Name: w.Name, Guest: w.Guest, GameID: w.GameID,
			State: lobby.RacerState(w.State), Removed: w.Removed, Moves: w.Moves, Time: time.Duration(w.TimeMS) * time.Millisecond,
			Berserk: w.Berserk})
	}
	for _, w := range m.Ratings {
		// A standing this server does not know reads as aborted: it
		// shows no rating rather than a wrong one.
		st, _ := rating.ParseStanding(w.Standing)
		op.Ratings = append(op.Ratings, lobby.RatingChange{ID: w.ID, Standing: st, Reason: rating.Reason(w.Reason),
			Before: w.Before, After: w.After, Provisional: w.Provisional})
	}
	if a := m.Arena; a != nil {
		op.Arena = &lobby.ArenaInfo{ID: a.ID, Name: a.Name, RulesID: a.Rules, Start: fromUnixMilli(a.StartMS), End: fromUnixMilli(a.EndMS),
			GameTime: time.Duration(a.GameMS) * time.Millisecond}
	}
	for _, w := range m.Lines {
		op.Lines = append(op.Lines, lobby.ArenaStanding{ID: w.ID, Line: arena.Line{Points: w.Points, Streak: w.Streak, Games: w.Games,
			Wins: w.Wins, Berserks: w.Berserks}, Reached: fromUnixMilli(w.ReachedMS)})
	}
	op.Players, op.Pause = m.Players, m.Pause
	if m.Racer != nil {
		r := m.Racer.report()
		op.Racer = &r
	}
	return op
}

// toWireProgress is p as it goes on the bus.
func toWireProgress(p lobby.ServerProgress) progressMsg {
	m := progressMsg{Inst: p.Inst, Round: p.Round, Racers: make([]wireRacer, len(p.Racers))}
	for i, r := range p.Racers {
		m.Racers[i] = toWireRacer(r)
	}
	return m
}

// toWireRacer is r as it goes on the bus.
func toWireRacer(r lobby.RacerReport) wireRacer {
	w := wireRacer{ID: r.ID, Removed: r.Progress.Removed, Moves: r.Progress.Moves, Pass: r.Progress.Pass,
		Board: r.Progress.Board, State: int(r.Progress.State), GameID: r.Progress.GameID,
		LastMS: r.LastRemoval.Milliseconds(), FinishMS: r.Finish.Milliseconds()}
	if r.Line != nil {
		w.Line = &wireLine{N: r.Line.N, Tail: r.Line.Tail, Sum: r.Line.Sum}
	}
	return w
}

// progress is m as the rooms apply it.
func (m progressMsg) progress() lobby.ServerProgress {
	p := lobby.ServerProgress{Inst: m.Inst, Round: m.Round, Racers: make([]lobby.RacerReport, len(m.Racers))}
	for i, w := range m.Racers {
		p.Racers[i] = w.report()
	}
	return p
}

// report is w as the rooms apply it.
func (w wireRacer) report() lobby.RacerReport {
	r := lobby.RacerReport{ID: w.ID,
		Progress: lobby.Progress{Removed: w.Removed, Moves: w.Moves, Pass: w.Pass, Board: w.Board,
			State: lobby.RacerState(w.State), GameID: w.GameID},
		LastRemoval: time.Duration(w.LastMS) * time.Millisecond, Finish: time.Duration(w.FinishMS) * time.Millisecond}
	if w.Line != nil {
		r.Line = &lobby.LineSummary{N: w.Line.N, Tail: w.Line.Tail, Sum: w.Line.Sum}
	}
	return r
}
