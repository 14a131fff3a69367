package app

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/shopspring/decimal"
	"go.yaml.in/yaml/v3"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/sim"
	"github.com/spotbot/spotbot/exchange/simserver"
	"github.com/spotbot/spotbot/marketdata"
)

// simConfig is the file `bot sim-server --config` reads (configs/sim.yaml).
type simConfig struct {
	Start string `yaml:"start"`
	// ExchangeInfo is a recorded /api/v3/exchangeInfo reply (JSON) whose
	// symbols the simulator lists, rules and all, besides Symbols.
	ExchangeInfo string       `yaml:"exchange_info"`
	Symbols      []simSymbol  `yaml:"symbols"`
	Accounts     []simAccount `yaml:"accounts"`
	Replay       simReplay    `yaml:"replay"`
	Sim          struct {
		Market      string          `yaml:"market"`
		Fill        string          `yaml:"fill"`
		SlippageBps decimal.Decimal `yaml:"slippage_bps"`
	} `yaml:"sim"`
	Limits *bool `yaml:"limits"`
}

type simSymbol struct {
	Symbol            string          `yaml:"symbol"`
	Base              string          `yaml:"base"`
	Quote             string          `yaml:"quote"`
	BasePrecision     int             `yaml:"base_precision"`
	QuotePrecision    int             `yaml:"quote_precision"`
	MinAmount         decimal.Decimal `yaml:"min_amount"`
	MaxAmount         decimal.Decimal `yaml:"max_amount"`
	MinAmountMarket   decimal.Decimal `yaml:"min_amount_market"`
	MaxAmountMarket   decimal.Decimal `yaml:"max_amount_market"`
	MinQty            decimal.Decimal `yaml:"min_qty"`
	MakerFee          decimal.Decimal `yaml:"maker_fee"`
	TakerFee          decimal.Decimal `yaml:"taker_fee"`
	OrderTypes        []string        `yaml:"order_types"`
	BidMultiplierUp   decimal.Decimal `yaml:"bid_multiplier_up"`
	AskMultiplierDown decimal.Decimal `yaml:"ask_multiplier_down"`
}

type simAccount struct {
	Name        string                     `yaml:"name"`
	APIKey      string                     `yaml:"api_key"`
	SecretEnv   string                     `yaml:"secret_env"`
	SecretFile  string                     `yaml:"secret_file"`
	Permissions any                        `yaml:"permissions"` // "all" or a list
	IPs         []string                   `yaml:"ips"`
	Balances    map[string]decimal.Decimal `yaml:"balances"`
}

type simReplay struct {
	Source   string            `yaml:"source"`
	CSV      map[string]string `yaml:"csv"`
	Interval string            `yaml:"interval"`
	Speed    float64           `yaml:"speed"`
	Warmup   int               `yaml:"warmup"`
}

// parseSimConfig decodes the YAML, refusing unknown keys.
func parseSimConfig(text []byte) (*simConfig, error) {
	var c simConfig
	dec := yaml.NewDecoder(bytes.NewReader(text))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("sim config: %w", err)
	}
	if len(c.Symbols) == 0 && c.ExchangeInfo == "" {
		return nil, fmt.Errorf("sim config: symbols: at least one is required (or exchange_info)")
	}
	if len(c.Accounts) == 0 {
		return nil, fmt.Errorf("sim config: accounts: at least one (the main account) is required")
	}
	return &c, nil
}

// symbolInfo turns a configured symbol into exchange rules.
func (s simSymbol) symbolInfo(i int) (exchange.SymbolInfo, error) {
	at := fmt.Sprintf("symbols[%d]", i)
	if s.Symbol == "" || s.Base == "" || s.Quote == "" {
		return exchange.SymbolInfo{}, fmt.Errorf("%s: symbol, base and quote are required", at)
	}
	if s.BasePrecision < 0 || s.QuotePrecision < 0 {
		return exchange.SymbolInfo{}, fmt.Errorf("%s: precisions must not be negative", at)
	}
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
	if len(s.OrderTypes) == 0 {
		s.OrderTypes = []string{"LIMIT", "MARKET", "LIMIT_MAKER"}
	}
	for _, t := range s.OrderTypes {
		ot := exchange.OrderType(t)
		if !ot.Valid() {
			return exchange.SymbolInfo{}, fmt.Errorf("%s.order_types: %q is not LIMIT, MARKET, LIMIT_MAKER, IMMEDIATE_OR_CANCEL or FILL_OR_KILL", at, t)
		}
		info.OrderTypes = append(info.OrderTypes, ot)
	}
	if !s.BidMultiplierUp.IsZero() || !s.AskMultiplierDown.IsZero() {
		info.Filters = []exchange.Filter{{FilterType: exchange.FilterPercentPriceBySide, BidMultiplierUp: s.BidMultiplierUp, AskMultiplierDown: s.AskMultiplierDown}}
	}
	return info, nil
}

// secret finds an account's API secret: the environment variable named by
// secret_env, else the first line of secret_file (mode 0600). It returns
// the secret and where it came from, for the start-up message.
func (a simAccount) secret(i int, environ []string) (string, string, error) {
	at := fmt.Sprintf("accounts[%d]", i)
	if a.SecretEnv != "" {
		for _, kv := range environ {
			if name, val, _ := strings.Cut(kv, "="); name == a.SecretEnv && val != "" {
				return val, "$" + a.SecretEnv, nil
			}
		}
	}
	if a.SecretFile == "" {
		if a.SecretEnv != "" {
			return "", "", fmt.Errorf("%s: the API secret is missing: set %s (or secret_file)", at, a.SecretEnv)
		}
		return "", "", fmt.Errorf("%s: the API secret is missing: set secret_env or secret_file", at)
	}
	st, err := os.Stat(a.SecretFile)
	if err != nil {
		return "", "", fmt.Errorf("%s.secret_file: %w", at, err)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return "", "", fmt.Errorf("%s.secret_file: %s is readable by group or others (mode %04o); run chmod 600 %s", at, a.SecretFile, perm, a.SecretFile)
	}
	b, err := os.ReadFile(a.SecretFile)
	if err != nil {
		return "", "", fmt.Errorf("%s.secret_file: %w", at, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			return l, a.SecretFile, nil
		}
	}
	return "", "", fmt.Errorf("%s.secret_file: %s holds no secret", at, a.SecretFile)
}

func (a simAccount) permissions(i int) ([]exchange.Permission, error) {
	switch p := a.Permissions.(type) {
	case nil:
		return simserver.AllPermissions(), nil
	case string:
		if p == "all" {
			return simserver.AllPermissions(), nil
		}
		return nil, fmt.Errorf("accounts[%d].permissions: %q is not \"all\" or a list", i, p)
	case []any:
		known := map[exchange.Permission]bool{}
		for _, k := range simserver.AllPermissions() {
			known[k] = true
		}
		var out []exchange.Permission
		for j, v := range p {
			s, _ := v.(string)
			if !known[exchange.Permission(s)] {
				return nil, fmt.Errorf("accounts[%d].permissions[%d]: %v is not a permission", i, j, v)
			}
			out = append(out, exchange.Permission(s))
		}
		return out, nil
	}
	return nil, fmt.Errorf("accounts[%d].permissions: want \"all\" or a list", i)
}

// replayBars loads the bars to replay and their interval.
func (r simReplay) bars(symbols []string) (map[string][]exchange.Kline, exchange.Interval, error) {
	switch r.Source {
	case "", "none":
		return nil, exchange.Interval1m, nil
	case "sample":
		out := map[string][]exchange.Kline{}
		for _, s := range symbols {
			ks, err := marketdata.Sample(s)
			if err != nil {
				return nil, "", fmt.Errorf("replay: %w", err)
			}
			out[s] = ks
		}
		return out, marketdata.SampleInterval, nil
	case "csv":
		iv, err := exchange.ParseInterval(r.Interval)
		if err != nil {
			return nil, "", fmt.Errorf("replay.interval: %w", err)
		}
		if len(r.CSV) == 0 {
			return nil, "", fmt.Errorf("replay.csv: give a file per symbol")
		}
		out := map[string][]exchange.Kline{}
		names := make([]string, 0, len(r.CSV))
		for s := range r.CSV {
			names = append(names, s)
		}
		sort.Strings(names)
		for _, s := range names {
			f, err := os.Open(r.CSV[s])
			if err != nil {
				return nil, "", fmt.Errorf("replay.csv.%s: %w", s, err)
			}
			res, err := marketdata.ReadCSV(f, marketdata.ReadOptions{Interval: iv})
			f.Close()
			if err != nil {
				return nil, "", fmt.Errorf("replay.csv.%s: %s: %w", s, r.CSV[s], err)
			}
			out[s] = res.Klines
		}
		return out, iv, nil
	}
	return nil, "", fmt.Errorf("replay.source: %q is not sample, csv or none", r.Source)
}

// simOptions builds the simulator's options.
func (c *simConfig) simOptions() (sim.Options, error) {
	var o sim.Options
	if c.ExchangeInfo != "" {
		b, err := os.ReadFile(c.ExchangeInfo)
		if err != nil {
			return o, fmt.Errorf("exchange_info: %w", err)
		}
		var info exchange.ExchangeInfo
		if err := json.Unmarshal(b, &info); err != nil {
			return o, fmt.Errorf("exchange_info: %s: %w", c.ExchangeInfo, err)
		}
		if len(info.Symbols) == 0 {
			return o, fmt.Errorf("exchange_info: %s lists no symbols", c.ExchangeInfo)
		}
		o.Symbols = append(o.Symbols, info.Symbols...)
	}
	for i, s := range c.Symbols {
		info, err := s.symbolInfo(i)
		if err != nil {
			return o, err
		}
		o.Symbols = append(o.Symbols, info)
	}
	switch c.Sim.Market {
	case "", "immediate":
		o.MarketFill = sim.Immediate
	case "next-open":
		o.MarketFill = sim.NextOpen
	default:
		return o, fmt.Errorf("sim.market: %q is not immediate or next-open", c.Sim.Market)
	}
	switch c.Sim.Fill {
	case "", "trade-through":
		o.LimitFill = sim.TradeThrough
	case "touch":
		o.LimitFill = sim.Touch
	default:
		return o, fmt.Errorf("sim.fill: %q is not trade-through or touch", c.Sim.Fill)
	}
	o.SlippageBps = c.Sim.SlippageBps
	return o, nil
}
