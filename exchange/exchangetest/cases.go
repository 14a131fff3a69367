package exchangetest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/exchange"
)

func limitRests(t *testing.T, newH NewHarness) {
	e := setup(t, newH)
	a := e.h.Trader
	o := limit(exchange.SideBuy, "0.1", "19000")
	o.NewClientOrderID = "rest-1"
	ack := e.place(a, o)
	got := e.query(a, ack.OrderID)
	if got.Status != exchange.StatusNew || got.OrigQty.String() != "0.1" || got.Price.String() != "19000" || !got.ExecutedQty.IsZero() || got.ClientOrderID != "rest-1" {
		t.Errorf("query %+v", got)
	}
	byCID, err := a.QueryOrder(e.ctx, exchange.QueryOrderRequest{Symbol: "BTCUSDT", OrigClientOrderID: "rest-1"})
	if err != nil || byCID.OrderID != ack.OrderID {
		t.Errorf("query by client id: %+v %v", byCID, err)
	}
	e.wantBalances(a, "USDT 8100/1900 BTC 1/0", "USDT", "BTC")
	open, err := a.OpenOrders(e.ctx, "BTCUSDT")
	if err != nil || len(open) != 1 || open[0].ClientOrderID != "rest-1" {
		t.Errorf("open orders %+v %v", open, err)
	}
	c, err := a.CancelOrder(e.ctx, exchange.CancelOrderRequest{Symbol: "BTCUSDT", OrigClientOrderID: "rest-1"})
	if err != nil || c.Status != exchange.StatusCanceled || c.OrderID != ack.OrderID {
		t.Fatalf("cancel %+v %v", c, err)
	}
	e.wantBalances(a, "USDT 10000/0 BTC 1/0", "USDT", "BTC")
	_, err = a.CancelOrder(e.ctx, exchange.CancelOrderRequest{Symbol: "BTCUSDT", OrderID: ack.OrderID})
	wantCode(t, err, exchange.CodeUnknownOrder)
	_, err = a.QueryOrder(e.ctx, exchange.QueryOrderRequest{Symbol: "BTCUSDT", OrderID: "999999"})
	wantCode(t, err, exchange.CodeUnknownOrder)
	e.place(a, limit(exchange.SideSell, "0.1", "21000"))
	e.place(a, limit(exchange.SideSell, "0.1", "21500"))
	e.wantBalances(a, "USDT 10000/0 BTC 0.8/0.2", "USDT", "BTC")
	all, err := a.CancelOpenOrders(e.ctx, "BTCUSDT")
	if err != nil || len(all) != 2 || all[0].Status != exchange.StatusCanceled || all[1].Status != exchange.StatusCanceled {
		t.Errorf("cancel all %+v %v", all, err)
	}
	e.wantBalances(a, "USDT 10000/0 BTC 1/0", "USDT", "BTC")
}

func limitFills(t *testing.T, newH NewHarness) {
	e := setup(t, newH)
	a := e.h.Trader
	buy := e.place(a, limit(exchange.SideBuy, "0.1", "19000"))
	sell := e.place(a, limit(exchange.SideSell, "0.2", "21000"))
	// Touching the prices is not trading through them.
	e.must(e.h.Control.FeedKline("BTCUSDT", Bar(1, "20000", "21000", "19000", "20000")))
	if s := e.query(a, buy.OrderID).Status; s != exchange.StatusNew {
		t.Errorf("buy after a touch: %s", s)
	}
	if s := e.query(a, sell.OrderID).Status; s != exchange.StatusNew {
		t.Errorf("sell after a touch: %s", s)
	}
	e.must(e.h.Control.FeedKline("BTCUSDT", Bar(2, "20000", "21000.01", "18999.99", "19500")))
	b := e.query(a, buy.OrderID)
	if b.Status != exchange.StatusFilled || b.ExecutedQty.String() != "0.1" || b.CummulativeQuoteQty.String() != "1900" {
		t.Errorf("buy %+v", b)
	}
	// 0.1 BTC at 19000 (maker 0.1%: 0.0001 BTC); 0.2 BTC sold at 21000
	// (4200 USDT, fee 4.2 USDT).
	e.wantBalances(a, "USDT 12295.8/0 BTC 0.8999/0", "USDT", "BTC")
	tr := e.trades(a, buy.OrderID)
	if len(tr) != 1 || tr[0].Price.String() != "19000" || tr[0].Qty.String() != "0.1" || tr[0].Commission.String() != "0.0001" ||
		tr[0].CommissionAsset != "BTC" || !tr[0].IsMaker || !tr[0].IsBuyer {
		t.Errorf("buy trades %+v", tr)
	}
	st := e.trades(a, sell.OrderID)
	if len(st) != 1 || st[0].QuoteQty.String() != "4200" || st[0].Commission.String() != "4.2" || st[0].CommissionAsset != "USDT" {
		t.Errorf("sell trades %+v", st)
	}
}

func marketOrders(t *testing.T, newH NewHarness) {
	e := setup(t, newH)
	a := e.h.Trader
	byQuote := e.place(a, exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeMarket, QuoteOrderQty: d("100")})
	o := e.query(a, byQuote.OrderID)
	if o.Status != exchange.StatusFilled || o.ExecutedQty.String() != "0.005" || o.CummulativeQuoteQty.String() != "100" {
		t.Errorf("market buy by quote %+v", o)
	}
	// 0.005 BTC for 100 USDT, taker 0.2%: 0.00001 BTC.
	e.wantBalances(a, "USDT 9900/0 BTC 1.00499/0", "USDT", "BTC")
	e.place(a, exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideSell, Type: exchange.TypeMarket, Quantity: d("0.01")})
	e.wantBalances(a, "USDT 10099.6/0 BTC 0.99499/0", "USDT", "BTC")
	e.place(a, exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeMarket, Quantity: d("0.002")})
	e.wantBalances(a, "USDT 10059.6/0 BTC 0.996986/0", "USDT", "BTC")
}

func iocFok(t *testing.T, newH NewHarness) {
	e := setup(t, newH)
	a := e.h.Trader
	kind := func(typ exchange.OrderType, qty, price string) exchange.NewOrder {
		return exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: typ, Quantity: d(qty), Price: d(price)}
	}
	miss := e.query(a, e.place(a, kind(exchange.TypeImmediateOrCancel, "0.1", "19500")).OrderID)
	if miss.Status != exchange.StatusCanceled || !miss.ExecutedQty.IsZero() {
		t.Errorf("IOC below the market: %+v", miss)
	}
	e.wantBalances(a, "USDT 10000/0 BTC 1/0", "USDT", "BTC")
	hit := e.query(a, e.place(a, kind(exchange.TypeImmediateOrCancel, "0.1", "20100")).OrderID)
	if hit.Status != exchange.StatusFilled || hit.CummulativeQuoteQty.String() != "2000" {
		t.Errorf("IOC crossing: %+v", hit)
	}
	e.wantBalances(a, "USDT 8000/0 BTC 1.0998/0", "USDT", "BTC")
	kill := e.query(a, e.place(a, kind(exchange.TypeFillOrKill, "0.1", "19500")).OrderID)
	if kill.Status != exchange.StatusCanceled || !kill.ExecutedQty.IsZero() {
		t.Errorf("FOK that cannot fill: %+v", kill)
	}
	fill := e.query(a, e.place(a, kind(exchange.TypeFillOrKill, "0.05", "20000")).OrderID)
	if fill.Status != exchange.StatusFilled || fill.ExecutedQty.String() != "0.05" {
		t.Errorf("FOK that fills: %+v", fill)
	}
	e.wantBalances(a, "USDT 7000/0 BTC 1.1497/0", "USDT", "BTC")
}

func internalMatch(t *testing.T, newH NewHarness) {
	e := setup(t, newH)
	a, b := e.h.Trader, e.h.Other
	ask := e.place(b, limit(exchange.SideSell, "0.1", "20500"))
	e.wantBalances(b, "USDT 10000/0 BTC 0.9/0.1", "USDT", "BTC")
	bid := e.place(a, limit(exchange.SideBuy, "0.1", "20500"))
	e.wantBalances(a, "USDT 7950/0 BTC 1.0998/0", "USDT", "BTC")
	e.wantBalances(b, "USDT 12047.95/0 BTC 0.9/0", "USDT", "BTC")
	ta, tb := e.trades(a, bid.OrderID), e.trades(b, ask.OrderID)
	if len(ta) != 1 || ta[0].IsMaker || ta[0].IsSelfTrade || ta[0].Price.String() != "20500" || ta[0].Commission.String() != "0.0002" {
		t.Errorf("taker trades %+v", ta)
	}
	if len(tb) != 1 || !tb[0].IsMaker || tb[0].Commission.String() != "2.05" || tb[0].CommissionAsset != "USDT" {
		t.Errorf("maker trades %+v", tb)
	}
}

func selfTrade(t *testing.T, newH NewHarness) {
	e := setup(t, newH)
	a, b := e.h.Trader, e.h.Other
	e.must(e.h.Control.GroupBoth())
	stp := func(price string, mode exchange.STPMode) exchange.NewOrder {
		o := limit(exchange.SideBuy, "0.1", price)
		o.STPMode = mode
		return o
	}
	b1 := e.place(b, limit(exchange.SideSell, "0.1", "20500"))
	taker := e.query(a, e.place(a, stp("20500", exchange.STPCancelTaker)).OrderID)
	if taker.Status != exchange.StatusCanceled || taker.CancelReason != exchange.CancelReasonSTP {
		t.Errorf("cancel_taker: taker %+v", taker)
	}
	if s := e.query(b, b1.OrderID).Status; s != exchange.StatusNew {
		t.Errorf("cancel_taker: maker %s", s)
	}
	e.wantBalances(a, "USDT 10000/0 BTC 1/0", "USDT", "BTC")
	// cancel_maker: the maker goes, the taker carries on to the market.
	taker = e.query(a, e.place(a, stp("20500", exchange.STPCancelMaker)).OrderID)
	maker := e.query(b, b1.OrderID)
	if maker.Status != exchange.StatusCanceled || maker.CancelReason != exchange.CancelReasonSTP || taker.Status != exchange.StatusFilled ||
		taker.CummulativeQuoteQty.String() != "2000" {
		t.Errorf("cancel_maker: maker %+v taker %+v", maker, taker)
	}
	b2 := e.place(b, limit(exchange.SideSell, "0.1", "20600"))
	taker = e.query(a, e.place(a, stp("20600", exchange.STPCancelBoth)).OrderID)
	maker = e.query(b, b2.OrderID)
	if maker.CancelReason != exchange.CancelReasonSTP || taker.CancelReason != exchange.CancelReasonSTP ||
		maker.Status != exchange.StatusCanceled || taker.Status != exchange.StatusCanceled {
		t.Errorf("cancel_both: maker %+v taker %+v", maker, taker)
	}
	// No stpMode: the self-trade happens and is flagged.
	b3 := e.place(b, limit(exchange.SideSell, "0.1", "20700"))
	bid := e.place(a, stp("20700", exchange.STPNone))
	ta, tb := e.trades(a, bid.OrderID), e.trades(b, b3.OrderID)
	if len(ta) != 1 || !ta[0].IsSelfTrade || len(tb) != 1 || !tb[0].IsSelfTrade {
		t.Errorf("self-trade not flagged: %+v %+v", ta, tb)
	}
	e.wantBalances(a, "USDT 5930/0 BTC 1.1996/0", "USDT", "BTC")
	e.wantBalances(b, "USDT 12067.93/0 BTC 0.9/0", "USDT", "BTC")
}

func tokenFees(t *testing.T, newH NewHarness) {
	e := setup(t, newH)
	a := e.h.Trader
	e.must(e.h.Control.SetTokDeduct(true))
	mkt := exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeMarket, Quantity: d("0.01")}
	e.must(e.h.Control.Credit(0, "TOK", d("0.1")))
	// The token balance (0.1) cannot cover 0.16 TOK: the fee is in BTC.
	e.place(a, mkt)
	e.wantBalances(a, "USDT 9800/0 BTC 1.00998/0 TOK 0.1/0", "USDT", "BTC", "TOK")
	e.must(e.h.Control.Credit(0, "TOK", d("10")))
	ack := e.place(a, mkt)
	// 200 USDT at taker 0.2% = 0.4 USDT, less 20%, at 2 USDT per TOK.
	e.wantBalances(a, "USDT 9600/0 BTC 1.01998/0 TOK 9.94/0", "USDT", "BTC", "TOK")
	tr := e.trades(a, ack.OrderID)
	if len(tr) != 1 || tr[0].Commission.String() != "0.16" || tr[0].CommissionAsset != "TOK" {
		t.Errorf("token fee trade %+v", tr)
	}
}

func rejections(t *testing.T, newH NewHarness) {
	e := setup(t, newH)
	a := e.h.Trader
	tests := []struct {
		name  string
		order exchange.NewOrder
		code  int
	}{
		{"unknown symbol", exchange.NewOrder{Symbol: "NOPEUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit, Quantity: d("1"), Price: d("1")}, exchange.CodeBadSymbol},
		{"below minimum", limit(exchange.SideBuy, "0.0002", "20000"), exchange.CodeBelowMinVolume},
		{"above market maximum", exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeMarket, QuoteOrderQty: d("100001")}, exchange.CodeAboveMaxVolume},
		{"too many decimals", limit(exchange.SideBuy, "0.1", "20000.001"), exchange.CodeParameterError},
		{"insufficient balance", limit(exchange.SideBuy, "1", "20000"), exchange.CodeInsufficientPosition},
		{"insufficient base", limit(exchange.SideSell, "1.5", "20000"), exchange.CodeInsufficientPosition},
		{"percent price", limit(exchange.SideBuy, "0.1", "22001"), exchange.CodeParameterError},
		{"maker would take", exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimitMaker, Quantity: d("0.1"), Price: d("20000")}, exchange.CodeOrderTypeNotAllowed},
	}
	for _, tt := range tests {
		_, err := a.PlaceOrder(e.ctx, tt.order)
		if err == nil {
			t.Errorf("%s: accepted", tt.name)
			continue
		}
		wantCode(t, err, tt.code)
		e.wantBalances(a, "USDT 10000/0 BTC 1/0", "USDT", "BTC")
	}
	err := a.TestOrder(e.ctx, limit(exchange.SideBuy, "1", "20000"))
	wantCode(t, err, exchange.CodeInsufficientPosition)
	if err := a.TestOrder(e.ctx, limit(exchange.SideBuy, "0.1", "19000")); err != nil {
		t.Errorf("valid test order: %v", err)
	}
	e.must(e.h.Control.SetSymbolStatus("BTCUSDT", exchange.SymbolPaused))
	_, err = a.PlaceOrder(e.ctx, limit(exchange.SideBuy, "0.1", "19000"))
	wantCode(t, err, exchange.CodeTradingSuspended)
	open, err := a.OpenOrders(e.ctx, "")
	if err != nil || len(open) != 0 {
		t.Errorf("open orders after refusals: %+v %v", open, err)
	}
	e.wantBalances(a, "USDT 10000/0 BTC 1/0", "USDT", "BTC")
}

func dust(t *testing.T, newH NewHarness) {
	e := setup(t, newH)
	a := e.h.Trader
	e.must(e.h.Control.Credit(0, "XYZ", d("4")))
	cands, err := a.DustCandidates(e.ctx)
	e.must(err)
	byAsset := map[string]exchange.DustCandidate{}
	for _, c := range cands {
		byAsset[c.Asset] = c
	}
	x := byAsset["XYZ"]
	// 4 XYZ at 0.5 = 2 USDT, less the 2% fee, at 2 USDT per TOK.
	if x.Code != "" || x.ConvertUsdt.String() != "2" || x.ConvertTok.String() != "0.98" {
		t.Errorf("XYZ candidate %+v", x)
	}
	if byAsset["BTC"].Code == "" {
		t.Errorf("BTC (worth 20000) offered as dust: %+v", byAsset["BTC"])
	}
	res, err := a.ConvertDust(e.ctx, []string{"XYZ", "BTC"})
	e.must(err)
	if len(res.SuccessList) != 1 || res.SuccessList[0] != "XYZ" || len(res.FailedList) != 1 || res.FailedList[0].Asset != "BTC" ||
		res.TotalConvert.String() != "0.98" || res.ConvertFee.String() != "0.02" {
		t.Errorf("conversion %+v", res)
	}
	e.wantBalances(a, "XYZ 0/0 TOK 0.98/0 BTC 1/0", "XYZ", "TOK", "BTC")
}

// Refusal is a malformed order, or batch, and the exact refusal every
// exchange.Trader gives it: HTTP status 400 with this code and message, from
// exchange.NewOrder.Validate or exchange.ValidateBatch. The simulated
// server answers the same on the wire, and the risk gate refuses the single
// orders with the same error.
type Refusal struct {
	Name    string
	Order   exchange.NewOrder   // the order, unless IsBatch
	IsBatch bool                // Batch is the request
	Batch   []exchange.NewOrder // the batch (may be empty)
	Code    int
	Msg     string
	// WireAccepts marks a refusal of direct callers that the server's wire
	// does not make: its parameter parsing drops what the rule refuses (a
	// MARKET order's price, which widely used clients send beside
	// quoteOrderQty) before validating, so the order passes there.
	WireAccepts bool
}

// Refusals returns the request-shape refusals of the suite, on the suite's
// symbols.
func Refusals() []Refusal {
	ok := limit(exchange.SideBuy, "0.01", "19000")
	with := func(mut func(*exchange.NewOrder)) exchange.NewOrder {
		o := ok
		mut(&o)
		return o
	}
	batch := func(n int, mut func(i int, o *exchange.NewOrder)) []exchange.NewOrder {
		b := make([]exchange.NewOrder, n)
		for i := range b {
			b[i] = ok
			if mut != nil {
				mut(i, &b[i])
			}
		}
		return b
	}
	const (
		perr  = exchange.CodeParameterError
		pnull = exchange.CodeParameterNull
	)
	long := strings.Repeat("a", exchange.MaxClientOrderIDLen+1)
	return []Refusal{
		{Name: "client id with a space and a bang", Order: with(func(o *exchange.NewOrder) { o.NewClientOrderID = "bad id!" }),
			Code: perr, Msg: `parameter newClientOrderId: "bad id!" may hold only letters, digits, '-' and '_'`},
		{Name: "client id of 33 characters", Order: with(func(o *exchange.NewOrder) { o.NewClientOrderID = long }),
			Code: perr, Msg: "parameter newClientOrderId: 33 characters, at most 32"},
		{Name: "non-ASCII client id", Order: with(func(o *exchange.NewOrder) { o.NewClientOrderID = "été" }),
			Code: perr, Msg: `parameter newClientOrderId: "été" may hold only letters, digits, '-' and '_'`},
		{Name: "malformed order of an unknown symbol", Order: with(func(o *exchange.NewOrder) { o.Symbol, o.NewClientOrderID = "NOPEUSDT", "a.b" }),
			Code: perr, Msg: `parameter newClientOrderId: "a.b" may hold only letters, digits, '-' and '_'`},
		{Name: "no symbol", Order: with(func(o *exchange.NewOrder) { o.Symbol = "" }), Code: pnull, Msg: "parameter symbol cannot be null"},
		{Name: "no side", Order: with(func(o *exchange.NewOrder) { o.Side = "" }), Code: pnull, Msg: "parameter side cannot be null"},
		{Name: "side in lower case", Order: with(func(o *exchange.NewOrder) { o.Side = "buy" }), Code: perr, Msg: `parameter side: "buy" is not BUY or SELL`},
		{Name: "no type", Order: with(func(o *exchange.NewOrder) { o.Type = "" }), Code: pnull, Msg: "parameter type cannot be null"},
		{Name: "unknown type", Order: with(func(o *exchange.NewOrder) { o.Type = "STOP_LOSS" }), Code: perr,
			Msg: `parameter type: "STOP_LOSS" is not LIMIT, MARKET, LIMIT_MAKER, IMMEDIATE_OR_CANCEL or FILL_OR_KILL`},
		{Name: "negative quantity", Order: with(func(o *exchange.NewOrder) { o.Quantity = d("-0.01") }), Code: perr, Msg: "parameter quantity: is negative"},
		{Name: "negative price", Order: with(func(o *exchange.NewOrder) { o.Price = d("-1") }), Code: perr, Msg: "parameter price: is negative"},
		{Name: "LIMIT without a price", Order: with(func(o *exchange.NewOrder) { o.Price = d("0") }), Code: pnull,
			Msg: "parameter price: a LIMIT order needs a positive price"},
		{Name: "LIMIT_MAKER without a quantity", Order: with(func(o *exchange.NewOrder) { o.Type, o.Quantity = exchange.TypeLimitMaker, d("0") }), Code: pnull,
			Msg: "parameter quantity: a LIMIT_MAKER order needs a positive quantity"},
		{Name: "LIMIT with quoteOrderQty", Order: with(func(o *exchange.NewOrder) { o.QuoteOrderQty = d("100") }), Code: perr,
			Msg: "parameter quoteOrderQty: is for MARKET orders only"},
		{Name: "MARKET with quantity and quoteOrderQty", Order: exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeMarket,
			Quantity: d("0.01"), QuoteOrderQty: d("100")}, Code: pnull, Msg: "parameter quantity: a MARKET order needs exactly one of quantity and quoteOrderQty"},
		{Name: "MARKET with neither size", Order: exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeMarket},
			Code: pnull, Msg: "parameter quantity: a MARKET order needs exactly one of quantity and quoteOrderQty"},
		{Name: "MARKET SELL by quoteOrderQty", Order: exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideSell, Type: exchange.TypeMarket,
			QuoteOrderQty: d("100")}, Code: perr, Msg: "parameter quoteOrderQty: is for MARKET BUY orders only; a SELL uses quantity"},
		{Name: "MARKET with a price", Order: exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideSell, Type: exchange.TypeMarket,
			Quantity: d("0.01"), Price: d("19000")}, Code: perr, Msg: "parameter price: a MARKET order takes no price", WireAccepts: true},
		{Name: "unknown stpMode", Order: with(func(o *exchange.NewOrder) { o.STPMode = "cancel_all" }), Code: perr,
			Msg: `parameter stpMode: "cancel_all" is not cancel_maker, cancel_taker or cancel_both`},
		{Name: "batch of 21", IsBatch: true, Batch: batch(exchange.MaxBatchOrders+1, nil), Code: perr,
			Msg: "parameter batchOrders: 21 orders; a batch holds 1 to 20"},
		{Name: "empty batch", IsBatch: true, Batch: []exchange.NewOrder{}, Code: perr, Msg: "parameter batchOrders: 0 orders; a batch holds 1 to 20"},
		{Name: "batch of two symbols", IsBatch: true, Batch: batch(3, func(i int, o *exchange.NewOrder) {
			if i == 1 {
				o.Symbol, o.Quantity, o.Price = "XYZUSDT", d("20"), d("0.4")
			}
		}), Code: perr, Msg: `parameter batchOrders[1].symbol: "XYZUSDT" differs from "BTCUSDT": a batch holds one symbol`},
		{Name: "batch item without a price", IsBatch: true, Batch: batch(3, func(i int, o *exchange.NewOrder) {
			if i == 2 {
				o.Price = d("0")
			}
		}), Code: pnull, Msg: "parameter batchOrders[2].price: a LIMIT order needs a positive price"},
		{Name: "batch item with a bad client id", IsBatch: true, Batch: batch(2, func(i int, o *exchange.NewOrder) {
			o.NewClientOrderID = []string{"good-1", "bad id!"}[i]
		}), Code: perr, Msg: `parameter batchOrders[1].newClientOrderId: "bad id!" may hold only letters, digits, '-' and '_'`},
	}
}

// WantRefusal reports how err differs from the refusal r: nil when err is,
// or wraps, an *exchange.APIError of status 400 with r's code and message.
func WantRefusal(err error, r Refusal) error {
	var a *exchange.APIError
	switch {
	case err == nil:
		return fmt.Errorf("%s: accepted, want code %d %q", r.Name, r.Code, r.Msg)
	case !errors.As(err, &a):
		return fmt.Errorf("%s: %v, want an *exchange.APIError", r.Name, err)
	case a.Status != 400 || a.Code != r.Code || a.Msg != r.Msg:
		return fmt.Errorf("%s: HTTP %d code %d %q, want HTTP 400 code %d %q", r.Name, a.Status, a.Code, a.Msg, r.Code, r.Msg)
	}
	return nil
}

// refusals sends every Refusal (a single order both placed and tested) and
// expects the exact refusal, nothing booked and nothing locked; then shows
// the client order id rule's edges accepted: an empty id (the exchange
// assigns a valid one) and one of 32 characters of every allowed kind.
func refusals(t *testing.T, newH NewHarness) {
	e := setup(t, newH)
	a := e.h.Trader
	for _, r := range Refusals() {
		var errs []error
		if r.IsBatch {
			_, err := a.PlaceBatch(e.ctx, r.Batch)
			errs = append(errs, err)
		} else {
			_, err := a.PlaceOrder(e.ctx, r.Order)
			errs = append(errs, err, a.TestOrder(e.ctx, r.Order))
		}
		for _, err := range errs {
			if err := WantRefusal(err, r); err != nil {
				t.Error(err)
			}
		}
	}
	open, err := a.OpenOrders(e.ctx, "")
	if err != nil || len(open) != 0 {
		t.Errorf("open orders after refusals: %+v %v", open, err)
	}
	e.wantBalances(a, "USDT 10000/0 BTC 1/0", "USDT", "BTC")

	// The acknowledgement carries no client order id on the wire (spec
	// 4.3): the order's query does.
	assigned := e.query(a, e.place(a, limit(exchange.SideBuy, "0.01", "19000")).OrderID)
	if assigned.ClientOrderID == "" || !exchange.ValidClientOrderID(assigned.ClientOrderID) {
		t.Errorf("assigned client order id %q", assigned.ClientOrderID)
	}
	const longest = "Aa0-Zz9_Aa0-Zz9_Aa0-Zz9_Aa0-Zz9_"
	o := limit(exchange.SideBuy, "0.01", "19000")
	o.NewClientOrderID = longest
	ack := e.place(a, o)
	got, err := a.QueryOrder(e.ctx, exchange.QueryOrderRequest{Symbol: "BTCUSDT", OrigClientOrderID: longest})
	if err != nil || got.ClientOrderID != longest || got.OrderID != ack.OrderID {
		t.Errorf("query by the longest client order id: %+v %v", got, err)
	}
	e.wantBalances(a, "USDT 9620/380", "USDT")
}
