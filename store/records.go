package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// SaveState keeps a strategy instance's state (strategy.Journal); each
// save increments the instance's state version.
func (s *Store) SaveState(ctx context.Context, instance string, state []byte) error {
	if instance == "" {
		return errors.New("store: state without an instance")
	}
	if state == nil {
		state = []byte{}
	}
	_, err := s.exec(ctx, `INSERT INTO strategy_state (instance, version, state, updated_ms) VALUES (?1, 1, ?2, ?3)
		ON CONFLICT (instance) DO UPDATE SET version = version + 1, state = ?2, updated_ms = ?3`,
		instance, state, s.clock.Now().UnixMilli())
	if err != nil {
		return fmt.Errorf("store: saving state of %s: %w", instance, classify(err))
	}
	return nil
}

// DeleteState forgets an instance's saved state; forgetting a state that
// was never saved is not an error.
func (s *Store) DeleteState(ctx context.Context, instance string) error {
	if _, err := s.exec(ctx, `DELETE FROM strategy_state WHERE instance = ?`, instance); err != nil {
		return fmt.Errorf("store: deleting state of %s: %w", instance, classify(err))
	}
	return nil
}

// LoadState returns an instance's saved state (strategy.Journal).
func (s *Store) LoadState(ctx context.Context, instance string) (state []byte, ok bool, err error) {
	st, ok, err := s.State(ctx, instance)
	return st.Data, ok, err
}

// State is a saved strategy state with its version.
type State struct {
	Instance string
	Version  int64 // 1 for the first save, +1 for each after
	Data     []byte
	Updated  time.Time
}

// State returns an instance's saved state and its version.
func (s *Store) State(ctx context.Context, instance string) (State, bool, error) {
	st := State{Instance: instance}
	var ms int64
	err := s.r.QueryRowContext(ctx, `SELECT version, state, updated_ms FROM strategy_state WHERE instance = ?`, instance).
		Scan(&st.Version, &st.Data, &ms)
	if errors.Is(err, sql.ErrNoRows) {
		return State{}, false, nil
	}
	if err != nil {
		return State{}, false, fmt.Errorf("store: loading state of %s: %w", instance, classify(err))
	}
	st.Updated = fromMillis(ms)
	return st, true, nil
}

// JobRun is one run of a scheduled job, or of a strategy's schedule.
type JobRun struct {
	ID        int64
	Job       string
	Instance  string // the strategy instance; empty for standalone jobs
	Scheduled time.Time
	Start     time.Time
	End       time.Time
	OK        bool
	Details   string // the error when not OK, else a summary
}

// RecordRun records one run of a strategy's schedule (strategy.Journal).
func (s *Store) RecordRun(ctx context.Context, run strategy.Run) error {
	_, err := s.RecordJobRun(ctx, JobRun{Job: run.Schedule, Instance: run.Instance, Scheduled: run.Scheduled,
		Start: run.Start, End: run.End, OK: run.Err == nil, Details: runDetails(run)})
	return err
}

// runDetails is a run's error, if any, and the orders it placed:
// "orders: a, b", "no orders", or "boom; orders: a".
func runDetails(run strategy.Run) string {
	orders := "no orders"
	if len(run.Orders) > 0 {
		orders = "orders: " + strings.Join(run.Orders, ", ")
	}
	if run.Err != nil {
		return errText(run.Err) + "; " + orders
	}
	return orders
}

// RecordJobRun records one run of a job and returns its id.
func (s *Store) RecordJobRun(ctx context.Context, r JobRun) (int64, error) {
	if r.Job == "" {
		return 0, errors.New("store: job run without a job name")
	}
	if r.End.Before(r.Start) {
		return 0, fmt.Errorf("store: job run of %s ends (%s) before it starts (%s)", r.Job, r.End.UTC().Format(time.RFC3339Nano), r.Start.UTC().Format(time.RFC3339Nano))
	}
	outcome := "ok"
	if !r.OK {
		outcome = "error"
	}
	res, err := s.exec(ctx, `INSERT INTO job_runs (job, instance, scheduled_ms, start_ms, end_ms, outcome, details)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, r.Job, r.Instance, millis(r.Scheduled), millis(r.Start), millis(r.End), outcome, r.Details)
	if err != nil {
		return 0, fmt.Errorf("store: recording a run of %s: %w", r.Job, classify(err))
	}
	return res.LastInsertId()
}

// JobRuns returns the runs of a job, oldest scheduled first.
func (s *Store) JobRuns(ctx context.Context, job string) ([]JobRun, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, job, instance, scheduled_ms, start_ms, end_ms, outcome, details
		FROM job_runs WHERE job = ? ORDER BY scheduled_ms, id`, job)
	if err != nil {
		return nil, fmt.Errorf("store: runs of %s: %w", job, classify(err))
	}
	defer rows.Close()
	var out []JobRun
	for rows.Next() {
		var r JobRun
		var sched, start, end int64
		var outcome string
		if err := rows.Scan(&r.ID, &r.Job, &r.Instance, &sched, &start, &end, &outcome, &r.Details); err != nil {
			return nil, fmt.Errorf("store: runs of %s: %w", job, classify(err))
		}
		r.Scheduled, r.Start, r.End, r.OK = fromMillis(sched), fromMillis(start), fromMillis(end), outcome == "ok"
		out = append(out, r)
	}
	return out, classify(rows.Err())
}

// BacktestRun is a recorded backtest: what was run and what came out.
type BacktestRun struct {
	ID        int64
	Name      string
	Started   time.Time
	Config    string          // the configuration as given (YAML or JSON text)
	Params    json.RawMessage // the strategy parameters, a JSON object
	Metrics   json.RawMessage // the metrics, a JSON object
	ReportDir string          // where the reports were written
}

// RecordBacktest records a backtest run and returns its id.
func (s *Store) RecordBacktest(ctx context.Context, r BacktestRun) (int64, error) {
	params, err := jsonObject(r.Params, "params")
	if err != nil {
		return 0, err
	}
	metrics, err := jsonObject(r.Metrics, "metrics")
	if err != nil {
		return 0, err
	}
	res, err := s.w.ExecContext(ctx, `INSERT INTO backtest_runs (name, started_ms, config, params, metrics, report_dir)
		VALUES (?, ?, ?, ?, ?, ?)`, r.Name, millis(r.Started), r.Config, params, metrics, r.ReportDir)
	if err != nil {
		return 0, fmt.Errorf("store: recording backtest %q: %w", r.Name, classify(err))
	}
	return res.LastInsertId()
}

func jsonObject(m json.RawMessage, field string) (string, error) {
	if len(m) == 0 {
		return "{}", nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(m, &obj); err != nil {
		return "", fmt.Errorf("store: backtest %s is not a JSON object: %w", field, err)
	}
	return string(m), nil
}

// BacktestRuns returns the recorded backtest runs, oldest first.
func (s *Store) BacktestRuns(ctx context.Context) ([]BacktestRun, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, name, started_ms, config, params, metrics, report_dir FROM backtest_runs ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("store: backtest runs: %w", classify(err))
	}
	defer rows.Close()
	var out []BacktestRun
	for rows.Next() {
		var r BacktestRun
		var ms int64
		var params, metrics string
		if err := rows.Scan(&r.ID, &r.Name, &ms, &r.Config, &params, &metrics, &r.ReportDir); err != nil {
			return nil, fmt.Errorf("store: backtest runs: %w", classify(err))
		}
		r.Started, r.Params, r.Metrics = fromMillis(ms), json.RawMessage(params), json.RawMessage(metrics)
		out = append(out, r)
	}
	return out, classify(rows.Err())
}

// BalanceSnapshot is an account's balances at one time.
type BalanceSnapshot struct {
	ID       int64
	Account  string
	Taken    time.Time
	Balances []exchange.Balance // free and locked; sorted by asset
}

// RecordBalances stores a snapshot of an account's balances and returns
// its id.
func (s *Store) RecordBalances(ctx context.Context, account string, taken time.Time, bals []exchange.Balance) (int64, error) {
	if taken.IsZero() {
		return 0, fmt.Errorf("store: balance snapshot of %q without a time", account)
	}
	var id int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO balance_snapshots (account, taken_ms) VALUES (?, ?)`, account, taken.UnixMilli())
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		for _, b := range bals {
			if b.Asset == "" {
				return errors.New("a balance without an asset")
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO balances (snapshot_id, asset, free, locked) VALUES (?, ?, ?, ?)`,
				id, b.Asset, decText(b.Free), decText(b.Locked)); err != nil {
				return fmt.Errorf("asset %s: %w", b.Asset, err)
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: recording balances of %q: %w", account, err)
	}
	return id, nil
}

// LatestBalances returns an account's most recent balance snapshot.
func (s *Store) LatestBalances(ctx context.Context, account string) (BalanceSnapshot, bool, error) {
	snap := BalanceSnapshot{Account: account}
	var ms int64
	err := s.r.QueryRowContext(ctx, `SELECT id, taken_ms FROM balance_snapshots WHERE account = ? ORDER BY taken_ms DESC, id DESC LIMIT 1`,
		account).Scan(&snap.ID, &ms)
	if errors.Is(err, sql.ErrNoRows) {
		return BalanceSnapshot{}, false, nil
	}
	if err != nil {
		return BalanceSnapshot{}, false, fmt.Errorf("store: balances of %q: %w", account, classify(err))
	}
	snap.Taken = fromMillis(ms)
	rows, err := s.r.QueryContext(ctx, `SELECT asset, free, locked FROM balances WHERE snapshot_id = ? ORDER BY asset`, snap.ID)
	if err != nil {
		return BalanceSnapshot{}, false, fmt.Errorf("store: balances of %q: %w", account, classify(err))
	}
	defer rows.Close()
	for rows.Next() {
		var b exchange.Balance
		var free, locked string
		if err := rows.Scan(&b.Asset, &free, &locked); err != nil {
			return BalanceSnapshot{}, false, classify(err)
		}
		if b.Free, err = parseDec(free, "balances", "free", b.Asset); err != nil {
			return BalanceSnapshot{}, false, err
		}
		if b.Locked, err = parseDec(locked, "balances", "locked", b.Asset); err != nil {
			return BalanceSnapshot{}, false, err
		}
		snap.Balances = append(snap.Balances, b)
	}
	return snap, true, classify(rows.Err())
}
