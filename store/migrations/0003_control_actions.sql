-- Operator actions taken through the control API, with their outcome.

CREATE TABLE control_actions (
	id       INTEGER PRIMARY KEY,
	at_ms    INTEGER NOT NULL,
	action   TEXT NOT NULL,
	instance TEXT NOT NULL DEFAULT '',
	args     TEXT NOT NULL DEFAULT '',
	outcome  TEXT NOT NULL CHECK (outcome IN ('ok', 'error')),
	details  TEXT NOT NULL DEFAULT ''
) STRICT;
