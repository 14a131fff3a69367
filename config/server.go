package config

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// ModeSimServer is the mode of a `bot sim-server` configuration: no bot
// trades; the server section describes the simulated exchange served over
// HTTP, sim its fill model and data the klines it replays.
const ModeSimServer = "sim-server"

// Server describes the simulated exchange `bot sim-server` serves: its
// symbols, its accounts and their API keys, its rate limits and how many
// bars it is fed before it listens. The fill model is the sim section and
// the replayed klines the data section, as in every other command.
type Server struct {
	// Start is the exchange's initial clock (YYYY-MM-DD or RFC 3339);
	// empty for the first replayed bar's open (at the latest 2024-01-01).
	Start string `koanf:"start"`
	// ExchangeInfo is a recorded /api/v3/exchangeInfo reply (JSON) whose
	// symbols the simulator lists, rules and all, besides Symbols.
	ExchangeInfo string         `koanf:"exchange_info"`
	Symbols      []ServerSymbol `koanf:"symbols"`
	// Accounts are the exchange's accounts; the first is the master.
	Accounts []ServerAccount `koanf:"accounts"`
	// Limits applies the spec's rate limits, counted in the server's
	// clock.
	Limits bool `koanf:"limits"`
	// Warmup is how many intervals of bars are fed before the server
	// listens; the rest is replayed at data.speed.
	Warmup int `koanf:"warmup"`
}

// ServerSymbol is a symbol of the simulated exchange and its rules.
type ServerSymbol struct {
	Symbol            string          `koanf:"symbol"`
	Base              string          `koanf:"base"`
	Quote             string          `koanf:"quote"`
	BasePrecision     int             `koanf:"base_precision"`  // quantity decimals
	QuotePrecision    int             `koanf:"quote_precision"` // price decimals
	MinAmount         decimal.Decimal `koanf:"min_amount"`      // quote amount, limit orders (and market ones unless set)
	MaxAmount         decimal.Decimal `koanf:"max_amount"`
	MinAmountMarket   decimal.Decimal `koanf:"min_amount_market"`
	MaxAmountMarket   decimal.Decimal `koanf:"max_amount_market"`
	MinQty            decimal.Decimal `koanf:"min_qty"`
	MakerFee          decimal.Decimal `koanf:"maker_fee"` // sim.maker_fee overrides it
	TakerFee          decimal.Decimal `koanf:"taker_fee"`
	OrderTypes        []string        `koanf:"order_types"` // default LIMIT, MARKET, LIMIT_MAKER
	BidMultiplierUp   decimal.Decimal `koanf:"bid_multiplier_up"`
	AskMultiplierDown decimal.Decimal `koanf:"ask_multiplier_down"`
}

// ServerAccount is an account of the simulated exchange. Its API secret
// is never in the file: it comes from the environment variable SecretEnv
// names, or from SecretFile (mode 0600). APIKey is the access key id,
// which is not secret (it travels in a header of every request).
type ServerAccount struct {
	Name       string `koanf:"name"`
	APIKey     string `koanf:"api_key"`
	SecretEnv  string `koanf:"secret_env"`
	SecretFile string `koanf:"secret_file"`
	// Permissions are the key's permissions: empty or [all] for every
	// one, else names such as SPOT_DEAL_WRITE.
	Permissions []string                   `koanf:"permissions"`
	IPs         []string                   `koanf:"ips"` // addresses the key is bound to; empty for any
	Balances    map[string]decimal.Decimal `koanf:"balances"`
}

// PermissionsAll is the permissions word for every permission.
const PermissionsAll = "all"

// AllPermissions lists every permission a simulated server's key may hold:
// the sub-account key permissions of the spec and the wallet's.
func AllPermissions() []exchange.Permission {
	return append(exchange.KeyPermissions(), exchange.PermSpotWithdrawRead, exchange.PermSpotWithdrawWrite)
}

// KeyPermissions returns the account's permissions, every one for an
// empty list or [all]. The names were checked by Validate.
func (a ServerAccount) KeyPermissions() []exchange.Permission {
	if len(a.Permissions) == 0 || len(a.Permissions) == 1 && a.Permissions[0] == PermissionsAll {
		return AllPermissions()
	}
	out := make([]exchange.Permission, len(a.Permissions))
	for i, p := range a.Permissions {
		out[i] = exchange.Permission(p)
	}
	return out
}

// Info returns the symbol's exchange rules: the market limits default to
// the limit ones, and the order types to LIMIT, MARKET and LIMIT_MAKER.
func (s ServerSymbol) Info() exchange.SymbolInfo {
	if s.MinAmountMarket.IsZero() {
		s.MinAmountMarket = s.MinAmount
	}
	if s.MaxAmountMarket.IsZero() {
		s.MaxAmountMarket = s.MaxAmount
	}
	info := exchange.SymbolInfo{Symbol: s.Symbol, Status: exchange.SymbolOnline, BaseAsset: s.Base, QuoteAsset: s.Quote,
		BaseAssetPrecision: s.BasePrecision, QuotePrecision: s.QuotePrecision, QuoteAssetPrecision: s.QuotePrecision,
		BaseCommissionPrecision: s.BasePrecision, QuoteCommissionPrecision: s.QuotePrecision, IsSpotTradingAllowed: true,
		Permissions: []string{"SPOT"}, TradeSideType: exchange.TradeSideAll, QuoteAmountPrecision: s.MinAmount,
		MaxQuoteAmount: s.MaxAmount, QuoteAmountPrecisionMarket: s.MinAmountMarket, MaxQuoteAmountMarket: s.MaxAmountMarket,
		BaseSizePrecision: s.MinQty, MakerCommission: s.MakerFee, TakerCommission: s.TakerFee}
	types := s.OrderTypes
	if len(types) == 0 {
		types = []string{"LIMIT", "MARKET", "LIMIT_MAKER"}
	}
	for _, t := range types {
		info.OrderTypes = append(info.OrderTypes, exchange.OrderType(t))
	}
	if !s.BidMultiplierUp.IsZero() || !s.AskMultiplierDown.IsZero() {
		info.Filters = []exchange.Filter{{FilterType: exchange.FilterPercentPriceBySide, BidMultiplierUp: s.BidMultiplierUp, AskMultiplierDown: s.AskMultiplierDown}}
	}
	return info
}

// validate checks the server section; symbols and accounts are required
// only where they are served (mode sim-server).
func (s Server) validate(mode string) []error {
	var errs []error
	add := func(path, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...)))
	}
	if s.Start != "" {
		if _, err := ParseTime(s.Start); err != nil {
			add("server.start", "%v", err)
		}
	}
	if s.Warmup < 0 {
		add("server.warmup", "%d must not be negative", s.Warmup)
	}
	if mode == ModeSimServer {
		if len(s.Symbols) == 0 && s.ExchangeInfo == "" {
			add("server.symbols", "at least one is required (or server.exchange_info)")
		}
		if len(s.Accounts) == 0 {
			add("server.accounts", "at least one (the main account) is required")
		}
	}
	seen := map[string]int{}
	for i, sym := range s.Symbols {
		p := fmt.Sprintf("server.symbols[%d]", i)
		for _, f := range []struct{ name, v string }{{"symbol", sym.Symbol}, {"base", sym.Base}, {"quote", sym.Quote}} {
			if f.v == "" {
				add(p+"."+f.name, "required")
			}
		}
		if j, dup := seen[sym.Symbol]; dup && sym.Symbol != "" {
			add(p+".symbol", "%q already listed by server.symbols[%d]", sym.Symbol, j)
		}
		seen[sym.Symbol] = i
		if sym.BasePrecision < 0 {
			add(p+".base_precision", "%d must not be negative", sym.BasePrecision)
		}
		if sym.QuotePrecision < 0 {
			add(p+".quote_precision", "%d must not be negative", sym.QuotePrecision)
		}
		for _, d := range []struct {
			name string
			v    decimal.Decimal
		}{{"min_amount", sym.MinAmount}, {"max_amount", sym.MaxAmount}, {"min_amount_market", sym.MinAmountMarket},
			{"max_amount_market", sym.MaxAmountMarket}, {"min_qty", sym.MinQty}, {"maker_fee", sym.MakerFee}, {"taker_fee", sym.TakerFee},
			{"bid_multiplier_up", sym.BidMultiplierUp}, {"ask_multiplier_down", sym.AskMultiplierDown}} {
			if d.v.IsNegative() {
				add(p+"."+d.name, "%s must not be negative", d.v)
			}
		}
		for j, t := range sym.OrderTypes {
			if !exchange.OrderType(t).Valid() {
				add(fmt.Sprintf("%s.order_types[%d]", p, j), "%q is not LIMIT, MARKET, LIMIT_MAKER, IMMEDIATE_OR_CANCEL or FILL_OR_KILL", t)
			}
		}
	}
	keys := map[string]int{}
	for i, a := range s.Accounts {
		errs = append(errs, a.validate(i, keys)...)
	}
	return errs
}

func (a ServerAccount) validate(i int, keys map[string]int) []error {
	var errs []error
	p := fmt.Sprintf("server.accounts[%d]", i)
	add := func(path, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...)))
	}
	if i > 0 && a.Name == "" {
		add(p+".name", "required (the first account is the master; the others are named)")
	}
	if a.APIKey != "" {
		if j, dup := keys[a.APIKey]; dup {
			add(p+".api_key", "already used by server.accounts[%d]", j)
		}
		keys[a.APIKey] = i
		if a.SecretEnv == "" && a.SecretFile == "" {
			add(p+".secret_env", "required with api_key (or secret_file): secrets are never in the file")
		}
	} else if a.SecretEnv != "" || a.SecretFile != "" {
		add(p+".api_key", "required with secret_env or secret_file")
	}
	known := map[string]bool{}
	var names []string
	for _, k := range AllPermissions() {
		known[string(k)] = true
		names = append(names, string(k))
	}
	all := len(a.Permissions) == 1 && a.Permissions[0] == PermissionsAll
	for j, perm := range a.Permissions {
		if !all && !known[perm] {
			add(fmt.Sprintf("%s.permissions[%d]", p, j), "%q is not a permission: give all, or a list of %s", perm, strings.Join(names, ", "))
		}
	}
	for j, ip := range a.IPs {
		if _, err := netip.ParseAddr(ip); err != nil {
			add(fmt.Sprintf("%s.ips[%d]", p, j), "%q is not an IP address", ip)
		}
	}
	for _, asset := range slices.Sorted(maps.Keys(a.Balances)) {
		if a.Balances[asset].IsNegative() {
			add(p+".balances."+asset, "must not be negative")
		}
	}
	return errs
}
