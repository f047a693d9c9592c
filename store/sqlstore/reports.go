package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"pyramid/store"
)

var _ store.Reports = (*Store)(nil)

// AddReport implements store.Reports.
func (s *Store) AddReport(ctx context.Context, r store.Report, perDay int) (int64, error) {
	switch {
	case r.Reporter == "" || r.Reported == "" || r.Reason == "":
		return 0, fmt.Errorf("store: add a report: %w: a reporter, a player and a reason are needed", store.ErrInvalid)
	case len(r.Reporter) > store.MaxIDLen || len(r.Reported) > store.MaxIDLen || len(r.Reason) > maxReasonBytes:
		return 0, fmt.Errorf("store: add a report: %w: a field too long", store.ErrInvalid)
	}
	var id int64
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		now := s.now()
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM reports WHERE reporter_id = $1 AND at > $2`,
			r.Reporter, ms(now.Add(-24*time.Hour))).Scan(&n); err != nil {
			return err
		}
		if n >= perDay {
			return fmt.Errorf("%w: %d reports in 24 hours", store.ErrLimit, n)
		}
		return tx.QueryRowContext(ctx, `INSERT INTO reports (at, reporter_id, reported_id, reason) VALUES ($1, $2, $3, $4) RETURNING id`,
			ms(now), r.Reporter, r.Reported, r.Reason).Scan(&id)
	})
	if err != nil {
		return 0, fmt.Errorf("store: add a report of %s by %s: %w", r.Reported, r.Reporter, err)
	}
	return id, nil
}

// Reports implements store.Reports.
func (s *Store) Reports(ctx context.Context, limit int, all bool) ([]store.Report, error) {
	if limit <= 0 || limit > maxAuditLimit {
		limit = maxAuditLimit
	}
	var out []store.Report
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		out = out[:0]
		rows, err := db.QueryContext(ctx, `SELECT r.id, r.at, r.reporter_id, r.reported_id, r.reason, r.closed_at, r.closed_by,
			COALESCE(pa.name, ''), COALESCE(pb.name, ''), COALESCE(pc.name, '')
			FROM reports r LEFT JOIN players pa ON pa.id = r.reporter_id LEFT JOIN players pb ON pb.id = r.reported_id
			LEFT JOIN players pc ON pc.id = r.closed_by
			WHERE $1 OR r.closed_at = 0
			ORDER BY r.id DESC LIMIT $2`, all, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r store.Report
			var at, closed int64
			if err := rows.Scan(&r.ID, &at, &r.Reporter, &r.Reported, &r.Reason, &closed, &r.ClosedBy,
				&r.ReporterName, &r.ReportedName, &r.ClosedByName); err != nil {
				return err
			}
			r.At = fromMS(at)
			if closed != 0 {
				r.Closed = fromMS(closed)
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: read the reports: %w", err)
	}
	return out, nil
}

// CloseReport implements store.Reports.
func (s *Store) CloseReport(ctx context.Context, id int64, actor, reason string) error {
	if len(actor) > store.MaxIDLen || len(reason) > maxReasonBytes {
		return fmt.Errorf("store: close report %d: %w: a field too long", id, store.ErrInvalid)
	}
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		now := s.now()
		var closed int64
		if err := tx.QueryRowContext(ctx, `SELECT closed_at FROM reports WHERE id = $1`, id).Scan(&closed); err != nil {
			return err
		}
		if closed != 0 {
			return store.ErrClosed
		}
		if _, err := tx.ExecContext(ctx, `UPDATE reports SET closed_at = $1, closed_by = $2 WHERE id = $3`, ms(now), actor, id); err != nil {
			return err
		}
		_, err := addAudit(ctx, tx, store.AuditEntry{At: now, Actor: actor, Action: store.AuditCloseReport,
			Subject: fmt.Sprintf("report %d", id), Reason: reason})
		return err
	})
	if err != nil {
		return fmt.Errorf("store: close report %d: %w", id, err)
	}
	return nil
}
