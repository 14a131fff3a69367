package session

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/sim"
	"github.com/spotbot/spotbot/risk"
)

// Fill is the simulated exchange's fill model and fees: the typed form of
// the configuration's sim section. The zero value is the documented default
// (docs/fill-model.md): trade-through for resting limits, market orders at
// the next bar's open, no slippage, the symbols' own fees.
type Fill struct {
	Touch         bool            // resting limits fill when a bar touches their price
	AtSignalClose bool            // market orders fill at once, at the last close
	SlippageBps   decimal.Decimal // worsens market and crossing fills
	SlippageTicks int             // and then by this many price ticks
	MakerFee      *decimal.Decimal
	TakerFee      *decimal.Decimal
	RateLimits    bool // apply the spec's rate budgets in simulated time
	// TokenFees pays fees in the platform token (TOK) at its discount when
	// the account holds enough of it and a TOK market prices the fee.
	TokenFees bool
	// QuoteFees charges every fee in the quote asset (sim.fee_asset:
	// quote) instead of the asset received.
	QuoteFees bool
}

// String describes the fill model in words, for reports.
func (f Fill) String() string {
	s := "trade-through"
	if f.Touch {
		s = "touch"
	}
	if f.AtSignalClose {
		s += ", market at signal close"
	} else {
		s += ", market at next open"
	}
	if !f.SlippageBps.IsZero() {
		s += ", slippage " + f.SlippageBps.String() + " bps"
	}
	if f.SlippageTicks > 0 {
		s += ", slippage " + strconv.Itoa(f.SlippageTicks) + " ticks"
	}
	if f.TokenFees {
		s += ", fees in the token"
	}
	if f.QuoteFees {
		s += ", fees in the quote asset"
	}
	return s
}

// FillFromConfig is the one translation of the configuration's sim.*
// options into the fill model; every command that builds a simulated
// exchange goes through it. An empty word is the default; a section that
// fails config.Sim.Check is refused with its problems.
func FillFromConfig(c config.Sim) (Fill, error) {
	if c.Fill == "" {
		c.Fill = config.FillTradeThrough
	}
	if c.Market == "" {
		c.Market = config.MarketNextOpen
	}
	if c.FeeAsset == "" {
		c.FeeAsset = config.FeeReceived
	}
	if err := c.Check(); err != nil {
		return Fill{}, err
	}
	return Fill{Touch: c.Fill == config.FillTouch, AtSignalClose: c.Market == config.MarketClose,
		SlippageBps: c.SlippageBps, SlippageTicks: c.SlippageTicks, MakerFee: c.MakerFee, TakerFee: c.TakerFee,
		RateLimits: c.RateLimits, TokenFees: c.TokenFees, QuoteFees: c.FeeAsset == config.FeeQuote}, nil
}

// gateOptions are the risk gate's options that make it check orders as
// this fill model's exchange accepts them: the one place the gate learns
// of the fill model.
func (f Fill) gateOptions() []risk.Option {
	if f.QuoteFees {
		return []risk.Option{risk.WithQuoteFees()}
	}
	return nil
}

// Venue describes a simulated exchange to build.
type Venue struct {
	Fill Fill
	// Start is the exchange's initial clock.
	Start time.Time
	// Rules are the tradable symbols.
	Rules []exchange.SymbolInfo
	// Balances fund the main account.
	Balances map[string]decimal.Decimal
	// Retention is how the exchange keeps history.
	Retention Retention
	// Immediate fills market orders at once whatever Fill says: a job
	// has no next bar to fill them at.
	Immediate bool
	// SingleDriver says one goroutine alone drives the exchange (a
	// backtest's loop): sim.Options.SingleDriver.
	SingleDriver bool
}

// Retention says what a simulated exchange keeps.
type Retention int

const (
	// KeepAll keeps every kline, order and trade: a simulated server
	// serves them all.
	KeepAll Retention = iota
	// KeepRun keeps what a backtest reads: no klines beyond the last, a
	// page of trades (fills come from order events), and final orders
	// and own trades only as long as KeepMonth does (a backtest never
	// queries older ones).
	KeepRun
	// KeepMonth keeps what the REST endpoints serve (allOrders reaches 7
	// days back, myTrades a month): a paper bot runs for months.
	KeepMonth
)

// paperHistory is how long a long-running simulated exchange remembers
// final orders and trades.
const paperHistory = 31 * 24 * time.Hour

// simOptions is the one translation of a Venue into the simulator's options.
func (v Venue) simOptions() sim.Options {
	o := sim.Options{Start: v.Start, Symbols: v.Rules, SlippageBps: v.Fill.SlippageBps, SlippageTicks: v.Fill.SlippageTicks,
		MakerFee: v.Fill.MakerFee, TakerFee: v.Fill.TakerFee, RateLimits: v.Fill.RateLimits, QuoteFees: v.Fill.QuoteFees,
		SingleDriver: v.SingleDriver}
	if v.Fill.Touch {
		o.LimitFill = sim.Touch
	}
	if v.Fill.AtSignalClose || v.Immediate {
		o.MarketFill = sim.Immediate
	}
	switch v.Retention {
	case KeepRun:
		// The loop reads fills from order events and keeps its own bars:
		// the exchange need not keep a run's klines or every trade (1,000
		// is a full page of the trades endpoints), nor every order: final
		// orders are forgotten after what the REST endpoints serve, as a
		// paper bot's are (a 2M-bar run's 78k orders took 20 MB).
		o.KlineRetention, o.OwnTradeRetention, o.TradeRetention = 1, 1000, 1000
		o.HistoryRetention = paperHistory
	case KeepMonth:
		o.KlineRetention, o.HistoryRetention = 1, paperHistory
	}
	return o
}

// NewSim builds the simulated exchange a Venue describes: its symbols, its
// fill model, the main account funded (assets in name order) and, with
// token fees, paying fees in the platform token.
func NewSim(ctx context.Context, v Venue) (*sim.Exchange, error) {
	x, err := sim.New(v.simOptions())
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	for _, a := range slices.Sorted(maps.Keys(v.Balances)) {
		if err := x.Credit(x.MasterUID(), a, v.Balances[a]); err != nil {
			return nil, fmt.Errorf("session: account.balances.%s: %w", a, err)
		}
	}
	if v.Fill.TokenFees {
		if _, err := x.Master().SetTokDeduct(ctx, true); err != nil {
			return nil, fmt.Errorf("session: sim.token_fees: %w", err)
		}
	}
	return x, nil
}
