package rebalance_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategies/rebalance"
	"github.com/spotbot/spotbot/strategy"
	"github.com/spotbot/spotbot/strategy/strategytest"
)

const iv = exchange.Interval60m

// run starts an instance with the given params and balances, lets two
// hourly instants pass with BTC at 100 and ETH at 10, and returns the
// orders sent by the run at 02:00 (after the second instant).
func run(t *testing.T, params map[string]any, balances map[string]string) ([]string, *strategytest.Harness, *rebalance.Strategy) {
	t.Helper()
	cfg := strategy.Config{Name: rebalance.Name, ID: "rebal", Symbols: []string{"BTCUSDT", "ETHUSDT"}, Interval: "1h",
		Schedule: "0 */2 * * *", Params: params}
	s, err := rebalance.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := strategytest.New(t, strategytest.Options{Config: cfg, Strategy: s, Balances: balances})
	h.Begin()
	for i := range 2 {
		h.StepAll(strategytest.SymbolBar{Symbol: "BTCUSDT", K: strategytest.Flat(iv, i, "100")},
			strategytest.SymbolBar{Symbol: "ETHUSDT", K: strategytest.Flat(iv, i, "10")})
	}
	if len(h.Journal.Runs()) != 1 {
		t.Fatalf("%d runs, want 1", len(h.Journal.Runs()))
	}
	return h.Sent(), h, s.(*rebalance.Strategy)
}

var targets = map[string]any{"BTC": "0.4", "ETH": "0.3", "USDT": "0.3"}

func TestRebalance(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		params   map[string]any
		balances map[string]string
		want     []string
	}{
		{
			// 1000 USDT and nothing else: buy 40% BTC and 30% ETH.
			name: "from cash", params: map[string]any{"targets": targets},
			balances: map[string]string{"USDT": "1000"},
			want:     []string{"BUY MARKET BTCUSDT quote=400", "BUY MARKET ETHUSDT quote=300"},
		},
		{
			// BTC 600 of 1000 (drift +0.2): sell 200 worth, 2 BTC, before
			// buying 300 of ETH (drift −0.3).
			name: "sells before buys", params: map[string]any{"targets": targets},
			balances: map[string]string{"USDT": "400", "BTC": "6"},
			want:     []string{"SELL MARKET BTCUSDT qty=2", "BUY MARKET ETHUSDT quote=300"},
		},
		{
			// Total 700: BTC should be 140 (sell 460 worth, 4.6 BTC) and
			// ETH 490, but the sell has not filled yet and only 100 USDT is
			// free: the buy is capped at 100.
			name:     "buy capped by free quote",
			params:   map[string]any{"targets": map[string]any{"BTC": "0.2", "ETH": "0.7", "USDT": "0.1"}},
			balances: map[string]string{"USDT": "100", "BTC": "6"},
			want:     []string{"SELL MARKET BTCUSDT qty=4.6", "BUY MARKET ETHUSDT quote=100"},
		},
		{
			// BTC 430, ETH 300, USDT 270: drifts 0.03, 0 and within 0.05.
			name: "inside the band", params: map[string]any{"targets": targets},
			balances: map[string]string{"USDT": "270", "BTC": "4.3", "ETH": "30"},
		},
		{
			// Band 0: BTC 402 of 1000 should sell 2 USDT worth, below the
			// 5 USDT minimum; ETH 298 should buy 2 USDT worth, also below.
			name: "below the minimum amount", params: map[string]any{"targets": targets, "band": 0},
			balances: map[string]string{"USDT": "300", "BTC": "4.02", "ETH": "29.8"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, h, s := run(t, tt.params, tt.balances)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("sent\n%q\nwant\n%q", got, tt.want)
			}
			var planned []string
			for _, o := range s.Planned {
				planned = append(planned, strategytest.Format(o))
			}
			if !slices.Equal(planned, tt.want) {
				t.Errorf("Planned %q", planned)
			}
			if h.Stopped() != "" {
				t.Errorf("stopped: %s", h.Stopped())
			}
		})
	}
}

func TestPlanOnlySendsNothing(t *testing.T) {
	t.Parallel()
	got, h, s := run(t, map[string]any{"targets": targets, "plan_only": true}, map[string]string{"USDT": "1000"})
	if got != nil {
		t.Fatalf("plan-only sent %q", got)
	}
	var planned []string
	for _, o := range s.Planned {
		planned = append(planned, strategytest.Format(o))
	}
	if want := []string{"BUY MARKET BTCUSDT quote=400", "BUY MARKET ETHUSDT quote=300"}; !slices.Equal(planned, want) {
		t.Errorf("Planned %q, want %q", planned, want)
	}
	for _, line := range []string{
		`msg="rebalance plan" instance=rebal symbol=BTCUSDT side=BUY amount="400 quote"`,
		`msg="rebalance plan" instance=rebal symbol=ETHUSDT side=BUY amount="300 quote"`,
	} {
		if !strings.Contains(h.Logs.String(), line) {
			t.Errorf("log lacks %s:\n%s", line, h.Logs)
		}
	}
}

func TestParams(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		params map[string]any
		want   string
	}{
		{nil, "params.targets: at least one asset required"},
		{map[string]any{"targets": map[string]any{"BTC": "0.5", "USDT": "0.4"}}, "params.targets: weights sum to 0.9, not 1"},
		{map[string]any{"targets": map[string]any{"BTC": "1.5", "USDT": "-0.5"}}, "params.targets.BTC: weight 1.5 must be in [0, 1]"},
		{map[string]any{"targets": targets, "band": 1}, "params.band: must be in [0, 1)"},
		{map[string]any{"targets": targets, "quote": ""}, "params.quote: required"},
		{map[string]any{"targets": targets, "schedule": "61 * * * *"}, "params.schedule: end of range (61) above maximum (59): 61"},
		{map[string]any{"targets": targets, "plan": true}, "params.plan: unknown parameter"},
	} {
		_, err := rebalance.New(strategy.Config{Name: rebalance.Name, ID: "x", Interval: "1h", Params: tt.params})
		if err == nil || err.Error() != tt.want {
			t.Errorf("%v: error %v, want %q", tt.params, err, tt.want)
		}
	}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	s, err := rebalance.New(strategy.Config{Name: rebalance.Name, ID: "x", Params: map[string]any{"targets": targets}})
	if err != nil {
		t.Fatal(err)
	}
	if sc := s.(strategy.Scheduler).Schedules(); len(sc) != 1 || sc[0].Spec != "0 0 * * *" || sc[0].Name != "rebalance" {
		t.Errorf("schedules %+v, want one daily at midnight", sc)
	}
}
