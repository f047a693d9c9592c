package arcade

import (
	"context"
	"strconv"
	"testing"

	"pyramid/engine"
	"pyramid/lobby"
	"pyramid/store"
	"pyramid/tui"
)

// TestRaceGameBesideASoloGame: a racer with an unfinished solo game of
// the race's rules had her race game stored nowhere ("your unfinished
// game of these rules keeps its place"): a server that died in the race
// lost her moves, and her comeback found no game. Her race game is stored
// now, beside the solo game, which the race leaves as it was.
func TestRaceGameBesideASoloGame(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ann, _ := f.racer(t, "ann", false)
	bob, _ := f.racer(t, "bob", false)
	rec := winningRecord(t)
	soloID, err := plainGames(f.st, ann.w.Owner()).Save(ctx, ann.me.ID, tui.SavedGame{Record: engine.Record{Rules: rec.Rules, Deal: rec.Deal + 1, Moves: []string{"d"}}, Status: tui.StatusPlaying})
	if err != nil {
		t.Fatal(err)
	}
	code, room := startRace(t, f, tui.RoomOptions{Rules: engine.Classic(), Deal: rec.Deal, HasDeal: true}, ann, bob)
	var gameID int64
	for i := range rec.Moves {
		r := rec
		r.Moves = rec.Moves[:i+1]
		note, err := ann.Play(ctx, code, 1, i+1, r)
		if err != nil || note != "" {
			t.Fatalf("ann's move %d: note %q, err %v", i+1, note, err)
		}
		if i == 1 {
			// Mid-race a comeback finds her game with its moves.
			m, _ := room.Snapshot().Member(ann.me.ID)
			if gameID = m.GameID; gameID <= 0 {
				t.Fatal("ann's race game is not stored beside her solo game")
			}
			if sg, err := f.st.Game(ctx, gameID); err != nil || sg.Kind != store.KindRace || len(sg.Moves) != 2 {
				t.Fatalf("ann's race game: %+v, %v; want a race game of 2 moves", sg, err)
			}
		}
	}
	if err := bob.Leave(code); err != nil {
		t.Fatal(err)
	}
	waitPhase(t, room, lobby.PhaseResults)
	if sg, err := f.st.Game(ctx, gameID); err != nil || sg.Status != store.StatusWon {
		t.Errorf("ann's race game after the race: %v, %v; want won", sg.Status, err)
	}
	id, _ := strconv.ParseInt(soloID, 10, 64)
	if sg, err := f.st.Game(ctx, id); err != nil || sg.Status != store.StatusPlaying || sg.Kind != store.KindSolo {
		t.Errorf("ann's solo game after the race: %v %v, %v; want a solo game still playing", sg.Kind, sg.Status, err)
	}
	if got, err := f.st.GameInProgress(ctx, ann.me.ID, engine.Classic().ID()); err != nil || got.ID != id {
		t.Errorf("GameInProgress = %d, %v; want her solo game %d", got.ID, err, id)
	}
}

// TestSoloGameBesideARace: a racer who left her race with q q (her seat
// kept) and opened Classic from the menu saw her first move stored, and
// her race game of Classic, still racing, was abandoned without a word:
// its later moves were stored nowhere. A race that runs keeps its game;
// a race's game is apart from the player's own games (one per rules), so
// the solo game is stored beside it.
func TestSoloGameBesideARace(t *testing.T) {
	f := newFixture(t)
	a := f.app
	ctx := context.Background()
	seat := func(name string) (*races, *sessionGames) {
		sp, _, err := f.st.GetOrCreatePlayer(ctx, "SHA256:"+name, name)
		if err != nil {
			t.Fatal(err)
		}
		sess := a.lobby.Join(lobby.Player{ID: sp.ID, Name: name})
		g := a.sessionGames(sp.ID, a.newWriter(sess))
		cctx, cancel := context.WithCancel(ctx)
		t.Cleanup(cancel)
		return a.newRaces(cctx, tui.Player{ID: sp.ID, Name: name}, sess, g.w), g
	}
	ann, annGames := seat("ann")
	bob, _ := seat("bob")
	rec := winningRecord(t)
	s, err := ann.Create(ctx, tui.RoomOptions{Rules: engine.Classic(), Deal: rec.Deal, HasDeal: true})
	if err != nil {
		t.Fatal(err)
	}
	code := s.Snapshot.Code
	if _, err := bob.Join(ctx, code); err != nil {
		t.Fatal(err)
	}
	readyAll(t, code, bob)
	if err := ann.Start(code); err != nil {
		t.Fatal(err)
	}
	r, _ := a.rooms.Room(code)
	waitPhase(t, r, lobby.PhaseRacing)
	race := rec
	race.Moves = rec.Moves[:2]
	if _, err := ann.Play(ctx, code, 1, 1, race); err != nil {
		t.Fatal(err)
	}
	m, _ := r.Snapshot().Member(ann.me.ID)
	if m.GameID <= 0 {
		t.Fatal("ann's race game is not stored")
	}
	solo := engine.Record{Rules: rec.Rules, Deal: rec.Deal + 1, Moves: []string{"d"}}
	if _, err := annGames.SaveRecord(ctx, ann.me.ID, tui.SavedGame{Record: solo, Status: tui.StatusPlaying}); err != nil {
		t.Errorf("a solo Classic game beside ann's Classic race: %v", err)
	}
	sg, err := f.st.Game(ctx, m.GameID)
	if err != nil {
		t.Fatal(err)
	}
	if sg.Status != store.StatusPlaying {
		t.Fatalf("ann's race game is %s after a solo game of its rules, want playing", sg.Status)
	}
}
