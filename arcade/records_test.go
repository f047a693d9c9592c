package arcade

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"pyramid/engine"
	"pyramid/server/sshtest"
	"pyramid/store"
	"pyramid/tui"
)

// loseAndWin returns a classic deal's record lost by drawing first (the
// way a new player loses) and one won by the engine's heuristic.
func loseAndWin(t *testing.T) (lost, won engine.Record) {
	t.Helper()
	for seed := uint64(1); seed < 2000; seed++ {
		w, _ := engine.NewNumbered(engine.Classic(), seed)
		for w.Status() == engine.Playing {
			m, ok := w.Hint()
			if !ok || w.Apply(m) != nil {
				break
			}
		}
		if w.Status() != engine.Won {
			continue
		}
		l, _ := engine.NewNumbered(engine.Classic(), seed)
		for l.Status() == engine.Playing {
			legal := l.Legal()
			i := slices.IndexFunc(legal, func(m engine.Move) bool { return m.Kind == engine.Draw || m.Kind == engine.Redeal })
			if i < 0 {
				i = 0
			}
			if err := l.Apply(legal[i]); err != nil {
				t.Fatal(err)
			}
		}
		if l.Status() == engine.Lost {
			return l.Record(), w.Record()
		}
	}
	t.Fatal("no deal below 2000 both lost by drawing first and won by the heuristic")
	return
}

// recordsFixture is a fixture with one player and a session's games.
type recordsFixture struct {
	*fixture
	ctx    context.Context
	key    gossh.Signer
	player string
	g      *sessionGames
}

func newRecordsFixture(t *testing.T) *recordsFixture {
	t.Helper()
	f := newFixture(t)
	key := sshtest.NewKey(t)
	p, _, err := f.st.GetOrCreatePlayer(context.Background(), gossh.FingerprintSHA256(key.PublicKey()), "ann")
	if err != nil {
		t.Fatal(err)
	}
	return &recordsFixture{fixture: f, ctx: context.Background(), key: key, player: p.ID, g: plainGames(f.st, "session-one")}
}

// save saves sg and fails the test on an error.
func (f *recordsFixture) save(sg tui.SavedGame) tui.SaveResult {
	f.t.Helper()
	r, err := f.g.SaveRecord(f.ctx, f.player, sg)
	if err != nil {
		f.t.Fatalf("save %+v: %v", sg.Record.Moves, err)
	}
	return r
}

// stats returns the player's figures for rules.
func (f *recordsFixture) stats(rules string) store.Stats {
	f.t.Helper()
	st, err := f.st.Stats(f.ctx, f.player, rules)
	if err != nil {
		f.t.Fatal(err)
	}
	return st
}

// reports runs `games --json`.
func (f *recordsFixture) reports() []gameReport {
	f.t.Helper()
	code, out, errOut := f.run(session(f.key, "ann", "games", "--json"))
	var reps []gameReport
	if err := json.Unmarshal([]byte(out), &reps); code != 0 || err != nil {
		f.t.Fatalf("games --json: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	return reps
}

// undone is rec with its last n moves undone onto the redo stack.
func undone(rec engine.Record, n int) engine.Record {
	k := len(rec.Moves) - n
	out := rec
	out.Moves = slices.Clone(rec.Moves[:k])
	out.Redo = slices.Clone(rec.Moves[k:]) // the next move to redo first
	return out
}

// TestLossRecordedAtOnce (playtest A1): the save that reaches a lost
// position records the loss, although the screen still says playing; the
// player closing the terminal, undoing or switching rule set changes
// nothing.
func TestLossRecordedAtOnce(t *testing.T) {
	f := newRecordsFixture(t)
	lost, _ := loseAndWin(t)
	before := lost
	before.Moves = lost.Moves[:len(lost.Moves)-1]
	first := f.save(tui.SavedGame{Record: before, Status: tui.StatusPlaying, Played: time.Minute})
	if first.Status != tui.StatusPlaying || f.stats("classic").Played != 0 {
		t.Fatalf("one move before the end: %+v, stats %+v", first, f.stats("classic"))
	}
	r := f.save(tui.SavedGame{ID: first.ID, Record: lost, Status: tui.StatusPlaying, Played: 2 * time.Minute})
	if r.Status != tui.StatusLost || r.Practice {
		t.Fatalf("the save of the lost position: %+v; want recorded lost, not practice", r)
	}
	if st := f.stats("classic"); st.Played != 1 || st.Won != 0 || st.CurrentStreak != 0 {
		t.Fatalf("stats right after the loss: %+v; want 1 played, 0 won", st)
	}
	if list, err := f.g.Unfinished(f.ctx, f.player); err != nil || len(list) != 0 {
		t.Fatalf("unfinished after the loss: %+v, %v; want none (nothing to Continue)", list, err)
	}
	// The player undoes three moves, then switches rule set: practice.
	for _, sg := range []tui.SavedGame{
		{ID: first.ID, Record: undone(lost, 3), Status: tui.StatusPlaying},
		{ID: first.ID, Record: undone(lost, 3), Status: tui.StatusAbandoned},
	} {
		if r := f.save(sg); !r.Practice || r.Status != tui.StatusLost {
			t.Fatalf("a save after the loss: %+v; want practice, still lost", r)
		}
	}
	reps := f.reports()
	if len(reps) != 1 || reps[0].Status != "lost" || len(reps[0].Moves) != len(lost.Moves) {
		t.Fatalf("games: %+v; want the one game, lost, with the %d moves that lost it", reps, len(lost.Moves))
	}
}

// TestLossSeenOnlyOnTheRedoStack: the save of the lost position never
// came (the model merged it with the undo after it); the redo stack shows
// the player was there, so the loss is recorded with the whole line.
func TestLossSeenOnlyOnTheRedoStack(t *testing.T) {
	f := newRecordsFixture(t)
	lost, _ := loseAndWin(t)
	r := f.save(tui.SavedGame{Record: undone(lost, 2), Status: tui.StatusPlaying})
	if r.Status != tui.StatusLost {
		t.Fatalf("a save two undos after the loss: %+v; want recorded lost", r)
	}
	sg, err := f.st.Game(f.ctx, mustID(t, r.ID))
	if err != nil || !slices.Equal(sg.Moves, lost.Moves) || len(sg.Redo) != 0 || sg.Status != store.StatusLost {
		t.Fatalf("stored: %+v, %v; want the whole losing line", sg, err)
	}
}

func mustID(t *testing.T, id string) int64 {
	t.Helper()
	var n int64
	if err := json.Unmarshal([]byte(id), &n); err != nil {
		t.Fatalf("id %q: %v", id, err)
	}
	return n
}

// TestSealedGame (playtest A2): after a loss, or after watching the
// solution, a win typed in from the solver's line is practice: no win, no
// fewest moves, and `games` and `replay` show the loss.
func TestSealedGame(t *testing.T) {
	f := newRecordsFixture(t)
	lost, won := loseAndWin(t)
	id := f.save(tui.SavedGame{Record: lost, Status: tui.StatusPlaying, Played: time.Minute}).ID
	// Watch, undo to the start, type the solver's line: the screen says won.
	r := f.save(tui.SavedGame{ID: id, Record: won, Status: tui.StatusWon, Played: 2 * time.Minute, Watched: true, Undos: len(lost.Moves)})
	if !r.Practice || r.Status != tui.StatusLost || r.NewBestTime || r.NewFewestMoves {
		t.Fatalf("the solver's line after the loss: %+v; want practice, still lost, no record", r)
	}
	if st := f.stats("classic"); st.Played != 1 || st.Won != 0 || st.FewestMoves != 0 || st.BestTime != 0 {
		t.Fatalf("stats: %+v; want 1 played, 0 won, no records", st)
	}
	code, out, _ := f.run(session(f.key, "ann", "replay", id))
	if code != 0 || !strings.Contains(out, "lost") || strings.Contains(out, "28/28") {
		t.Fatalf("replay of the sealed game: exit %d\n%s", code, out)
	}

	// Watching before finishing gives the game up: lost then, and the
	// line typed in after is practice too.
	start := won
	start.Moves = won.Moves[:3]
	id = f.save(tui.SavedGame{Record: start, Status: tui.StatusPlaying}).ID
	r = f.save(tui.SavedGame{ID: id, Record: start, Status: tui.StatusPlaying, Watched: true})
	if r.Status != tui.StatusLost || r.Practice {
		t.Fatalf("watching before the end: %+v; want recorded lost", r)
	}
	if r := f.save(tui.SavedGame{ID: id, Record: won, Status: tui.StatusWon, Watched: true}); !r.Practice || r.Status != tui.StatusLost {
		t.Fatalf("the watched line typed in: %+v; want practice", r)
	}
	if st := f.stats("classic"); st.Played != 2 || st.Won != 0 {
		t.Fatalf("stats: %+v; want 2 played, 0 won", st)
	}
	// A win, then watching the line, stays a win.
	id = f.save(tui.SavedGame{Record: won, Status: tui.StatusWon}).ID
	if r := f.save(tui.SavedGame{ID: id, Record: won, Status: tui.StatusWon, Watched: true}); !r.Practice || r.Status != tui.StatusWon {
		t.Fatalf("watching after a win: %+v; want the win kept", r)
	}
	if st := f.stats("classic"); st.Won != 1 {
		t.Fatalf("stats: %+v; want the win", st)
	}
}

// TestAssistedWins: hints and undos are counted per game; an assisted win
// is a win but no record, and stays off the top lists; the save says so,
// and says when an unassisted win is a new record.
func TestAssistedWins(t *testing.T) {
	f := newRecordsFixture(t)
	_, won := loseAndWin(t)
	r := f.save(tui.SavedGame{Record: won, Status: tui.StatusWon, Played: time.Minute, Hints: 2, Undos: 5})
	if r.Status != tui.StatusWon || !r.Assisted || r.Hints != 2 || r.Undos != 5 || r.NewBestTime || r.NewFewestMoves || r.FirstWin {
		t.Fatalf("an assisted win: %+v; want won, assisted (2 hints, 5 undos), no record", r)
	}
	if st := f.stats("classic"); st.Won != 1 || st.AssistedWins != 1 || st.BestTime != 0 || st.FewestMoves != 0 {
		t.Fatalf("stats: %+v; want 1 win, assisted, no records", st)
	}
	if top, err := f.st.Top(f.ctx, "classic", store.TopWins, 10); err != nil || len(top) != 0 {
		t.Fatalf("top: %+v, %v; want nobody", top, err)
	}
	// Counts never go down: a later save sending fewer keeps the stored.
	part := won
	part.Moves = won.Moves[:2]
	id := f.save(tui.SavedGame{Record: part, Status: tui.StatusPlaying, Hints: 1}).ID
	if r := f.save(tui.SavedGame{ID: id, Record: won, Status: tui.StatusWon, Played: 3 * time.Minute}); !r.Assisted || r.Hints != 1 {
		t.Fatalf("a win after a hint, sent without it: %+v; want assisted, 1 hint", r)
	}
	r = f.save(tui.SavedGame{Record: won, Status: tui.StatusWon, Played: 2 * time.Minute})
	if r.Assisted || !r.FirstWin || !r.NewBestTime || !r.NewFewestMoves {
		t.Fatalf("the first unassisted win: %+v; want new records", r)
	}
	r = f.save(tui.SavedGame{Record: won, Status: tui.StatusWon, Played: 90 * time.Second})
	if r.FirstWin || !r.NewBestTime || r.NewFewestMoves {
		t.Fatalf("a faster win in as many moves: %+v; want a new best time only", r)
	}
	r = f.save(tui.SavedGame{Record: won, Status: tui.StatusWon, Played: 5 * time.Minute})
	if r.NewBestTime || r.NewFewestMoves {
		t.Fatalf("a slower win: %+v; want no record", r)
	}
	if st := f.stats("classic"); st.Won != 5 || st.AssistedWins != 2 || st.BestTime != 90*time.Second {
		t.Fatalf("stats: %+v; want 5 wins, 2 assisted, best 1:30", st)
	}
}

// TestOneGameInProgressPerRules (playtest A3, A4): a new game beside an
// unfinished game of its rules from another session (or from before a
// reconnect) is refused with an error naming it, until the player says to
// replace it.
func TestOneGameInProgressPerRules(t *testing.T) {
	f := newRecordsFixture(t)
	old := f.save(tui.SavedGame{Record: engine.Record{Rules: "classic", Deal: 42, Moves: []string{"d"}}, Status: tui.StatusPlaying})
	// A reconnect: a new session, which never showed game old.
	two := plainGames(f.st, "session-two")
	next := tui.SavedGame{Record: engine.Record{Rules: "classic", Deal: 7, Moves: []string{"d"}}, Status: tui.StatusPlaying}
	_, err := two.Save(f.ctx, f.player, next)
	var ue *tui.UnfinishedError
	if !errors.As(err, &ue) || ue.Game.ID != old.ID || ue.Game.Record.Deal != 42 || len(ue.Game.Record.Moves) != 1 {
		t.Fatalf("a new classic game: got %v, want an UnfinishedError naming game %s", err, old.ID)
	}
	if _, err := two.Save(f.ctx, f.player, tui.SavedGame{Record: engine.Record{Rules: "relaxed", Deal: 7}, Status: tui.StatusPlaying}); err != nil {
		t.Fatalf("a game of other rules: %v", err)
	}
	next.Replace = "999"
	if _, err := two.Save(f.ctx, f.player, next); !errors.As(err, &ue) {
		t.Fatalf("Replace naming another game: got %v, want an UnfinishedError", err)
	}
	if st := f.stats("classic"); st.Played != 0 {
		t.Fatalf("stats: %+v; the old game was abandoned", st)
	}
	// The model abandoning the stored game (as it does today without
	// asking, after a deep link) is no word of the player's: refused.
	_, err = two.Save(f.ctx, f.player, tui.SavedGame{ID: old.ID, Record: engine.Record{Rules: "classic", Deal: 42, Moves: []string{"d"}}, Status: tui.StatusAbandoned})
	if !errors.Is(err, tui.ErrTakenOver) {
		t.Fatalf("abandoning another session's game by its ID: got %v, want ErrTakenOver", err)
	}
	if _, err := two.Save(f.ctx, f.player, next); !errors.As(err, &ue) {
		t.Fatalf("the new game after that: got %v, want an UnfinishedError still", err)
	}
	next.Replace = old.ID
	r, err := two.SaveRecord(f.ctx, f.player, next)
	if err != nil || r.Status != tui.StatusPlaying {
		t.Fatalf("the new game replacing the old: %+v, %v", r, err)
	}
	if st := f.stats("classic"); st.Played != 1 || st.Won != 0 {
		t.Fatalf("stats: %+v; want the abandoned game (1 move) as a loss", st)
	}
	if _, err := f.g.Save(f.ctx, f.player, tui.SavedGame{ID: old.ID, Record: engine.Record{Rules: "classic", Deal: 42, Moves: []string{"d", "d"}}, Status: tui.StatusPlaying}); !errors.Is(err, tui.ErrAbandonedElsewhere) {
		t.Fatalf("the first session saves the abandoned game: got %v, want ErrAbandonedElsewhere", err)
	}
	// A game of this session left with no move made (undone) is replaced
	// without asking: the model asks only about games with moves.
	back := tui.SavedGame{Record: engine.Record{Rules: "double", Deal: 3, Redo: []string{"d"}}, Status: tui.StatusPlaying}
	f.save(back)
	back.Record.Deal, back.Record.Redo = 4, nil
	if _, err := f.g.Save(f.ctx, f.player, back); err != nil {
		t.Fatalf("a new double game beside this session's own: %v", err)
	}
	if st := f.stats("double"); st.Played != 0 {
		t.Fatalf("double stats: %+v; a game with no move does not count", st)
	}
}

// TestDailyFirstAttempt (playtest A6): the first finished attempt is the
// day's result, with its rank; a replay is practice and stats count one
// daily game.
func TestDailyFirstAttempt(t *testing.T) {
	f := newRecordsFixture(t)
	day := time.Now().UTC().Format(store.DateFormat)
	n := engine.DailyNumber(nil, time.Now())
	g, err := engine.NewNumbered(engine.Classic(), n)
	if err != nil {
		t.Fatal(err)
	}
	rules, _ := engine.Preset("daily")
	var moves []string
	for g.Status() == engine.Playing {
		m, ok := g.Hint()
		if !ok || g.Apply(m) != nil {
			break
		}
		moves = append(moves, m.String())
	}
	rec := engine.Record{Rules: rules.ID(), Deal: n, Moves: moves[:2]}
	first := f.save(tui.SavedGame{Record: rec, Daily: day, Status: tui.StatusPlaying})
	r := f.save(tui.SavedGame{ID: first.ID, Record: rec, Daily: day, Status: tui.StatusAbandoned, Played: time.Minute})
	if r.Status != tui.StatusAbandoned || r.Practice || r.DailyRank != 1 || r.DailyPlayers != 1 {
		t.Fatalf("the first attempt, abandoned: %+v; want the day's result, rank 1 of 1", r)
	}
	rec.Moves = moves
	again := f.save(tui.SavedGame{Record: rec, Daily: day, Status: tui.StatusPlaying})
	if !again.Practice {
		t.Fatalf("a replay of the daily: %+v; want practice", again)
	}
	r = f.save(tui.SavedGame{ID: again.ID, Record: rec, Daily: day, Status: StatusOfReplay(t, rec)})
	if !r.Practice || r.DailyRank != 0 || r.NewBestTime {
		t.Fatalf("the replay finished: %+v; want practice, no rank, no record", r)
	}
	st := f.stats(rules.ID())
	if st.Played != 1 || st.DailyPlayed != 1 || st.Won != 0 || st.DailyStreak != 1 || st.LastDaily != day {
		t.Fatalf("daily stats: %+v; want 1 played (the first attempt), a streak of 1 day", st)
	}
	board, err := f.st.Leaderboard(f.ctx, rules.ID(), day, 10)
	if err != nil || len(board) != 1 || board[0].GameID != mustID(t, first.ID) {
		t.Fatalf("board: %+v, %v; want the first attempt", board, err)
	}
}

// StatusOfReplay is the screen's status of a record's end position.
func StatusOfReplay(t *testing.T, rec engine.Record) string {
	t.Helper()
	g, err := engine.Replay(rec)
	if err != nil {
		t.Fatal(err)
	}
	return tui.StatusOf(g.Status())
}

// TestSettingsAdapter: settings are kept per player, with defaults, and
// refused in words.
func TestSettingsAdapter(t *testing.T) {
	f := newRecordsFixture(t)
	a := f.app.account(f.player, "", "")
	got, err := a.Settings(f.ctx, f.player)
	want := map[string]string{"keys": "arrows", "cards": "symbols", "winnable-only": "off", "watchable": "on", "tell-unwinnable": "off"}
	if err != nil || !maps.Equal(got, want) {
		t.Fatalf("defaults: %v, %v; want %v", got, err, want)
	}
	for _, kv := range [][2]string{{"keys", "wasd"}, {"winnable-only", "on"}, {"cards", "letters"}, {"cards", "symbols"}} {
		if err := a.SetSetting(f.ctx, f.player, kv[0], kv[1]); err != nil {
			t.Fatalf("set %s %s: %v", kv[0], kv[1], err)
		}
	}
	want["keys"], want["winnable-only"] = "wasd", "on"
	if got, err := a.Settings(f.ctx, f.player); err != nil || !maps.Equal(got, want) {
		t.Fatalf("after setting: %v, %v; want %v", got, err, want)
	}
	if stored, _ := f.st.Settings(f.ctx, f.player); len(stored) != 2 {
		t.Errorf("stored: %v; want only the two that differ from the default", stored)
	}
	for _, tt := range []struct{ name, value, words string }{
		{"colour", "on", "no such setting"},
		{"keys", "vim", "keys is one of arrows, wasd"},
	} {
		if err := a.SetSetting(f.ctx, f.player, tt.name, tt.value); err == nil || !strings.Contains(err.Error(), tt.words) {
			t.Errorf("set %s %s: got %v, want it to say %q", tt.name, tt.value, err, tt.words)
		}
	}
}

// TestStatsRecords: the stats screen's figures say what the store decided:
// assisted wins, days in a row, today's daily and its rank.
func TestStatsRecords(t *testing.T) {
	f := newRecordsFixture(t)
	_, won := loseAndWin(t)
	f.save(tui.SavedGame{Record: won, Status: tui.StatusWon, Hints: 1})
	a := f.app.account(f.player, "", "")
	all, err := a.Stats(f.ctx, f.player)
	if err != nil || len(all) != 1 || all[0].AssistedWins != 1 || all[0].Won != 1 || all[0].DailyToday {
		t.Fatalf("stats: %+v, %v; want one assisted win, no daily", all, err)
	}
	if done, _, _, err := a.DailyToday(f.ctx, f.player, "daily"); done || err != nil {
		t.Fatalf("DailyToday before playing it: %v, %v", done, err)
	}
	rules, _ := engine.Preset("daily")
	day := time.Now().UTC().Format(store.DateFormat)
	rec := engine.Record{Rules: rules.ID(), Deal: engine.DailyNumber(nil, time.Now()), Moves: []string{"d"}}
	id := f.save(tui.SavedGame{Record: rec, Daily: day, Status: tui.StatusPlaying}).ID
	f.save(tui.SavedGame{ID: id, Record: rec, Daily: day, Status: tui.StatusAbandoned})
	done, rank, players, err := a.DailyToday(f.ctx, f.player, rules.ID())
	if !done || rank != 1 || players != 1 || err != nil {
		t.Fatalf("DailyToday: %v rank %d of %d, %v; want done, 1 of 1", done, rank, players, err)
	}
	all, _ = a.Stats(f.ctx, f.player)
	i := slices.IndexFunc(all, func(s tui.RulesStats) bool { return s.RulesID == rules.ID() })
	if i < 0 || !all[i].DailyToday || all[i].TodayRank != 1 || all[i].DailyStreak != 1 || all[i].DailyPlayed != 1 {
		t.Fatalf("daily stats: %+v; want done today, rank 1, a streak of 1", all)
	}
	// Two days later the streak is broken, the best stays.
	later := &account{st: f.st, now: func() time.Time { return time.Now().Add(48 * time.Hour) }}
	all, _ = later.Stats(f.ctx, f.player)
	if s := all[i]; s.DailyToday || s.DailyStreak != 0 || s.BestDailyStreak != 1 {
		t.Fatalf("two days later: %+v; want not done today, streak 0, best 1", s)
	}
}

// TestReplacedLostGameIsLost: a game left playing in a lost position (by
// a server from before losses were recorded at once) is recorded as lost,
// not abandoned, when a new game replaces it.
func TestReplacedLostGameIsLost(t *testing.T) {
	f := newRecordsFixture(t)
	lost, _ := loseAndWin(t)
	old, err := f.st.CreateGame(f.ctx, store.NewGame{PlayerID: f.player, RulesID: "classic", DealNumber: lost.Deal, Owner: "old-server"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.SaveGame(f.ctx, old.ID, "old-server", old.Version, store.State{Moves: lost.Moves, Status: store.StatusPlaying}); err != nil {
		t.Fatal(err)
	}
	next := tui.SavedGame{Record: engine.Record{Rules: "classic", Deal: 7, Moves: []string{"d"}}, Status: tui.StatusPlaying, Replace: strconv.FormatInt(old.ID, 10)}
	f.save(next)
	got, err := f.st.Game(f.ctx, old.ID)
	if err != nil || got.Status != store.StatusLost {
		t.Fatalf("the replaced game: %+v, %v; want lost", got.State, err)
	}
	if st := f.stats("classic"); st.Played != 1 || st.Won != 0 {
		t.Fatalf("stats: %+v; want the loss", st)
	}
}

// TestStatsRacesOnly: a player with race results and no solo game read
// "no finished games yet" above the race lines of their finished races;
// it says no solo game is finished.
func TestStatsRacesOnly(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	key := sshtest.NewKey(t)
	ann, _, err := f.st.GetOrCreatePlayer(ctx, gossh.FingerprintSHA256(key.PublicKey()), "ann")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, err := f.st.RecordRace(ctx, store.NewRace{Key: "k1", Code: "ABCD", RulesID: "classic", DealNumber: 3,
		Started: now, Ended: now, Racers: 2, Rated: true, Placings: []store.RacePlacing{
			{PlayerID: f.adminID(t), Place: 1, Cleared: true, Removed: 28, Moves: 60, Time: 95 * time.Second},
			{PlayerID: ann.ID, Place: 2, Removed: 6, Moves: 10, Time: 47 * time.Second},
		}}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := f.run(session(key, "ann", "stats"))
	if code != 0 || strings.Contains(out, "no finished games yet") || !strings.Contains(out, "no solo game finished yet") || !strings.Contains(out, "classic  1") {
		t.Fatalf("stats of races only: exit %d, %q %q", code, out, errOut)
	}
}
