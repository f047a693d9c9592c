package pgbus

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// holdSQL takes the lease $1 for $2 until $3 seconds from now, or keeps
// it: the row is written only when $2 holds it already or its holder's
// time ran out (the row's lock makes two takers at once one after the
// other: the second sees the first's expiry). It returns the holder as it
// stands and the holder before.
const holdSQL = `WITH before AS (
	SELECT holder FROM bus_leases WHERE name = $1
), taken AS (
	INSERT INTO bus_leases AS l (name, holder, expires) VALUES ($1, $2, now() + make_interval(secs => $3))
	ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires = excluded.expires
	WHERE l.holder = excluded.holder OR l.expires < now()
	RETURNING holder
)
SELECT coalesce((SELECT holder FROM taken), ''), coalesce((SELECT holder FROM before), '')`

// Hold takes the lease name for holder, or keeps it, until ttl from now
// by the database's clock (cluster.Lease): it reports whether holder holds
// it, and, when holder took it over from another holder whose time had
// run out, who that was.
func (b *Bus) Hold(ctx context.Context, name, holder string, ttl time.Duration) (bool, string, error) {
	if err := b.live(ctx); err != nil {
		return false, "", fmt.Errorf("hold lease %q: %w", name, err)
	}
	ctx, stop := b.bound(ctx)
	defer stop()
	var now, before string
	err := again(ctx, func() error {
		return b.pool.QueryRow(ctx, holdSQL, name, holder, ttl.Seconds()).Scan(&now, &before)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		err = nil
	}
	if err != nil {
		return false, "", fmt.Errorf("hold lease %q: %w", name, b.cause(err))
	}
	if now != holder {
		return false, "", nil
	}
	if before == holder {
		before = ""
	}
	return true, before, nil
}

// Now returns the database's clock (clock_timestamp(), the moment the
// query runs, not the transaction's start): the one clock of the servers
// that share the database.
func (b *Bus) Now(ctx context.Context) (time.Time, error) {
	if err := b.live(ctx); err != nil {
		return time.Time{}, fmt.Errorf("database clock: %w", err)
	}
	ctx, stop := b.bound(ctx)
	defer stop()
	var t time.Time
	err := again(ctx, func() error { return b.pool.QueryRow(ctx, `SELECT clock_timestamp()`).Scan(&t) })
	if err != nil {
		return time.Time{}, fmt.Errorf("database clock: %w", b.cause(err))
	}
	return t, nil
}
