-- Strategy state, scheduled job runs, backtest runs and balance snapshots.

CREATE TABLE strategy_state (
	instance   TEXT PRIMARY KEY,
	version    INTEGER NOT NULL,
	state      BLOB NOT NULL,
	updated_ms INTEGER NOT NULL
) STRICT;

CREATE TABLE job_runs (
	id           INTEGER PRIMARY KEY,
	job          TEXT NOT NULL,
	instance     TEXT NOT NULL DEFAULT '',
	scheduled_ms INTEGER NOT NULL,
	start_ms     INTEGER NOT NULL,
	end_ms       INTEGER NOT NULL,
	outcome      TEXT NOT NULL CHECK (outcome IN ('ok', 'error')),
	details      TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX job_runs_job ON job_runs (job, scheduled_ms);

CREATE TABLE backtest_runs (
	id         INTEGER PRIMARY KEY,
	name       TEXT NOT NULL DEFAULT '',
	started_ms INTEGER NOT NULL,
	config     TEXT NOT NULL DEFAULT '',
	params     TEXT NOT NULL DEFAULT '{}',
	metrics    TEXT NOT NULL DEFAULT '{}',
	report_dir TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE TABLE balance_snapshots (
	id       INTEGER PRIMARY KEY,
	account  TEXT NOT NULL DEFAULT '',
	taken_ms INTEGER NOT NULL
) STRICT;

CREATE INDEX balance_snapshots_time ON balance_snapshots (account, taken_ms);

CREATE TABLE balances (
	snapshot_id INTEGER NOT NULL REFERENCES balance_snapshots (id) ON DELETE CASCADE,
	asset       TEXT NOT NULL,
	free        TEXT NOT NULL,
	locked      TEXT NOT NULL,
	PRIMARY KEY (snapshot_id, asset)
) STRICT, WITHOUT ROWID;
