package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"pyramid/store"
)

var _ store.Audit = (*Store)(nil)

// maxAuditLimit bounds one read of the audit log.
const maxAuditLimit = 1000

// AddAudit implements store.Audit.
func (s *Store) AddAudit(ctx context.Context, e store.AuditEntry) (int64, error) {
	switch {
	case e.Action == "" || len(e.Action) > 32:
		return 0, fmt.Errorf("store: add to the audit log: %w: action %q", store.ErrInvalid, e.Action)
	case len(e.Actor) > store.MaxIDLen || len(e.Target) > store.MaxIDLen || len(e.Subject) > maxReasonBytes || len(e.Reason) > maxReasonBytes:
		return 0, fmt.Errorf("store: add to the audit log: %w: a field too long", store.ErrInvalid)
	}
	at := e.At
	if at.IsZero() {
		at = s.now()
	}
	e.At = at
	var id int64
	err := s.write(ctx, func(ctx context.Context) (err error) {
		id, err = addAudit(ctx, s.w, e)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: add %s of %q to the audit log: %w", e.Action, e.Target, err)
	}
	return id, nil
}

// addAudit stores an entry of the audit log (its At set) through q: the
// writer, or the transaction of the change it tells of.
func addAudit(ctx context.Context, q querier, e store.AuditEntry) (int64, error) {
	var id int64
	err := q.QueryRowContext(ctx, `INSERT INTO audit_log (at, actor_id, action, target_id, subject, reason)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
		ms(e.At), e.Actor, e.Action, e.Target, e.Subject, e.Reason).Scan(&id)
	return id, err
}

// AuditLog implements store.Audit.
func (s *Store) AuditLog(ctx context.Context, player string, limit int) ([]store.AuditEntry, error) {
	if limit <= 0 || limit > maxAuditLimit {
		limit = maxAuditLimit
	}
	const cols = `SELECT a.id, a.at, a.actor_id, a.action, a.target_id, a.subject, a.reason,
		COALESCE(pa.name, ''), COALESCE(pt.name, '')
		FROM audit_log a LEFT JOIN players pa ON pa.id = a.actor_id LEFT JOIN players pt ON pt.id = a.target_id `
	var out []store.AuditEntry
	err := s.read(ctx, func(ctx context.Context, db *sql.DB) error {
		out = out[:0]
		var rows *sql.Rows
		var err error
		if player == "" {
			rows, err = db.QueryContext(ctx, cols+`ORDER BY a.id DESC LIMIT $1`, limit)
		} else {
			rows, err = db.QueryContext(ctx, cols+`WHERE a.target_id = $1 OR a.actor_id = $1 ORDER BY a.id DESC LIMIT $2`, player, limit)
		}
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e store.AuditEntry
			var at int64
			if err := rows.Scan(&e.ID, &at, &e.Actor, &e.Action, &e.Target, &e.Subject, &e.Reason, &e.ActorName, &e.TargetName); err != nil {
				return err
			}
			e.At = fromMS(at)
			out = append(out, e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: read the audit log: %w", err)
	}
	return out, nil
}
