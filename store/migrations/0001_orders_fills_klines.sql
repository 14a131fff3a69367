-- Orders, fills and klines: what the runtime and the backtester need first.
-- Decimals are TEXT in exact form; times are INTEGER milliseconds UTC
-- (0 when unknown).

CREATE TABLE orders (
	client_order_id TEXT PRIMARY KEY,
	order_id        TEXT NOT NULL DEFAULT '',
	instance        TEXT NOT NULL,
	symbol          TEXT NOT NULL,
	side            TEXT NOT NULL,
	type            TEXT NOT NULL,
	price           TEXT NOT NULL,
	quantity        TEXT NOT NULL,
	quote_quantity  TEXT NOT NULL,
	stp_mode        TEXT NOT NULL DEFAULT '',
	status          TEXT NOT NULL DEFAULT '',
	executed_qty    TEXT NOT NULL DEFAULT '0',
	cum_quote_qty   TEXT NOT NULL DEFAULT '0',
	cancel_reason   TEXT NOT NULL DEFAULT '',
	-- recorded, sent, unknown, acknowledged, refused, final
	intent          TEXT NOT NULL CHECK (intent IN ('recorded', 'sent', 'unknown', 'acknowledged', 'refused', 'final')),
	error           TEXT NOT NULL DEFAULT '',
	created_ms      INTEGER NOT NULL,
	updated_ms      INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- No secondary index on orders: every index an intent or an
-- acknowledgement touches is one more page written per commit, and the
-- journal's hot path is those two writes. Lookups go by client order id
-- (the key); the open-order and exchange-id queries scan, which is cheap
-- at the scale of one bot's orders.

CREATE TABLE fills (
	symbol           TEXT NOT NULL,
	trade_id         TEXT NOT NULL,
	order_id         TEXT NOT NULL,
	client_order_id  TEXT NOT NULL DEFAULT '',
	instance         TEXT NOT NULL DEFAULT '',
	side             TEXT NOT NULL CHECK (side IN ('BUY', 'SELL')),
	price            TEXT NOT NULL,
	qty              TEXT NOT NULL,
	quote_qty        TEXT NOT NULL,
	commission       TEXT NOT NULL,
	commission_asset TEXT NOT NULL DEFAULT '',
	maker            INTEGER NOT NULL,
	self_trade       INTEGER NOT NULL,
	time_ms          INTEGER NOT NULL,
	PRIMARY KEY (symbol, trade_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX fills_time ON fills (time_ms);
CREATE INDEX fills_client_order ON fills (client_order_id);

-- A bar's six decimals are one TEXT value, "open,high,low,close,volume,
-- quote_volume": reading one column instead of six is what lets a
-- backtest load hundreds of thousands of bars a second.
CREATE TABLE klines (
	symbol   TEXT NOT NULL,
	interval TEXT NOT NULL,
	open_ms  INTEGER NOT NULL,
	close_ms INTEGER NOT NULL,
	ohlcv    TEXT NOT NULL,
	PRIMARY KEY (symbol, interval, open_ms)
) STRICT, WITHOUT ROWID;
