package sim

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
)

var wT0 = exchangetest.T0

func wdec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func testNet(name string) exchange.Network {
	return exchange.Network{NetWork: name, DepositEnable: true, WithdrawEnable: true, MinConfirm: 1}
}

// testCoins: BTC on two networks (fee, minimum, maximum; the BSC one has
// an old name and a contract), USDT with 2 decimals and an integer
// multiple, XRP needing a memo, DIS with everything disabled.
func testCoins() []Coin {
	btc := testNet("BTC")
	btc.Name, btc.WithdrawFee, btc.WithdrawMin, btc.WithdrawMax, btc.MinConfirm = "Bitcoin", wdec("0.0005"), wdec("0.001"), wdec("10"), 2
	bsc := testNet("BEP20(BSC)")
	bsc.Network, bsc.WithdrawFee, bsc.WithdrawMin, bsc.Contract = "BSC", wdec("0.00001"), wdec("0.0001"), "0xbtc"
	trc := testNet("TRC20")
	trc.WithdrawFee, trc.WithdrawMin, trc.WithdrawMax, trc.WithdrawIntegerMultiple, trc.MinConfirm = wdec("1"), wdec("10"), wdec("100000"), wdec("1"), 20
	xrp := testNet("XRP")
	xrp.WithdrawFee, xrp.WithdrawMin, xrp.SameAddress = wdec("0.25"), wdec("20"), true
	dis := testNet("DIS")
	dis.DepositEnable, dis.WithdrawEnable = false, false
	return []Coin{
		{Coin: "BTC", Name: "Bitcoin", Networks: []Network{{Network: btc}, {Network: bsc}}},
		{Coin: "USDT", Name: "Tether", Precision: 2, Networks: []Network{{Network: trc}}},
		{Coin: "XRP", Name: "Ripple", Precision: 6, Networks: []Network{{Network: xrp, MemoRequired: true}}},
		{Coin: "DIS", Name: "Disabled", Networks: []Network{{Network: dis}}},
	}
}

func walletExchange(t *testing.T) *Exchange {
	t.Helper()
	x, err := New(Options{Start: wT0, Symbols: exchangetest.Symbols()})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.SetCoins(testCoins()); err != nil {
		t.Fatal(err)
	}
	return x
}

// dumpState renders every balance (spot free and locked, futures) and the
// number of wallet records, so a refusal can be shown to change nothing.
func dumpState(x *Exchange) string {
	x.mu.Lock()
	defer x.mu.Unlock()
	w := x.wal()
	uids := make([]string, 0, len(x.accounts))
	for uid := range x.accounts {
		uids = append(uids, uid)
	}
	sort.Strings(uids)
	var b strings.Builder
	for _, uid := range uids {
		fmt.Fprintf(&b, "%s:", uid)
		for _, bl := range x.accounts[uid].snapshot() {
			fmt.Fprintf(&b, " %s=%s/%s", bl.Asset, bl.Free, bl.Locked)
		}
		u, ok := w.users[uid]
		if !ok {
			u = &walletUser{} // created lazily: no user record yet is the same state
		}
		assets := make([]string, 0, len(u.futures))
		for a := range u.futures {
			assets = append(assets, a)
		}
		sort.Strings(assets)
		for _, a := range assets {
			fmt.Fprintf(&b, " F%s=%s", a, u.futures[a])
		}
		fmt.Fprintf(&b, " addrs=%d book=%d", len(u.addrs), len(u.book))
		if u.sub != nil {
			fmt.Fprintf(&b, " sub=%s/%v/%d", u.sub.name, u.sub.frozen, len(u.sub.keys))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "deposits=%d withdrawals=%d transfers=%d internal=%d subs=%d clientTran=%d seq=%d keys=%d",
		len(w.deposits), len(w.withdrawals), len(w.transfers), len(w.internal), len(w.subs), len(w.clientTran), w.seq, w.keySeq)
	for _, wd := range w.withdrawals {
		fmt.Fprintf(&b, " w%s:%v", wd.rec.ID, wd.cancelled.IsZero())
	}
	return b.String()
}

func codeOfErr(err error) int {
	var ae *exchange.APIError
	if errors.As(err, &ae) {
		return ae.Code
	}
	return 0
}

// refusal is one request that must be refused with a code and change
// nothing.
type refusal struct {
	name string
	do   func() error
	code int
}

func checkRefusals(t *testing.T, x *Exchange, cases []refusal) {
	t.Helper()
	for _, c := range cases {
		before := dumpState(x)
		err := c.do()
		if got := codeOfErr(err); got != c.code {
			t.Errorf("%s: code %d (%v), want %d", c.name, got, err, c.code)
		}
		if after := dumpState(x); after != before {
			t.Errorf("%s: state changed by a refusal:\nbefore %s\nafter  %s", c.name, before, after)
		}
	}
}

func TestDefaultCoinsFromSymbols(t *testing.T) {
	t.Parallel()
	x, err := New(Options{Start: wT0, Symbols: exchangetest.Symbols()})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := x.Master().CoinConfig()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cfg {
		n := c.Networks[0]
		names = append(names, fmt.Sprintf("%s:%s/%s dep=%v wd=%v fee=%s conf=%d", c.Coin, n.Network, n.NetWork, n.DepositEnable, n.WithdrawEnable, n.WithdrawFee, n.MinConfirm))
	}
	want := "BTC:SIM/SIM dep=true wd=true fee=0 conf=1|TOK:SIM/SIM dep=true wd=true fee=0 conf=1|USDT:SIM/SIM dep=true wd=true fee=0 conf=1|XYZ:SIM/SIM dep=true wd=true fee=0 conf=1"
	if got := strings.Join(names, "|"); got != want {
		t.Errorf("default coins\n got %s\nwant %s", got, want)
	}
}

func TestCoinConfig(t *testing.T) {
	t.Parallel()
	x := walletExchange(t)
	in := testCoins()
	if err := x.SetCoins(in); err != nil {
		t.Fatal(err)
	}
	if n := in[0].Networks[1].Network; n.Coin != "" || n.Name != "" {
		t.Errorf("SetCoins changed the caller's config: %+v", n)
	}
	cfg, err := x.Master().CoinConfig()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cfg {
		for _, n := range c.Networks {
			got = append(got, fmt.Sprintf("%s(%s) %s/%s %s dep=%v wd=%v fee=%s min=%s max=%s mult=%s conf=%d same=%v contract=%q",
				c.Coin, c.Name, n.Network, n.NetWork, n.Name, n.DepositEnable, n.WithdrawEnable, n.WithdrawFee, n.WithdrawMin,
				n.WithdrawMax, n.WithdrawIntegerMultiple, n.MinConfirm, n.SameAddress, n.Contract))
		}
	}
	want := []string{
		`BTC(Bitcoin) BTC/BTC Bitcoin dep=true wd=true fee=0.0005 min=0.001 max=10 mult=0 conf=2 same=false contract=""`,
		`BTC(Bitcoin) BSC/BEP20(BSC) Bitcoin dep=true wd=true fee=0.00001 min=0.0001 max=0 mult=0 conf=1 same=false contract="0xbtc"`,
		`DIS(Disabled) DIS/DIS Disabled dep=false wd=false fee=0 min=0 max=0 mult=0 conf=1 same=false contract=""`,
		`USDT(Tether) TRC20/TRC20 Tether dep=true wd=true fee=1 min=10 max=100000 mult=1 conf=20 same=false contract=""`,
		`XRP(Ripple) XRP/XRP Ripple dep=true wd=true fee=0.25 min=20 max=0 mult=0 conf=1 same=true contract=""`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("coin config\n got %s\nwant %s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSetCoinsRefusesBadConfig(t *testing.T) {
	t.Parallel()
	ok := func() Coin { return Coin{Coin: "A", Networks: []Network{{Network: testNet("N")}}} }
	tests := []struct {
		name string
		edit func(*Coin)
		want string
	}{
		{"no name", func(c *Coin) { c.Coin = "" }, "sim: coin 0 has no name"},
		{"no network", func(c *Coin) { c.Networks = nil }, "sim: coin A has no network"},
		{"no netWork", func(c *Coin) { c.Networks[0].NetWork = "" }, "sim: coin A network 0 has no netWork name"},
		{"twice", func(c *Coin) { c.Networks = append(c.Networks, c.Networks[0]) }, "sim: coin A network N listed twice"},
		{"negative fee", func(c *Coin) { c.Networks[0].WithdrawFee = wdec("-1") }, "sim: coin A network N: withdrawFee -1 is negative"},
		{"max below min", func(c *Coin) { c.Networks[0].WithdrawMin, c.Networks[0].WithdrawMax = wdec("2"), wdec("1") },
			"sim: coin A network N: withdrawMax 1 below withdrawMin 2"},
		{"precision", func(c *Coin) { c.Precision = 19 }, "sim: coin A: precision 19 outside 0..18"},
		{"confirmations", func(c *Coin) { c.Networks[0].MinConfirm = -1 }, "sim: coin A network N: minConfirm -1 is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			x := walletExchange(t)
			c := ok()
			tt.edit(&c)
			err := x.SetCoins([]Coin{c})
			if err == nil || err.Error() != tt.want {
				t.Fatalf("SetCoins = %v, want %q", err, tt.want)
			}
			if cfg, _ := x.Master().CoinConfig(); len(cfg) != 4 {
				t.Errorf("a refused config replaced the coins: %d coins", len(cfg))
			}
		})
	}
	x := walletExchange(t)
	if err := x.SetCoins([]Coin{ok(), ok()}); err == nil || err.Error() != "sim: coin A listed twice" {
		t.Errorf("duplicate coin: %v", err)
	}
}

func TestDepositCreditsAndRecords(t *testing.T) {
	t.Parallel()
	x := walletExchange(t)
	uid := x.MasterUID()
	rec, err := x.Deposit(uid, "BTC", "BTC", wdec("0.5"))
	if err != nil {
		t.Fatal(err)
	}
	want := exchange.DepositRecord{Amount: wdec("0.5"), Coin: "BTC", Network: "BTC", Status: exchange.DepositSuccess,
		Address: "sim" + walletDigest("address", uid, "BTC", "BTC")[:37], TxID: "0x" + walletDigest("deposit", "1"),
		InsertTime: wT0, UnlockConfirm: "2", ConfirmTimes: "2"}
	if fmt.Sprint(rec) != fmt.Sprint(want) {
		t.Errorf("deposit\n got %+v\nwant %+v", rec, want)
	}
	if len(rec.Address) != 40 {
		t.Errorf("address %q is not 40 characters", rec.Address)
	}
	x.Advance(time.Hour)
	if _, err := x.Deposit(uid, "XRP", "", wdec("25.123456")); err != nil {
		t.Fatal(err)
	}
	if got := dumpState(x); !strings.HasPrefix(got, "1000: BTC=0.5/0 XRP=25.123456/0 addrs=2 book=0\n") {
		t.Errorf("balances after deposits: %s", got)
	}
	p := x.Master()
	hist, err := p.DepositHistory(exchange.HistoryRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 2 || hist[0].Coin != "XRP" || hist[0].Memo != uid || hist[0].AddressTag != uid || hist[1].Coin != "BTC" ||
		!hist[0].InsertTime.Equal(wT0.Add(time.Hour)) {
		t.Errorf("history newest first: %+v", hist)
	}
	only, _ := p.DepositHistory(exchange.HistoryRequest{Coin: "BTC", Status: int(exchange.DepositSuccess)})
	none, _ := p.DepositHistory(exchange.HistoryRequest{Status: int(exchange.DepositPending)})
	one, _ := p.DepositHistory(exchange.HistoryRequest{Limit: 1})
	if len(only) != 1 || only[0].Amount.String() != "0.5" || len(none) != 0 || len(one) != 1 || one[0].Coin != "XRP" {
		t.Errorf("filters: coin %+v, pending %+v, limit 1 %+v", only, none, one)
	}
	other := x.CreateAccount("other")
	if h, _ := x.As(other).DepositHistory(exchange.HistoryRequest{}); len(h) != 0 {
		t.Errorf("another account sees %d deposits", len(h))
	}
}

func TestDepositRefusals(t *testing.T) {
	t.Parallel()
	x := walletExchange(t)
	uid := x.MasterUID()
	checkRefusals(t, x, []refusal{
		{"unknown user", func() error { _, err := x.Deposit("42", "BTC", "", wdec("1")); return err }, exchange.CodeUserNotExist},
		{"empty coin", func() error { _, err := x.Deposit(uid, "", "", wdec("1")); return err }, exchange.CodeCurrencyNull},
		{"unknown coin", func() error { _, err := x.Deposit(uid, "NOPE", "", wdec("1")); return err }, exchange.CodeCurrencyNotExist},
		{"unknown network", func() error { _, err := x.Deposit(uid, "BTC", "ERC20", wdec("1")); return err }, exchange.CodeParameterError},
		{"disabled", func() error { _, err := x.Deposit(uid, "DIS", "", wdec("1")); return err }, exchange.CodeTransferDisabled},
		{"zero", func() error { _, err := x.Deposit(uid, "BTC", "", wdec("0")); return err }, exchange.CodeAmountNotPositive},
		{"negative", func() error { _, err := x.Deposit(uid, "BTC", "", wdec("-1")); return err }, exchange.CodeAmountNotPositive},
		{"decimals", func() error { _, err := x.Deposit(uid, "USDT", "", wdec("1.001")); return err }, exchange.CodeAmountTooManyDecimals},
	})
}

func TestDepositAddresses(t *testing.T) {
	t.Parallel()
	x := walletExchange(t)
	p := x.Master()
	a, err := p.GenerateDepositAddress("BTC", "BEP20(BSC)")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := p.GenerateDepositAddress("BTC", "BEP20(BSC)")
	b, _ := p.GenerateDepositAddress("BTC", "BTC")
	wantA := exchange.DepositAddress{Coin: "BTC", Network: "BEP20(BSC)", Address: "sim" + walletDigest("address", "1000", "BTC", "BEP20(BSC)")[:37]}
	if a != wantA || again != a || b.Address == a.Address || b.Network != "BTC" {
		t.Errorf("addresses: %+v, again %+v, BTC %+v", a, again, b)
	}
	all, _ := p.DepositAddresses("BTC", "")
	bsc, _ := p.DepositAddresses("BTC", "BEP20(BSC)")
	usdt, _ := p.DepositAddresses("USDT", "")
	if len(all) != 2 || all[0] != a || all[1] != b || len(bsc) != 1 || bsc[0] != a || len(usdt) != 0 {
		t.Errorf("lists: all %+v, bsc %+v, usdt %+v", all, bsc, usdt)
	}
	// XRP shares one address across coins of its network; the memo tells users apart.
	xrp, _ := p.GenerateDepositAddress("XRP", "XRP")
	if xrp.Address != "sim"+walletDigest("address", "1000", "", "XRP")[:37] || xrp.Memo != "1000" {
		t.Errorf("XRP address %+v", xrp)
	}
	checkRefusals(t, x, []refusal{
		{"empty coin", func() error { _, err := p.GenerateDepositAddress("", "BTC"); return err }, exchange.CodeCurrencyNull},
		{"unknown coin", func() error { _, err := p.GenerateDepositAddress("NOPE", "BTC"); return err }, exchange.CodeCurrencyNotExist},
		{"no network", func() error { _, err := p.GenerateDepositAddress("BTC", ""); return err }, exchange.CodeParameterNull},
		{"bad network", func() error { _, err := p.GenerateDepositAddress("BTC", "TRC20"); return err }, exchange.CodeParameterError},
		{"disabled", func() error { _, err := p.GenerateDepositAddress("DIS", "DIS"); return err }, exchange.CodeTransferDisabled},
		{"list unknown coin", func() error { _, err := p.DepositAddresses("NOPE", ""); return err }, exchange.CodeCurrencyNotExist},
		{"list bad network", func() error { _, err := p.DepositAddresses("BTC", "XRP"); return err }, exchange.CodeParameterError},
	})
}

func TestHistoryWindows(t *testing.T) {
	t.Parallel()
	x := walletExchange(t)
	uid := x.MasterUID()
	day := 24 * time.Hour
	// Deposits on days 0, 10, 95 and 99; the clock then stands at day 100.
	for _, d := range []int{0, 10, 95, 99} {
		x.SetTime(wT0.Add(time.Duration(d) * day))
		if _, err := x.Deposit(uid, "BTC", "", wdec(fmt.Sprint(d+1))); err != nil {
			t.Fatal(err)
		}
	}
	x.SetTime(wT0.Add(100 * day))
	p := x.Master()
	amounts := func(r exchange.HistoryRequest) string {
		h, err := p.DepositHistory(r)
		if err != nil {
			return fmt.Sprintf("code %d", codeOfErr(err))
		}
		var s []string
		for _, d := range h {
			s = append(s, d.Amount.String())
		}
		return strings.Join(s, ",")
	}
	at := func(d int) time.Time { return wT0.Add(time.Duration(d) * day) }
	tests := []struct {
		name string
		r    exchange.HistoryRequest
		want string
	}{
		{"default: last 7 days", exchange.HistoryRequest{}, "100,96"},
		{"end only: 7 days before it", exchange.HistoryRequest{End: at(96)}, "96"},
		{"start only: to now", exchange.HistoryRequest{Start: at(11)}, "100,96"},
		{"window", exchange.HistoryRequest{Start: at(10), End: at(95)}, "96,11"},
		{"90 days back exactly", exchange.HistoryRequest{Start: at(10), End: at(20)}, "11"},
		{"start more than 90 days back", exchange.HistoryRequest{Start: at(9), End: at(20)}, "code 33333"},
		{"end before start", exchange.HistoryRequest{Start: at(50), End: at(40)}, "code 33333"},
		{"limit above 1000", exchange.HistoryRequest{Limit: 1001}, "code 33333"},
		{"negative limit", exchange.HistoryRequest{Limit: -1}, "code 33333"},
		{"negative status", exchange.HistoryRequest{Status: -1}, "code 33333"},
		{"unknown coin", exchange.HistoryRequest{Coin: "NOPE"}, "code 10232"},
	}
	for _, tt := range tests {
		if got := amounts(tt.r); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
