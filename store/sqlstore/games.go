package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"pyramid/store"
)

// encodeMoves joins moves in notation with single spaces.
func encodeMoves(moves []string) string { return strings.Join(moves, " ") }

// decodeMoves splits a stored move log.
func decodeMoves(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, " ")
}

// checkMoves refuses a move list the notation could not have produced:
// too long, or with a move that is empty, too long or not printable ASCII
// without spaces.
func checkMoves(what string, moves []string) error {
	if len(moves) > store.MaxMoves {
		return fmt.Errorf("%w: %s has %d moves, at most %d", store.ErrInvalid, what, len(moves), store.MaxMoves)
	}
	for i, m := range moves {
		if m == "" || len(m) > store.MaxMoveLen {
			return fmt.Errorf("%w: %s move %d is %d bytes long", store.ErrInvalid, what, i+1, len(m))
		}
		for j := 0; j < len(m); j++ {
			if m[j] <= ' ' || m[j] > '~' {
				return fmt.Errorf("%w: %s move %d %q has a byte 0x%02x", store.ErrInvalid, what, i+1, m, m[j])
			}
		}
	}
	return nil
}

func checkState(st store.State) error {
	if !st.Status.Valid() {
		return fmt.Errorf("%w: unknown status %q", store.ErrInvalid, st.Status)
	}
	if st.Removed < 0 || st.Elapsed < 0 || st.Hints < 0 || st.Undos < 0 {
		return fmt.Errorf("%w: negative removed, elapsed, hints or undos", store.ErrInvalid)
	}
	if st.Hints > store.MaxAssists || st.Undos > store.MaxAssists {
		return fmt.Errorf("%w: over %d hints or undos", store.ErrInvalid, store.MaxAssists)
	}
	if err := checkMoves("move log", st.Moves); err != nil {
		return err
	}
	if err := checkMoveTimes(st); err != nil {
		return err
	}
	return checkMoves("redo stack", st.Redo)
}

// checkMoveTimes refuses more move times than moves, and negative ones.
func checkMoveTimes(st store.State) error {
	if len(st.MoveTimes) > len(st.Moves) {
		return fmt.Errorf("%w: %d move times for %d moves", store.ErrInvalid, len(st.MoveTimes), len(st.Moves))
	}
	for i, d := range st.MoveTimes {
		if d < 0 {
			return fmt.Errorf("%w: move %d has a negative time", store.ErrInvalid, i+1)
		}
	}
	return nil
}

// encodeTimes writes move times as milliseconds separated by single
// spaces.
func encodeTimes(ts []time.Duration) string {
	b := make([]byte, 0, 8*len(ts))
	for i, d := range ts {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, d.Milliseconds(), 10)
	}
	return string(b)
}

// decodeTimes reads stored move times; a field that is not a number
// (which the store never writes) ends the list there.
func decodeTimes(s string) []time.Duration {
	if s == "" {
		return nil
	}
	fields := strings.Split(s, " ")
	ts := make([]time.Duration, 0, len(fields))
	for _, f := range fields {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n < 0 {
			break
		}
		ts = append(ts, time.Duration(n)*time.Millisecond)
	}
	return ts
}

func checkDaily(daily string) error {
	if daily == "" {
		return nil
	}
	if _, err := time.Parse(store.DateFormat, daily); err != nil {
		return fmt.Errorf("%w: daily date %q is not YYYY-MM-DD", store.ErrInvalid, daily)
	}
	return nil
}

const gameCols = `id, player_id, rules_id, deal_number, deal_text, daily, moves, redo, status,
	removed, elapsed_ms, started_at, updated_at, finished_at, version, owner, hints, undos, watched, practice, move_ms, kind, race_key, chosen`

func scanGame(row interface{ Scan(...any) error }) (store.Game, error) {
	var (
		g                          store.Game
		deal, elapsed, started, up int64
		finished                   sql.NullInt64
		moves, redo, status, times string
		kind                       string
	)
	err := row.Scan(&g.ID, &g.PlayerID, &g.RulesID, &deal, &g.DealText, &g.Daily, &moves, &redo, &status,
		&g.Removed, &elapsed, &started, &up, &finished, &g.Version, &g.Owner, &g.Hints, &g.Undos, &g.Watched, &g.Practice, &times, &kind, &g.Race, &g.Chosen)
	if err != nil {
		return store.Game{}, err
	}
	g.DealNumber = uint64(deal)
	g.Kind = store.Kind(kind)
	g.Moves, g.Redo = decodeMoves(moves), decodeMoves(redo)
	g.MoveTimes = decodeTimes(times)
	if len(g.MoveTimes) > len(g.Moves) {
		g.MoveTimes = g.MoveTimes[:len(g.Moves)]
	}
	g.Status = store.Status(status)
	g.Elapsed = time.Duration(elapsed) * time.Millisecond
	g.Started, g.Updated = fromMS(started), fromMS(up)
	if finished.Valid {
		g.Finished = fromMS(finished.Int64)
	}
	return g, nil
}

func scanGames(rows *sql.Rows, err error) ([]store.Game, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var games []store.Game
	for rows.Next() {
		g, err := scanGame(rows)
		if err != nil {
			return nil, err
		}
		games = append(games, g)
	}
	return games, rows.Err()
}

// createSQL inserts a new game of a player who is not banned, with the
// play it starts with (NewGame.State), and returns its ID; no row when
// there is no such player, or a banned one.
const createSQL = `INSERT INTO games (player_id, rules_id, deal_number, deal_text, daily, status, started_at, updated_at, version, owner, practice, kind,
		moves, redo, removed, elapsed_ms, hints, undos, watched, move_ms, race_key, chosen)
	SELECT $1, $2, $3, $4, $5, 'playing', $6, $6, 1, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19
	FROM players WHERE id = $1 AND NOT banned RETURNING id`

// CreateGame implements store.Games.
func (s *Store) CreateGame(ctx context.Context, ng store.NewGame) (store.Game, error) {
	err := errors.Join(checkID("player ID", ng.PlayerID), checkID("rules ID", ng.RulesID),
		checkID("owner", ng.Owner), checkDaily(ng.Daily))
	if len(ng.DealText) > store.MaxDealText {
		err = errors.Join(err, fmt.Errorf("%w: deal text over %d bytes", store.ErrInvalid, store.MaxDealText))
	}
	if ng.Kind != "" && !ng.Kind.Valid() {
		err = errors.Join(err, fmt.Errorf("%w: game kind %q", store.ErrInvalid, ng.Kind))
	}
	if ng.Kind == store.KindSolo && ng.Practice {
		err = errors.Join(err, fmt.Errorf("%w: a solo game that is practice", store.ErrInvalid))
	}
	if ng.Race != "" && ng.Kind != store.KindRace {
		err = errors.Join(err, fmt.Errorf("%w: a race key on a %q game", store.ErrInvalid, ng.Kind))
	} else if len(ng.Race) > store.MaxIDLen {
		err = errors.Join(err, fmt.Errorf("%w: race key of %d bytes", store.ErrInvalid, len(ng.Race)))
	}
	first := ng.State
	switch first.Status {
	case "":
		first.Status = store.StatusPlaying
		fallthrough
	case store.StatusPlaying:
		if serr := checkState(first); serr != nil {
			err = errors.Join(err, serr)
		}
	default:
		err = errors.Join(err, fmt.Errorf("%w: a new game's status %q is not playing", store.ErrInvalid, first.Status))
	}
	if err != nil {
		return store.Game{}, fmt.Errorf("store: create game: %w", err)
	}
	now := s.now()
	g := store.Game{
		PlayerID: ng.PlayerID, RulesID: ng.RulesID, DealNumber: ng.DealNumber, DealText: ng.DealText,
		Daily: ng.Daily, State: first,
		Started: fromMS(ms(now)), Updated: fromMS(ms(now)), Version: 1, Owner: ng.Owner, Race: ng.Race,
		Chosen: ng.Chosen,
	}
	create := func(ctx context.Context, tx *sql.Tx) error {
		g.Kind = ng.Kind
		switch {
		case g.Kind == "" && ng.Practice:
			g.Kind = store.KindGhost
		case g.Kind == "":
			g.Kind = store.KindSolo
		}
		if g.Kind == store.KindSolo && ng.Daily != "" {
			// The first finished attempt at a day's deal is the result;
			// every later one is practice.
			replay, err := hasDailyResult(ctx, tx, ng.PlayerID, ng.RulesID, ng.Daily)
			if err != nil {
				return err
			}
			if replay {
				g.Kind = store.KindReplay
			}
		}
		g.Practice = g.Kind.Practice()
		// One statement, which asks for the player too (not banned): a
		// race's first moves make a thousand of these in one grouped
		// transaction, each as short as it can be, and the INSERT is
		// the write's last statement, undone on its own when it fails
		// (gameTxOneWrite). uniqueViolation maps a second unfinished
		// solo or replay game with these rules to ErrInProgress
		// (store.Kind.OnePerRules).
		args := []any{ng.PlayerID, ng.RulesID, int64(ng.DealNumber), ng.DealText, ng.Daily, ms(now), ng.Owner, g.Practice, string(g.Kind),
			encodeMoves(first.Moves), encodeMoves(first.Redo), first.Removed, first.Elapsed.Milliseconds(),
			first.Hints, first.Undos, first.Watched, encodeTimes(first.MoveTimes), ng.Race, ng.Chosen}
		var row *sql.Row
		if st := s.saves.create; st != nil {
			// SQLite's writer has it prepared: parsing it again was
			// most of a new game's time.
			txst := tx.StmtContext(ctx, st)
			defer txst.Close()
			row = txst.QueryRowContext(ctx, args...)
		} else {
			row = tx.QueryRowContext(ctx, createSQL, args...)
		}
		err := row.Scan(&g.ID)
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		// No such player, or a banned one: which.
		p, err := playerByID(ctx, tx, ng.PlayerID)
		switch {
		case err != nil:
			return err
		case p.Banned:
			return store.ErrBanned
		}
		return errTransient // unbanned in between (PostgreSQL): again
	}
	if err = s.gameTxOneWrite(ctx, create); err != nil {
		return store.Game{}, fmt.Errorf("store: create game for player %s (%s): %w", ng.PlayerID, ng.RulesID, err)
	}
	return g, nil
}

// Game implements store.Games.
func (s *Store) Game(ctx context.Context, id int64) (store.Game, error) {
	var g store.Game
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) (err error) {
		g, err = scanGame(db.QueryRowContext(ctx, `SELECT `+gameCols+` FROM games WHERE id = $1`, id))
		return err
	})
	if err != nil {
		return store.Game{}, fmt.Errorf("store: game %d: %w", id, err)
	}
	return g, nil
}

// RaceGame implements store.Games. The unique index games_one_per_race
// (migration 0011) answers it.
func (s *Store) RaceGame(ctx context.Context, playerID, race string) (store.Game, error) {
	var g store.Game
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) (err error) {
		g, err = scanGame(db.QueryRowContext(ctx, `SELECT `+gameCols+` FROM games
			WHERE player_id = $1 AND race_key = $2 AND race_key <> ''`, playerID, race))
		return err
	})
	if err != nil {
		return store.Game{}, fmt.Errorf("store: game of race %s of player %s: %w", race, playerID, err)
	}
	return g, nil
}

// UnfinishedGame implements store.Games.
func (s *Store) UnfinishedGame(ctx context.Context, playerID, rulesID string, dealNumber uint64, dealText string) (store.Game, error) {
	var g store.Game
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) (err error) {
		g, err = scanGame(db.QueryRowContext(ctx, `SELECT `+gameCols+` FROM games
			WHERE player_id = $1 AND rules_id = $2 AND status = 'playing' AND kind IN ('solo', 'replay')
			AND deal_number = $3 AND deal_text = $4`,
			playerID, rulesID, int64(dealNumber), dealText))
		return err
	})
	if err != nil {
		return store.Game{}, fmt.Errorf("store: unfinished %s game of player %s: %w", rulesID, playerID, err)
	}
	return g, nil
}

// GameInProgress implements store.Games. The partial unique index
// games_one_playing (migration 0009: solo and replay games only) answers
// it.
func (s *Store) GameInProgress(ctx context.Context, playerID, rulesID string) (store.Game, error) {
	var g store.Game
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) (err error) {
		g, err = scanGame(db.QueryRowContext(ctx, `SELECT `+gameCols+` FROM games
			WHERE player_id = $1 AND rules_id = $2 AND status = 'playing' AND kind IN ('solo', 'replay')`, playerID, rulesID))
		return err
	})
	if err != nil {
		return store.Game{}, fmt.Errorf("store: %s game in progress of player %s: %w", rulesID, playerID, err)
	}
	return g, nil
}

// LatestUnfinishedGame implements store.Games.
func (s *Store) LatestUnfinishedGame(ctx context.Context, playerID string) (store.Game, error) {
	var g store.Game
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) (err error) {
		g, err = scanGame(db.QueryRowContext(ctx, `SELECT `+gameCols+` FROM games
			WHERE player_id = $1 AND status = 'playing' ORDER BY updated_at DESC, id DESC LIMIT 1`, playerID))
		return err
	})
	if err != nil {
		return store.Game{}, fmt.Errorf("store: latest unfinished game of player %s: %w", playerID, err)
	}
	return g, nil
}

// UnfinishedGames implements store.Games. The partial index
// games_player_playing (migration 0002) answers it without reading the
// player's finished games.
func (s *Store) UnfinishedGames(ctx context.Context, playerID string) ([]store.Game, error) {
	var games []store.Game
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) (err error) {
		games, err = scanGames(db.QueryContext(ctx, `SELECT `+gameCols+` FROM games
			WHERE player_id = $1 AND status = 'playing' ORDER BY updated_at DESC, id DESC`, playerID))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: unfinished games of player %s: %w", playerID, err)
	}
	return games, nil
}

// ListGames implements store.Games.
func (s *Store) ListGames(ctx context.Context, playerID string, page store.Page) ([]store.Game, error) {
	limit := page.Limit
	if limit <= 0 || limit > store.MaxListLimit {
		limit = store.MaxListLimit
	}
	before := page.Before
	if before <= 0 {
		before = math.MaxInt64
	}
	var games []store.Game
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) (err error) {
		games, err = scanGames(db.QueryContext(ctx, `SELECT `+gameCols+` FROM games
			WHERE player_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3`, playerID, before, limit))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: games of player %s: %w", playerID, err)
	}
	return games, nil
}

// ClaimGame implements store.Games.
func (s *Store) ClaimGame(ctx context.Context, gameID int64, playerID, owner string) (store.Game, error) {
	if err := checkID("owner", owner); err != nil {
		return store.Game{}, fmt.Errorf("store: claim game %d: %w", gameID, err)
	}
	var g store.Game
	err := s.gameTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE games SET owner = $1, version = version + 1, updated_at = $2
			WHERE id = $3 AND player_id = $4 AND status = 'playing'`, owner, ms(s.now()), gameID, playerID)
		if err := oneRow(res, err); errors.Is(err, sql.ErrNoRows) {
			return whyNot(ctx, tx, gameID, playerID, owner, nil)
		} else if err != nil {
			return err
		}
		g, err = scanGame(tx.QueryRowContext(ctx, `SELECT `+gameCols+` FROM games WHERE id = $1`, gameID))
		return err
	})
	if err != nil {
		return store.Game{}, fmt.Errorf("store: claim game %d: %w", gameID, err)
	}
	return g, nil
}

// written is what a conditional save wrote: the version it built on and
// its move log, for whyNot to tell a save stored already (a retry after a
// lost answer) from a stale one.
type written struct {
	version int64
	moves   string
}

// writtenOf is what the saveArgs args write.
func writtenOf(args []any) *written {
	moves, _ := args[0].(string)
	version, _ := args[13].(int64)
	return &written{version: version, moves: moves}
}

// whyNot explains why a conditional write to a game changed nothing:
// ErrNotFound (no such game, or not this player's when playerID is set),
// ErrFinished, ErrConflict (another session owns it) or ErrStale (w, the
// save, built on an older version than the stored one); nil when the
// stored game is w already, written by this owner (a retry of a save that
// was stored, whose answer was lost). w is nil for a claim.
func whyNot(ctx context.Context, q querier, gameID int64, playerID, owner string, w *written) error {
	var player, status, current, moves string
	var version int64
	err := q.QueryRowContext(ctx, `SELECT player_id, status, owner, version, moves FROM games WHERE id = $1`, gameID).
		Scan(&player, &status, &current, &version, &moves)
	switch {
	case err != nil:
		return err
	case playerID != "" && player != playerID:
		return store.ErrNotFound
	case w != nil && current == owner && version == w.version+1 && moves == w.moves:
		return nil
	case store.Status(status) != store.StatusPlaying:
		return store.ErrFinished
	case current != owner:
		return store.ErrConflict
	case w != nil && version != w.version:
		return store.ErrStale
	}
	// It changed back between the two statements; say so rather than
	// claim success.
	return store.ErrConflict
}

// saveSQL is the one statement that stores a move, with the time of each
// move (move_ms). It is conditioned on the owner, so a session whose game
// was claimed elsewhere cannot write, and on the version the state was
// made on, so a copy of the game older than the stored one cannot
// overwrite it. The assistance counts and the watched mark never go down.
const saveSQL = `UPDATE games SET moves = $1, redo = $2, status = $3, removed = $4, elapsed_ms = $5,
	updated_at = $6, finished_at = $7, version = version + 1,
	hints = CASE WHEN hints > $10 THEN hints ELSE $10 END,
	undos = CASE WHEN undos > $11 THEN undos ELSE $11 END,
	watched = (watched OR $12), move_ms = $13
	WHERE id = $8 AND owner = $9 AND version = $14 AND status = 'playing'`

func saveArgs(gameID int64, owner string, version int64, st store.State, now time.Time) []any {
	var finished sql.NullInt64
	if st.Status.Finished() {
		finished = sql.NullInt64{Int64: ms(now), Valid: true}
	}
	return []any{encodeMoves(st.Moves), encodeMoves(st.Redo), string(st.Status), st.Removed,
		st.Elapsed.Milliseconds(), ms(now), finished, gameID, owner, st.Hints, st.Undos, st.Watched, encodeTimes(st.MoveTimes), version}
}

// gameTx runs fn, a game's short write transaction (a new game, a claim,
// a finish), in the group commit's next transaction on SQLite (group.go:
// one sync for all: a race's racers all create their games at its first
// moves, and all finish at its end), or in its own transaction.
func (s *Store) gameTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	if s.gate != nil && !s.soloSaves {
		return s.groupTx(ctx, false, fn)
	}
	return s.inTx(ctx, fn)
}

// gameTxOneWrite is gameTx for a write whose one change is its last
// statement, which SQLite undoes by itself when it fails: in the group
// commit's transaction it needs no savepoint of its own.
func (s *Store) gameTxOneWrite(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	if s.gate != nil && !s.soloSaves {
		return s.groupTx(ctx, true, fn)
	}
	return s.inTx(ctx, fn)
}

// SaveGame implements store.Games. It is a single UPDATE. On SQLite it
// joins the saves waiting for the writer, stored together in one
// transaction (group.go), and returns once that transaction is
// committed: with synchronous=FULL, the WAL is synced before it returns.
// On PostgreSQL it joins the saves waiting for the batch in flight,
// stored together in one autocommit statement (pggroup.go).
func (s *Store) SaveGame(ctx context.Context, gameID int64, owner string, version int64, st store.State) error {
	if err := checkState(st); err != nil {
		return fmt.Errorf("store: save game %d: %w", gameID, err)
	}
	args := saveArgs(gameID, owner, version, st, s.now())
	if s.gate != nil && !s.soloSaves {
		if err := s.groupSave(ctx, gameID, owner, args); err != nil {
			return fmt.Errorf("store: save game %d: %w", gameID, err)
		}
		return nil
	}
	if s.pgGate != nil && !s.soloSaves {
		if err := s.pgGroupSave(ctx, gameID, owner, args); err != nil {
			return fmt.Errorf("store: save game %d: %w", gameID, err)
		}
		return nil
	}
	err := s.write(ctx, func(ctx context.Context) error {
		return s.saveRow(ctx, gameID, owner, args)
	})
	if err != nil {
		return fmt.Errorf("store: save game %d: %w", gameID, err)
	}
	return nil
}

// FinishGame implements store.Games.
func (s *Store) FinishGame(ctx context.Context, gameID int64, owner string, version int64, st store.State, res *store.Result) error {
	err := checkState(st)
	if err == nil && !st.Status.Finished() {
		err = fmt.Errorf("%w: status %q is not final", store.ErrInvalid, st.Status)
	}
	if err == nil && res != nil {
		err = checkResult(gameID, st.Status, res)
	}
	if err != nil {
		return fmt.Errorf("store: finish game %d: %w", gameID, err)
	}
	args := saveArgs(gameID, owner, version, st, s.now())
	err = s.gameTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var r sql.Result
		var err error
		if ps := s.saves.stmt; ps != nil {
			// SQLite's writer has it prepared (a race's racers all
			// finish at its end).
			txst := tx.StmtContext(ctx, ps)
			defer txst.Close()
			r, err = txst.ExecContext(ctx, args...)
		} else {
			r, err = tx.ExecContext(ctx, saveSQL, args...)
		}
		if err := oneRow(r, err); errors.Is(err, sql.ErrNoRows) {
			if err := whyNot(ctx, tx, gameID, "", owner, writtenOf(args)); err != nil {
				return err
			}
			return nil // stored already: a retry (its result too)
		} else if err != nil || res == nil {
			return err
		}
		return insertResult(ctx, tx, *res)
	})
	if err != nil {
		return fmt.Errorf("store: finish game %d: %w", gameID, err)
	}
	return nil
}
