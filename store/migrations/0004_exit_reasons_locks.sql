-- Why the runtime placed an order itself (an emulated exit: stop_loss,
-- take_profit, trailing_stop, max_hold); empty for a strategy's own order.
ALTER TABLE orders ADD COLUMN exit_reason TEXT NOT NULL DEFAULT '';

-- Symbols locked for an instance by a protection, from from_ms until until_ms.
CREATE TABLE protection_locks (
	id       INTEGER PRIMARY KEY,
	instance TEXT NOT NULL,
	symbol   TEXT NOT NULL,
	reason   TEXT NOT NULL,
	from_ms  INTEGER NOT NULL,
	until_ms INTEGER NOT NULL CHECK (until_ms > from_ms)
) STRICT;
CREATE INDEX protection_locks_until ON protection_locks (until_ms);
