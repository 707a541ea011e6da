package store

import (
	"context"
	"database/sql"
	"fmt"

	memory "github.com/memory-mcp/memory-mcp"
)

// RuleAdvice counts every rule's requests by kind and status, with the
// rules marked review only, rules in name order.
func (db *DB) RuleAdvice(ctx context.Context) (map[string]*memory.RuleAdvice, error) {
	out := map[string]*memory.RuleAdvice{}
	get := func(rule string) *memory.RuleAdvice {
		if out[rule] == nil {
			out[rule] = &memory.RuleAdvice{Rule: rule}
		}
		return out[rule]
	}
	err := db.View(ctx, func(tx *Tx) error {
		rows, err := tx.query(ctx, `SELECT rule, kind, status, count(*) FROM approvals GROUP BY 1, 2, 3`)
		if err != nil {
			return fmt.Errorf("count approvals by rule: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var rule, kind, status string
			var n int
			if err := rows.Scan(&rule, &kind, &status, &n); err != nil {
				return err
			}
			a := get(rule)
			switch memory.ApprovalKind(kind) {
			case memory.ApprovalHold:
				a.Holds += n
				switch memory.ApprovalStatus(status) {
				case memory.ApprovalApproved, memory.ApprovalFailed: // failed: approved, then its own checks refused it
					a.HoldsApproved += n
				case memory.ApprovalRejected:
					a.HoldsRejected += n
				}
			case memory.ApprovalReview:
				a.Reviews += n
				if memory.ApprovalStatus(status) == memory.ApprovalApproved {
					a.ReviewsApproved += n
				}
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		marks, err := tx.query(ctx, `SELECT rule, marked_by, marked_at, reason FROM review_only_rules`)
		if err != nil {
			return fmt.Errorf("read review-only rules: %w", err)
		}
		defer marks.Close()
		for marks.Next() {
			var rule, by, reason string
			var at int64
			if err := marks.Scan(&rule, &by, &at, &reason); err != nil {
				return err
			}
			a := get(rule)
			a.ReviewOnly, a.MarkedBy, a.MarkedAt, a.Reason = true, by, fromNanos(at), reason
		}
		return marks.Err()
	})
	return out, err
}

// ReviewOnly reports whether a human marked rule review only.
func (db *DB) ReviewOnly(ctx context.Context, rule string) (bool, error) {
	var n int
	err := db.View(ctx, func(tx *Tx) error {
		return tx.queryRow(ctx, `SELECT count(*) FROM review_only_rules WHERE rule = ?`, rule).Scan(&n)
	})
	if err != nil {
		return false, fmt.Errorf("read review-only rule %s: %w", rule, err)
	}
	return n > 0, nil
}

// MarkReviewOnly marks rule review only for who, or unmarks it; marking a
// marked rule again, or unmarking one not marked, is ECONFLICT.
func (db *DB) MarkReviewOnly(ctx context.Context, who memory.Identity, rule string, on bool, reason string) error {
	return db.Update(ctx, func(tx *Tx) error {
		var res sql.Result
		var err error
		if on {
			res, err = tx.exec(ctx, `INSERT INTO review_only_rules (rule, marked_by, marked_at, reason) VALUES (?, ?, ?, ?)
				ON CONFLICT (rule) DO NOTHING`, rule, who.Principal(), nanos(tx.Now()), reason)
		} else {
			res, err = tx.exec(ctx, `DELETE FROM review_only_rules WHERE rule = ?`, rule)
		}
		if err != nil {
			return fmt.Errorf("mark rule %s: %w", rule, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			if on {
				return memory.Errorf(memory.ECONFLICT, "rule %s is review only already", rule)
			}
			return memory.Errorf(memory.ECONFLICT, "rule %s is not marked review only: its writes are held as configured", rule)
		}
		return nil
	})
}
