// Package storetest is the behaviour every store implementation must have,
// as a test suite: an implementation's tests call Run with a function that
// opens a fresh, empty store.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"pyramid/store"
)

// Opener opens a fresh, empty store that reads the time from now, and
// arranges for it to be closed when t ends.
type Opener func(t *testing.T, now func() time.Time) store.Store

// Clock is a test clock that moves only when told to.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock standing at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// start is where every test's clock starts: noon UTC, so that a few hours
// either way stay on the same date.
var start = time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)

// env is what one test works with.
type env struct {
	t     *testing.T
	ctx   context.Context
	s     store.Store
	clock *Clock
}

func newEnv(t *testing.T, open Opener) *env {
	t.Helper()
	clock := NewClock(start)
	return &env{t: t, ctx: context.Background(), s: open(t, clock.Now), clock: clock}
}

// player creates a player whose key is "SHA256:<name>-key".
func (e *env) player(name string) store.Player {
	e.t.Helper()
	p, created, err := e.s.GetOrCreatePlayer(e.ctx, "SHA256:"+name+"-key", name)
	if err != nil || !created {
		e.t.Fatalf("GetOrCreatePlayer(%s) = %v, created %v", name, err, created)
	}
	return p
}

// game starts a game of rules for p, owned by "session-A".
func (e *env) game(p store.Player, rules string, deal uint64) store.Game {
	e.t.Helper()
	g, err := e.s.CreateGame(e.ctx, store.NewGame{PlayerID: p.ID, RulesID: rules, DealNumber: deal, Owner: "session-A"})
	if err != nil {
		e.t.Fatalf("CreateGame: %v", err)
	}
	return g
}

// ver is the stored version of a game (0 for none): what a save that
// builds on the stored game names.
func (e *env) ver(id int64) int64 {
	e.t.Helper()
	g, err := e.s.Game(e.ctx, id)
	if err != nil {
		return 0
	}
	return g.Version
}

// wantErr fails unless err wraps want (or is nil when want is nil).
func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if want == nil && err != nil || want != nil && !errors.Is(err, want) {
		t.Fatalf("%s: got error %v, want %v", what, err, want)
	}
}

// Run runs the whole suite against the stores open makes.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(t *testing.T, e *env)
	}{
		{"PlayerCreateAndGet", testPlayerCreateAndGet},
		{"PlayerDefaultNameTaken", testPlayerDefaultNameTaken},
		{"PlayerRename", testPlayerRename},
		{"PlayerLookalikeNames", testPlayerLookalikeNames},
		{"PlayerNameHold", testPlayerNameHold},
		{"PlayerBan", testPlayerBan},
		{"PlayerBanTerms", testPlayerBanTerms},
		{"EndedBanBackOnBoards", testEndedBanBackOnBoards},
		{"AuditLog", testAuditLog},
		{"KeyDetails", testKeyDetails},
		{"Reports", testReports},
		{"ReportClose", testReportClose},
		{"PlayerConcurrentCreate", testPlayerConcurrentCreate},
		{"KeysUnlink", testKeysUnlink},
		{"LinkCode", testLinkCode},
		{"LinkCodeExpired", testLinkCodeExpired},
		{"LinkCodeKeyInUse", testLinkCodeKeyInUse},
		{"GameCreate", testGameCreate},
		{"GameOneUnfinishedPerRules", testGameOneUnfinishedPerRules},
		{"GameRaceGamesApart", testGameRaceGamesApart},
		{"GameSaveAndLoad", testGameSaveAndLoad},
		{"GameSaveInvalid", testGameSaveInvalid},
		{"GameClaim", testGameClaim},
		{"GameClaimRace", testGameClaimRace},
		{"GameStaleSave", testGameStaleSave},
		{"GameOnePerRace", testGameOnePerRace},
		{"GameFinish", testGameFinish},
		{"GameList", testGameList},
		{"GameUnfinishedPastAPage", testGameUnfinishedPastAPage},
		{"GameConcurrentSaves", testGameConcurrentSaves},
		{"GameConcurrentSaveAnswers", testGameConcurrentSaveAnswers},
		{"ResultRecord", testResultRecord},
		{"Stats", testStats},
		{"Races", testRaces},
		{"DailyLeaderboard", testDailyLeaderboard},
		{"DailyClockRunsAway", testDailyClockRunsAway},
		{"Top", testTop},
		{"GameAssistance", testGameAssistance},
		{"GameInProgress", testGameInProgress},
		{"AssistedResults", testAssistedResults},
		{"ChosenAndFastResults", testChosenAndFastResults},
		{"DailySecret", testDailySecret},
		{"DailyFirstAttempt", testDailyFirstAttempt},
		{"GameKinds", testGameKinds},
		{"Settings", testSettings},
		{"Challenges", testChallenges},
		{"Arenas", testArenas},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fn(t, newEnv(t, open))
		})
	}
}

func testPlayerCreateAndGet(t *testing.T, e *env) {
	p, created, err := e.s.GetOrCreatePlayer(e.ctx, "SHA256:alice-key", "alice")
	if err != nil || !created {
		t.Fatalf("GetOrCreatePlayer = %v, created %v", err, created)
	}
	want := store.Player{ID: "SHA256:alice-key", Name: "alice", Created: start}
	if p != want {
		t.Errorf("got %+v, want %+v", p, want)
	}
	again, created, err := e.s.GetOrCreatePlayer(e.ctx, "SHA256:alice-key", "other")
	if err != nil || created || again != want {
		t.Errorf("second GetOrCreatePlayer = %+v, created %v, %v; want %+v, false", again, created, err, want)
	}
	for what, get := range map[string]func() (store.Player, error){
		"Player":       func() (store.Player, error) { return e.s.Player(e.ctx, p.ID) },
		"PlayerByKey":  func() (store.Player, error) { return e.s.PlayerByKey(e.ctx, "SHA256:alice-key") },
		"PlayerByName": func() (store.Player, error) { return e.s.PlayerByName(e.ctx, "ALICE") },
	} {
		got, err := get()
		if err != nil || got != want {
			t.Errorf("%s = %+v, %v, want %+v", what, got, err, want)
		}
	}
	_, err = e.s.Player(e.ctx, "SHA256:nobody")
	wantErr(t, "Player(unknown)", err, store.ErrNotFound)
	_, err = e.s.PlayerByKey(e.ctx, "SHA256:nobody")
	wantErr(t, "PlayerByKey(unknown)", err, store.ErrNotFound)
	_, err = e.s.PlayerByName(e.ctx, "nobody")
	wantErr(t, "PlayerByName(unknown)", err, store.ErrNotFound)
	_, _, err = e.s.GetOrCreatePlayer(e.ctx, "", "x")
	wantErr(t, "GetOrCreatePlayer(empty fingerprint)", err, store.ErrInvalid)

	keys, err := e.s.Keys(e.ctx, p.ID)
	if err != nil || len(keys) != 1 || keys[0] != (store.Key{Fingerprint: p.ID, PlayerID: p.ID, Added: start}) {
		t.Errorf("Keys = %+v, %v", keys, err)
	}
}

func testPlayerDefaultNameTaken(t *testing.T, e *env) {
	e.player("bob")
	// Names are unique case-insensitively, so "BOB" is taken too.
	p, created, err := e.s.GetOrCreatePlayer(e.ctx, "SHA256:other-key", "BOB")
	if err != nil || !created {
		t.Fatalf("GetOrCreatePlayer = %v, created %v", err, created)
	}
	if len(p.Name) != len("player-")+4 || p.Name[:7] != "player-" {
		t.Errorf("got name %q, want player-XXXX", p.Name)
	}
	// The fallback is the same for the same key, and the next one for a
	// key whose fallback is taken.
	q, _, err := e.s.GetOrCreatePlayer(e.ctx, "SHA256:third-key", p.Name)
	if err != nil || q.Name == p.Name || q.Name[:7] != "player-" {
		t.Errorf("got %q, %v, want another player- name than %q", q.Name, err, p.Name)
	}
	// No default name at all.
	r, _, err := e.s.GetOrCreatePlayer(e.ctx, "SHA256:fourth-key", "")
	if err != nil || r.Name[:7] != "player-" {
		t.Errorf("got %q, %v, want a player- name", r.Name, err)
	}
}

func testPlayerRename(t *testing.T, e *env) {
	alice, bob := e.player("alice"), e.player("bob")
	wantErr(t, "rename to a taken name", e.s.RenamePlayer(e.ctx, bob.ID, "Alice"), store.ErrNameTaken)
	wantErr(t, "rename to a new name", e.s.RenamePlayer(e.ctx, bob.ID, "Zoë"), nil)
	wantErr(t, "rename to a folded clash", e.s.RenamePlayer(e.ctx, alice.ID, "ZOË"), store.ErrNameTaken)
	wantErr(t, "change own case", e.s.RenamePlayer(e.ctx, alice.ID, "ALICE"), nil)
	wantErr(t, "rename unknown", e.s.RenamePlayer(e.ctx, "SHA256:nobody", "carol"), store.ErrNotFound)
	wantErr(t, "rename to empty", e.s.RenamePlayer(e.ctx, alice.ID, ""), store.ErrInvalid)
	got, err := e.s.PlayerByName(e.ctx, "zoë")
	if err != nil || got.ID != bob.ID || got.Name != "Zoë" {
		t.Errorf("PlayerByName(zoë) = %+v, %v, want bob renamed Zoë", got, err)
	}
	// The old name is free again, once its hold is over.
	e.clock.Advance(store.NameHold)
	if _, created, err := e.s.GetOrCreatePlayer(e.ctx, "SHA256:new-key", "bob"); err != nil || !created {
		t.Errorf("GetOrCreatePlayer(bob) = %v, %v", created, err)
	} else if p, _ := e.s.PlayerByKey(e.ctx, "SHA256:new-key"); p.Name != "bob" {
		t.Errorf("got name %q, want bob", p.Name)
	}
}

// testPlayerLookalikeNames: a name that looks like another player's
// (keys.LookAlike) is as taken as that name, for a rename and for a new
// player's name.
func testPlayerLookalikeNames(t *testing.T, e *env) {
	e.player("redevil")
	uni := e.player("Ünïcødé")
	e.player("alice")
	e.player("ROOM")
	mallory := e.player("mallory")
	for _, name := range []string{
		"r\u0435devil", "Ünı\u0308cødé", "red\u0435vil", "REDEVIL",
		"aIice", "a1ice", "ALICE", "\u0430lice", "alice\u034f", "alice\ufe00",
		"roorn", "R0OM", "r\u043eom",
	} {
		wantErr(t, "rename to "+name, e.s.RenamePlayer(e.ctx, mallory.ID, name), store.ErrNameTaken)
		p, _, err := e.s.GetOrCreatePlayer(e.ctx, "SHA256:like-"+name, name)
		if err != nil || !strings.HasPrefix(p.Name, "player-") {
			t.Errorf("new player named like another: %q, %v; want a player- name", p.Name, err)
		}
	}
	wantErr(t, "own look-alike", e.s.RenamePlayer(e.ctx, uni.ID, "Ünı\u0308cødé"), nil)
	p, _, err := e.s.GetOrCreatePlayer(e.ctx, "SHA256:lookalike", "r\u0435devil")
	if err != nil || p.Name == "r\u0435devil" || p.Name[:7] != "player-" {
		t.Errorf("new player named like redevil: %q, %v; want a player- name", p.Name, err)
	}
}

func testPlayerBan(t *testing.T, e *env) {
	p := e.player("mallory")
	wantErr(t, "ban", e.s.SetBanned(e.ctx, p.ID, true), nil)
	got, _, err := e.s.GetOrCreatePlayer(e.ctx, p.ID, "mallory")
	if err != nil || !got.Banned {
		t.Errorf("banned player = %+v, %v, want Banned", got, err)
	}
	_, err = e.s.CreateGame(e.ctx, store.NewGame{PlayerID: p.ID, RulesID: "classic", Owner: "s"})
	wantErr(t, "banned player starts a game", err, store.ErrBanned)
	wantErr(t, "banned player makes a link code", e.s.CreateLinkCode(e.ctx, p.ID, "CODE0001", start.Add(time.Hour)), store.ErrBanned)
	wantErr(t, "unban", e.s.SetBanned(e.ctx, p.ID, false), nil)
	if got, _ := e.s.Player(e.ctx, p.ID); got.Banned {
		t.Errorf("still banned after unban")
	}
	wantErr(t, "ban unknown", e.s.SetBanned(e.ctx, "SHA256:nobody", true), store.ErrNotFound)
}

func testPlayerConcurrentCreate(t *testing.T, e *env) {
	// Several sessions of one new key, and several new keys wanting one
	// name, all at once.
	const n = 8
	var wg sync.WaitGroup
	ids := make([]string, n)
	names := make([]string, n)
	errs := make([]error, 2*n)
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			p, _, err := e.s.GetOrCreatePlayer(e.ctx, "SHA256:same-key", "same")
			ids[i], errs[i] = p.ID, err
		}()
		go func() {
			defer wg.Done()
			p, _, err := e.s.GetOrCreatePlayer(e.ctx, fmt.Sprintf("SHA256:key-%d", i), "popular")
			names[i], errs[n+i] = p.Name, err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("GetOrCreatePlayer %d: %v", i, err)
		}
	}
	seen := map[string]bool{}
	for i := range n {
		if ids[i] != "SHA256:same-key" {
			t.Errorf("session %d got player %q", i, ids[i])
		}
		if seen[names[i]] {
			t.Errorf("name %q given twice", names[i])
		}
		seen[names[i]] = true
	}
	if !seen["popular"] {
		t.Errorf("nobody got the name popular: %v", names)
	}
}

func testKeysUnlink(t *testing.T, e *env) {
	p := e.player("alice")
	wantErr(t, "unlink last key", e.s.UnlinkKey(e.ctx, p.ID, p.ID), store.ErrLastKey)
	wantErr(t, "unlink unknown key", e.s.UnlinkKey(e.ctx, p.ID, "SHA256:nope"), store.ErrNotFound)
	_, err := e.s.Keys(e.ctx, "SHA256:nobody")
	wantErr(t, "keys of unknown player", err, store.ErrNotFound)

	if err := e.s.CreateLinkCode(e.ctx, p.ID, "CODE0001", start.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Minute)
	if _, err := e.s.RedeemLinkCode(e.ctx, "CODE0001", "SHA256:laptop"); err != nil {
		t.Fatal(err)
	}
	keys, err := e.s.Keys(e.ctx, p.ID)
	if err != nil || len(keys) != 2 || keys[0].Fingerprint != p.ID || keys[1].Fingerprint != "SHA256:laptop" {
		t.Fatalf("Keys = %+v, %v, want the first key then the laptop", keys, err)
	}
	// The first key is lost: unlink it. The player keeps its ID.
	wantErr(t, "unlink first key", e.s.UnlinkKey(e.ctx, p.ID, p.ID), nil)
	got, err := e.s.PlayerByKey(e.ctx, "SHA256:laptop")
	if err != nil || got.ID != p.ID {
		t.Errorf("PlayerByKey(laptop) = %+v, %v", got, err)
	}
	// Whoever shows up with the unlinked key is somebody new.
	q, created, err := e.s.GetOrCreatePlayer(e.ctx, p.ID, "thief")
	if err != nil || !created || q.ID == p.ID {
		t.Errorf("unlinked key = %+v, created %v, %v; want a new player", q, created, err)
	}
}

func testLinkCode(t *testing.T, e *env) {
	p := e.player("alice")
	if err := e.s.CreateLinkCode(e.ctx, p.ID, "CODE0001", start.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	_, err := e.s.RedeemLinkCode(e.ctx, "WRONG001", "SHA256:desk")
	wantErr(t, "redeem a wrong code", err, store.ErrNotFound)
	// The new key has already connected once and so has a throwaway
	// player: linking moves the key and removes that player.
	fresh, _, err := e.s.GetOrCreatePlayer(e.ctx, "SHA256:desk", "desk")
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.s.RedeemLinkCode(e.ctx, "CODE0001", "SHA256:desk")
	if err != nil || got.ID != p.ID {
		t.Fatalf("RedeemLinkCode = %+v, %v, want alice", got, err)
	}
	if got, err := e.s.PlayerByKey(e.ctx, "SHA256:desk"); err != nil || got.ID != p.ID {
		t.Errorf("PlayerByKey(desk) = %+v, %v, want alice", got, err)
	}
	_, err = e.s.Player(e.ctx, fresh.ID)
	wantErr(t, "throwaway player", err, store.ErrNotFound)
	// Single use.
	_, err = e.s.RedeemLinkCode(e.ctx, "CODE0001", "SHA256:phone")
	wantErr(t, "redeem twice", err, store.ErrNotFound)
	// A new code replaces the player's previous one.
	for _, c := range []string{"CODE0002", "CODE0003"} {
		if err := e.s.CreateLinkCode(e.ctx, p.ID, c, start.Add(10*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	_, err = e.s.RedeemLinkCode(e.ctx, "CODE0002", "SHA256:phone")
	wantErr(t, "redeem a replaced code", err, store.ErrNotFound)
	// Linking a key the player already has is fine, and leaves the code
	// for another key.
	if _, err := e.s.RedeemLinkCode(e.ctx, "CODE0003", p.ID); err != nil {
		t.Errorf("redeem with own key: %v", err)
	}
	if got, err := e.s.RedeemLinkCode(e.ctx, "CODE0003", "SHA256:phone"); err != nil || got.ID != p.ID {
		t.Errorf("redeem after the own key's try = %+v, %v, want alice", got, err)
	}
	wantErr(t, "code for unknown player", e.s.CreateLinkCode(e.ctx, "SHA256:nobody", "CODE0004", start.Add(time.Hour)), store.ErrNotFound)
}

func testLinkCodeExpired(t *testing.T, e *env) {
	p := e.player("alice")
	if err := e.s.CreateLinkCode(e.ctx, p.ID, "CODE0001", start.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(10 * time.Minute)
	_, err := e.s.RedeemLinkCode(e.ctx, "CODE0001", "SHA256:desk")
	wantErr(t, "redeem an expired code", err, store.ErrExpired)
	if _, err := e.s.PlayerByKey(e.ctx, "SHA256:desk"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an expired code linked the key: %v", err)
	}
}

func testLinkCodeKeyInUse(t *testing.T, e *env) {
	alice, bob := e.player("alice"), e.player("bob")
	e.game(bob, "classic", 1)
	if err := e.s.CreateLinkCode(e.ctx, alice.ID, "CODE0001", start.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	_, err := e.s.RedeemLinkCode(e.ctx, "CODE0001", bob.ID)
	wantErr(t, "link a key whose player has games", err, store.ErrKeyInUse)
	if got, _ := e.s.PlayerByKey(e.ctx, bob.ID); got.ID != bob.ID {
		t.Errorf("bob's key moved to %s", got.ID)
	}
	// The code survives a refused attempt.
	if _, err := e.s.RedeemLinkCode(e.ctx, "CODE0001", "SHA256:new"); err != nil {
		t.Errorf("redeem after a refused attempt: %v", err)
	}
	// A banned player's code does nothing.
	if err := e.s.CreateLinkCode(e.ctx, bob.ID, "CODE0002", start.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := e.s.SetBanned(e.ctx, bob.ID, true); err != nil {
		t.Fatal(err)
	}
	_, err = e.s.RedeemLinkCode(e.ctx, "CODE0002", "SHA256:other")
	wantErr(t, "redeem a banned player's code", err, store.ErrBanned)
}
