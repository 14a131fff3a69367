package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ControlAction is one operator action taken through the control API.
type ControlAction struct {
	ID       int64
	At       time.Time
	Action   string // pause, resume, cancel, force-exit, run, reload
	Instance string
	Args     string // the action's arguments (a symbol, a job), as given
	OK       bool
	Details  string // what was done, or the error
}

// RecordControl records an operator action and returns its id.
func (s *Store) RecordControl(ctx context.Context, a ControlAction) (int64, error) {
	if a.Action == "" {
		return 0, errors.New("store: control action without a name")
	}
	outcome := "ok"
	if !a.OK {
		outcome = "error"
	}
	res, err := s.exec(ctx, `INSERT INTO control_actions (at_ms, action, instance, args, outcome, details)
		VALUES (?, ?, ?, ?, ?, ?)`, millis(a.At), a.Action, a.Instance, a.Args, outcome, a.Details)
	if err != nil {
		return 0, fmt.Errorf("store: recording control action %s: %w", a.Action, classify(err))
	}
	return res.LastInsertId()
}

// ControlActions returns every recorded operator action, oldest first.
func (s *Store) ControlActions(ctx context.Context) ([]ControlAction, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, at_ms, action, instance, args, outcome, details
		FROM control_actions ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("store: control actions: %w", classify(err))
	}
	defer rows.Close()
	var out []ControlAction
	for rows.Next() {
		var a ControlAction
		var at int64
		var outcome string
		if err := rows.Scan(&a.ID, &at, &a.Action, &a.Instance, &a.Args, &outcome, &a.Details); err != nil {
			return nil, fmt.Errorf("store: control actions: %w", classify(err))
		}
		a.At, a.OK = fromMillis(at), outcome == "ok"
		out = append(out, a)
	}
	return out, classify(rows.Err())
}
