package exchange

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

var spotCalls = map[EndpointID]func(ctx context.Context, c *Client) error{
	EpKYCStatus:   func(ctx context.Context, c *Client) error { _, err := c.Spot.KYCStatus(ctx); return err },
	EpUID:         func(ctx context.Context, c *Client) error { _, err := c.Spot.UID(ctx); return err },
	EpSelfSymbols: func(ctx context.Context, c *Client) error { _, err := c.Spot.SelfSymbols(ctx); return err },
	EpTestOrder:   func(ctx context.Context, c *Client) error { return c.Spot.TestOrder(ctx, limitOrder()) },
	EpNewOrder:    func(ctx context.Context, c *Client) error { _, err := c.Spot.NewOrder(ctx, limitOrder()); return err },
	EpBatchOrders: func(ctx context.Context, c *Client) error {
		_, err := c.Spot.BatchOrders(ctx, []NewOrder{limitOrder()})
		return err
	},
	EpCancelOrder: func(ctx context.Context, c *Client) error {
		_, err := c.Spot.CancelOrder(ctx, CancelOrderRequest{Symbol: "BTCUSDT", OrderID: "1"})
		return err
	},
	EpCancelOpenOrders: func(ctx context.Context, c *Client) error {
		_, err := c.Spot.CancelOpenOrders(ctx, "BTCUSDT")
		return err
	},
	EpQueryOrder: func(ctx context.Context, c *Client) error {
		_, err := c.Spot.QueryOrder(ctx, QueryOrderRequest{Symbol: "BTCUSDT", OrderID: "1"})
		return err
	},
	EpOpenOrders: func(ctx context.Context, c *Client) error { _, err := c.Spot.OpenOrders(ctx, "BTCUSDT"); return err },
	EpAllOrders: func(ctx context.Context, c *Client) error {
		_, err := c.Spot.AllOrders(ctx, AllOrdersRequest{Symbol: "BTCUSDT"})
		return err
	},
	EpAccount: func(ctx context.Context, c *Client) error { _, err := c.Spot.Account(ctx); return err },
	EpMyTrades: func(ctx context.Context, c *Client) error {
		_, err := c.Spot.MyTrades(ctx, MyTradesRequest{Symbol: "BTCUSDT"})
		return err
	},
	EpSetTokDeduct:   func(ctx context.Context, c *Client) error { _, err := c.Spot.SetTokDeduct(ctx, true); return err },
	EpGetTokDeduct:   func(ctx context.Context, c *Client) error { _, err := c.Spot.TokDeduct(ctx); return err },
	EpTradeFee:       func(ctx context.Context, c *Client) error { _, err := c.Spot.TradeFee(ctx, "BTCUSDT"); return err },
	EpCreateSTPGroup: func(ctx context.Context, c *Client) error { _, err := c.Spot.CreateSTPGroup(ctx, "g1"); return err },
	EpListSTPGroups:  func(ctx context.Context, c *Client) error { _, err := c.Spot.STPGroups(ctx, "g1"); return err },
	EpDeleteSTPGroup: func(ctx context.Context, c *Client) error { return c.Spot.DeleteSTPGroup(ctx, "7") },
	EpAddSTPGroupUID: func(ctx context.Context, c *Client) error {
		_, err := c.Spot.AddSTPGroupUIDs(ctx, "7", []string{"1001"})
		return err
	},
	EpRemoveSTPGroupUID: func(ctx context.Context, c *Client) error {
		return c.Spot.RemoveSTPGroupUIDs(ctx, "7", []string{"1001"})
	},
}

func limitOrder() NewOrder {
	return NewOrder{Symbol: "BTCUSDT", Side: SideBuy, Type: TypeLimit, Quantity: decimal.NewFromInt(1), Price: decimal.NewFromInt(11)}
}

func TestAccountEndpoints(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	handle(t, mux, EpKYCStatus, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, ts)
		reply(w, 200, `{"status":2}`)
	})
	handle(t, mux, EpUID, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, ts)
		reply(w, 200, `{"uid":"49910594"}`)
	})
	handle(t, mux, EpSelfSymbols, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, ts)
		reply(w, 200, `{"code":0,"data":["BTCUSDT"],"msg":"success"}`)
	})
	handle(t, mux, EpAccount, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, ts)
		reply(w, 200, `{"makerCommission":null,"takerCommission":"0.001","buyerCommission":null,"sellerCommission":null,"canTrade":"true",
			"canWithdraw":true,"canDeposit":false,"updateTime":null,"accountType":"SPOT",
			"balances":[{"asset":"BTC","free":"0.5","locked":"0.25","available":"0.5"},{"asset":"USDT","free":1000.123,"locked":"0"}],"permissions":["SPOT"]}`)
	})
	handle(t, mux, EpSetTokDeduct, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "tokDeductEnable=true&"+ts)
		reply(w, 200, `{"data":{"tokDeductEnable":"true"},"code":0,"msg":"success","timestamp":1644489390087}`)
	})
	handle(t, mux, EpGetTokDeduct, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, ts)
		reply(w, 200, `{"data":{"tokDeductEnable":false},"code":200,"msg":"success","timestamp":1644489390087}`)
	})
	handle(t, mux, EpTradeFee, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "symbol=BTCUSDT&"+ts)
		reply(w, 200, `{"data":{"makerCommission":0.002,"takerCommission":"0.002"},"code":0,"msg":"success","timestamp":1644489390087}`)
	})
	ctx := t.Context()
	if k, err := c.Spot.KYCStatus(ctx); err != nil || k != "2" {
		t.Errorf("KYCStatus = %q, %v", k, err)
	}
	if u, err := c.Spot.UID(ctx); err != nil || u != "49910594" {
		t.Errorf("UID = %q, %v", u, err)
	}
	if s, err := c.Spot.SelfSymbols(ctx); err != nil || len(s) != 1 || s[0] != "BTCUSDT" {
		t.Errorf("SelfSymbols = %v, %v", s, err)
	}
	a, err := c.Spot.Account(ctx)
	if err != nil || !a.CanTrade || a.CanDeposit || a.MakerCommission.Valid || a.TakerCommission.Decimal.String() != "0.001" ||
		a.Balance("BTC").Locked.String() != "0.25" || a.Balance("USDT").Free.String() != "1000.123" || !a.Balance("ETH").Free.IsZero() {
		t.Errorf("Account = %+v, %v", a, err)
	}
	if on, err := c.Spot.SetTokDeduct(ctx, true); err != nil || !on {
		t.Errorf("SetTokDeduct = %v, %v", on, err)
	}
	if on, err := c.Spot.TokDeduct(ctx); err != nil || on {
		t.Errorf("TokDeduct = %v, %v", on, err)
	}
	if f, err := c.Spot.TradeFee(ctx, "BTCUSDT"); err != nil || f.MakerCommission.String() != "0.002" || f.TakerCommission.String() != "0.002" {
		t.Errorf("TradeFee = %+v, %v", f, err)
	}
}

func TestNewOrderSignsTheFactsVector(t *testing.T) {
	t.Parallel()
	c, mux := setup(t, WithRecvWindow(5*time.Second))
	handle(t, mux, EpNewOrder, func(w http.ResponseWriter, r *http.Request) {
		want := "symbol=BTCUSDT&side=BUY&type=LIMIT&quantity=1&price=11&recvWindow=5000&timestamp=1644489390087" +
			"&signature=fd3e4e8543c5188531eb7279d68ae7d26a573d0fc5ab0d18eb692451654d837a"
		if r.URL.RawQuery != want {
			t.Errorf("query\n got %s\nwant %s", r.URL.RawQuery, want)
		}
		reply(w, 200, `{"symbol":"BTCUSDT","orderId":"C02__443776347957968896","orderListId":-1,"price":"11","origQty":"1","type":"LIMIT","side":"BUY","stpMode":"","transactTime":"1644489390087"}`)
	})
	ack, err := c.Spot.NewOrder(t.Context(), limitOrder())
	if err != nil || ack.OrderID != "C02__443776347957968896" || ack.OrderListID != -1 || ack.TransactTime.UnixMilli() != 1644489390087 ||
		ack.Price.String() != "11" || ack.Side != SideBuy {
		t.Fatalf("NewOrder = %+v, %v", ack, err)
	}
}

func TestOrderEndpoints(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	handle(t, mux, EpTestOrder, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "symbol=BTCUSDT&side=BUY&type=MARKET&quoteOrderQty=25.5&newClientOrderId=dca-1&stpMode=cancel_maker&"+ts)
		reply(w, 200, `{}`)
	})
	handle(t, mux, EpCancelOrder, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "symbol=BTCUSDT&origClientOrderId=grid-7&newClientOrderId=cx-1&"+ts)
		reply(w, 200, `{"symbol":"BTCUSDT","origClientOrderId":"grid-7","orderId":"88","clientOrderId":"cx-1","price":"100","origQty":"2",
			"executedQty":"0.5","cummulativeQuoteQty":"50","status":"PARTIALLY_CANCELED","timeInForce":"GTC","type":"LIMIT","side":"SELL"}`)
	})
	handle(t, mux, EpCancelOpenOrders, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "symbol=BTCUSDT&"+ts)
		reply(w, 200, `[{"symbol":"BTCUSDT","orderId":"1","orderListId":"-1","clientOrderId":"a","price":"1","origQty":"1","executedQty":"0",
			"cummulativeQuoteQty":"0","status":"CANCELED","timeInForce":null,"type":"LIMIT","side":"BUY"}]`)
	})
	handle(t, mux, EpQueryOrder, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "symbol=BTCUSDT&orderId=42&"+ts)
		reply(w, 200, `{"symbol":"BTCUSDT","orderId":42,"orderListId":-1,"clientOrderId":"s-1","price":"20000","Qty":"0.01","executedQty":"0.01",
			"cummulativeQuoteQty":"200","status":"FILLED","timeInForce":null,"type":"LIMIT","side":"BUY","stopPrice":"","icebergQty":"",
			"time":"1644489300000","updateTime":1644489390000,"isWorking":"true","stpMode":"cancel_taker","cancelReason":null,"origQuoteOrderQty":"0"}`)
	})
	handle(t, mux, EpOpenOrders, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.RawQuery == "" {
			t.Error("signed query missing")
		}
		reply(w, 200, `[{"symbol":"ETHUSDT","orderId":"9","clientOrderId":"x","price":"1500","origQty":"1","executedQty":"0","status":"NEW","type":"LIMIT_MAKER","side":"SELL","isWorking":true}]`)
	})
	handle(t, mux, EpAllOrders, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "symbol=BTCUSDT&startTime=1644400000000&endTime=1644489390000&limit=1000&"+ts)
		reply(w, 200, `[{"symbol":"BTCUSDT","orderId":"5","clientOrderId":"y","price":"0","origQty":"0","origQuoteOrderQty":"100","executedQty":"0.005",
			"cummulativeQuoteQty":"99.9","status":"FILLED","type":"MARKET","side":"BUY","stpMode":"","cancelReason":"stp_cancel"}]`)
	})
	handle(t, mux, EpMyTrades, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "symbol=BTCUSDT&orderId=42&limit=100&"+ts)
		reply(w, 200, `[{"symbol":"BTCUSDT","id":"fb56","orderId":"42","orderListId":-1,"price":"20000","qty":"0.01","quoteQty":"200",
			"commission":"0.2","commissionAsset":"USDT","time":"1644489390000","isBuyer":true,"isMaker":"false","isBestMatch":true,"isSelfTrade":"true","clientOrderId":null}]`)
	})
	ctx := t.Context()
	err := c.Spot.TestOrder(ctx, NewOrder{Symbol: "BTCUSDT", Side: SideBuy, Type: TypeMarket, QuoteOrderQty: decimal.RequireFromString("25.50"),
		NewClientOrderID: "dca-1", STPMode: STPCancelMaker})
	if err != nil {
		t.Fatal(err)
	}
	co, err := c.Spot.CancelOrder(ctx, CancelOrderRequest{Symbol: "BTCUSDT", OrigClientOrderID: "grid-7", NewClientOrderID: "cx-1"})
	if err != nil || co.Status != StatusPartiallyCanceled || co.OrigQty.String() != "2" || co.ExecutedQty.String() != "0.5" || co.OrigClientOrderID != "grid-7" {
		t.Fatalf("CancelOrder = %+v, %v", co, err)
	}
	all, err := c.Spot.CancelOpenOrders(ctx, "BTCUSDT")
	if err != nil || len(all) != 1 || all[0].OrderListID != -1 || all[0].TimeInForce != "" || all[0].Status != StatusCanceled {
		t.Fatalf("CancelOpenOrders = %+v, %v", all, err)
	}
	q, err := c.Spot.QueryOrder(ctx, QueryOrderRequest{Symbol: "BTCUSDT", OrderID: "42"})
	if err != nil || q.OrderID != "42" || q.OrigQty.String() != "0.01" || !q.IsWorking || q.Time.UnixMilli() != 1644489300000 ||
		q.STPMode != STPCancelTaker || q.CancelReason != "" || !q.StopPrice.IsZero() {
		t.Fatalf("QueryOrder = %+v, %v", q, err)
	}
	open, err := c.Spot.OpenOrders(ctx, "")
	if err != nil || len(open) != 1 || open[0].Type != TypeLimitMaker || !open[0].IsWorking {
		t.Fatalf("OpenOrders = %+v, %v", open, err)
	}
	ao, err := c.Spot.AllOrders(ctx, AllOrdersRequest{Symbol: "BTCUSDT", Start: time.UnixMilli(1644400000000), End: time.UnixMilli(1644489390000), Limit: 1000})
	if err != nil || len(ao) != 1 || ao[0].OrigQuoteOrderQty.String() != "100" || ao[0].CancelReason != CancelReasonSTP {
		t.Fatalf("AllOrders = %+v, %v", ao, err)
	}
	tr, err := c.Spot.MyTrades(ctx, MyTradesRequest{Symbol: "BTCUSDT", OrderID: "42", Limit: 100})
	if err != nil || len(tr) != 1 || tr[0].ID != "fb56" || tr[0].Commission.String() != "0.2" || !tr[0].IsBuyer || tr[0].IsMaker ||
		!tr[0].IsSelfTrade || tr[0].ClientOrderID != "" || tr[0].Time.UnixMilli() != 1644489390000 || tr[0].OrderListID != -1 {
		t.Fatalf("MyTrades = %+v, %v", tr, err)
	}
}

func TestBatchOrders(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	handle(t, mux, EpBatchOrders, func(w http.ResponseWriter, r *http.Request) {
		text := `[{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":"0.5","price":"19000.5","newClientOrderId":"g-1"},` +
			`{"symbol":"BTCUSDT","side":"SELL","type":"LIMIT","quantity":"0.5","price":"21000","newClientOrderId":"g-2","stpMode":"cancel_both"}]`
		wantSigned(t, r, "batchOrders="+Escape(text)+"&"+ts)
		if !strings.HasPrefix(r.URL.RawQuery, "batchOrders=%5B%7B%22symbol%22%3A%22BTCUSDT%22%2C") {
			t.Errorf("batchOrders not percent-encoded with uppercase hex: %.60s", r.URL.RawQuery)
		}
		reply(w, 200, `[{"symbol":"BTCUSDT","orderId":"101","orderListId":-1,"newClientOrderId":"g-1"},{"newClientOrderId":"g-2","msg":"insufficient position","code":30004}]`)
	})
	res, err := c.Spot.BatchOrders(t.Context(), []NewOrder{
		{Symbol: "BTCUSDT", Side: SideBuy, Type: TypeLimit, Quantity: decimal.RequireFromString("0.5"), Price: decimal.RequireFromString("19000.50"), NewClientOrderID: "g-1"},
		{Symbol: "BTCUSDT", Side: SideSell, Type: TypeLimit, Quantity: decimal.RequireFromString("0.5"), Price: decimal.RequireFromString("21000"), NewClientOrderID: "g-2", STPMode: STPCancelBoth},
	})
	if err != nil || len(res) != 2 || res[0].Ack == nil || res[0].Ack.OrderID != "101" || res[0].Err() != nil ||
		res[1].Ack != nil || res[1].Code != 30004 || res[1].ClientOrderID != "g-2" || !HasCode(res[1].Err(), CodeInsufficientPosition) {
		t.Fatalf("BatchOrders = %+v, %v", res, err)
	}
}

func TestSTPGroups(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	handle(t, mux, EpCreateSTPGroup, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "tradeGroupName=desk%20a&"+ts)
		reply(w, 200, `{"code":0,"msg":"success","timestamp":1,"data":{"tradeGroupName":"desk a","tradeGroupId":7,"createTime":1644489390000,"updateTime":1644489390000}}`)
	})
	handle(t, mux, EpListSTPGroups, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "tradeGroupName=desk%20a&"+ts)
		reply(w, 200, `{"code":200,"msg":"success","data":[{"tradeGroupName":"desk a","tradeGroupId":"7","tradeGroupUid":"1001,1002"}]}`)
	})
	handle(t, mux, EpDeleteSTPGroup, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "tradeGroupId=7&"+ts)
		reply(w, 200, `{"code":0,"msg":"success","data":true}`)
	})
	handle(t, mux, EpAddSTPGroupUID, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "uid=1001%2C1002&tradeGroupId=7&"+ts)
		reply(w, 200, `{"code":0,"msg":"success","data":{"tradeGroupName":"desk a","tradeGroupId":"7","tradeGroupUid":"1001,1002"}}`)
	})
	handle(t, mux, EpRemoveSTPGroupUID, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "uid=1002&tradeGroupId=7&"+ts)
		reply(w, 200, `{"code":30026,"msg":"invalid order ids","data":null}`)
	})
	ctx := t.Context()
	g, err := c.Spot.CreateSTPGroup(ctx, "desk a")
	if err != nil || g.ID != "7" || g.Name != "desk a" || g.UIDs != nil || g.CreateTime.UnixMilli() != 1644489390000 {
		t.Fatalf("CreateSTPGroup = %+v, %v", g, err)
	}
	gs, err := c.Spot.STPGroups(ctx, "desk a")
	if err != nil || len(gs) != 1 || strings.Join(gs[0].UIDs, "|") != "1001|1002" {
		t.Fatalf("STPGroups = %+v, %v", gs, err)
	}
	if err := c.Spot.DeleteSTPGroup(ctx, "7"); err != nil {
		t.Fatal(err)
	}
	g, err = c.Spot.AddSTPGroupUIDs(ctx, "7", []string{"1001", "1002"})
	if err != nil || len(g.UIDs) != 2 {
		t.Fatalf("AddSTPGroupUIDs = %+v, %v", g, err)
	}
	err = c.Spot.RemoveSTPGroupUIDs(ctx, "7", []string{"1002"})
	var api *APIError
	if !errors.As(err, &api) || api.Code != 30026 || api.Status != 200 {
		t.Fatalf("envelope with an error code: %v", err)
	}
}

// TestSpotOrderRefusals shows the request-shape rules refusing an order
// before any request is sent, each with the exact *RuleError the simulated
// server answers on the wire (simserver's TestOrderRefusalsOnTheWire).
func TestSpotOrderRefusals(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	noCall(t, mux)
	ctx := t.Context()
	d := decimal.RequireFromString
	order := func(mut func(*NewOrder)) error {
		o := limitOrder()
		mut(&o)
		_, err := c.Spot.NewOrder(ctx, o)
		return err
	}
	many := make([]NewOrder, 21)
	for i := range many {
		many[i] = limitOrder()
	}
	badItem := []NewOrder{limitOrder(), limitOrder(), limitOrder(), limitOrder()}
	badItem[3].Price = decimal.Zero
	mixed := []NewOrder{limitOrder(), limitOrder()}
	mixed[1].Symbol = "ETHUSDT"
	batch := func(orders []NewOrder) error { _, err := c.Spot.BatchOrders(ctx, orders); return err }
	tests := []struct {
		name, endpoint, rule string
		err                  error
		code                 int
		msg                  string
	}{
		{"empty symbol", "newOrder", RuleParameters, order(func(o *NewOrder) { o.Symbol = "" }), CodeParameterNull, "parameter symbol cannot be null"},
		{"no side", "newOrder", RuleParameters, order(func(o *NewOrder) { o.Side = "" }), CodeParameterNull, "parameter side cannot be null"},
		{"bad side", "newOrder", RuleParameters, order(func(o *NewOrder) { o.Side = "HOLD" }), CodeParameterError, `parameter side: "HOLD" is not BUY or SELL`},
		{"no type", "newOrder", RuleParameters, order(func(o *NewOrder) { o.Type = "" }), CodeParameterNull, "parameter type cannot be null"},
		{"bad type", "newOrder", RuleParameters, order(func(o *NewOrder) { o.Type = "STOP" }), CodeParameterError,
			`parameter type: "STOP" is not LIMIT, MARKET, LIMIT_MAKER, IMMEDIATE_OR_CANCEL or FILL_OR_KILL`},
		{"long bad type is cut", "newOrder", RuleParameters, order(func(o *NewOrder) { o.Type = OrderType(strings.Repeat("é", 30)) }), CodeParameterError,
			`parameter type: "` + strings.Repeat("é", 20) + `"... is not LIMIT, MARKET, LIMIT_MAKER, IMMEDIATE_OR_CANCEL or FILL_OR_KILL`},
		{"negative quantity", "newOrder", RuleParameters, order(func(o *NewOrder) { o.Quantity = d("-1") }), CodeParameterError, "parameter quantity: is negative"},
		{"negative price", "newOrder", RuleParameters, order(func(o *NewOrder) { o.Price = d("-1") }), CodeParameterError, "parameter price: is negative"},
		{"limit without price", "newOrder", RuleParameters, order(func(o *NewOrder) { o.Price = decimal.Zero }), CodeParameterNull,
			"parameter price: a LIMIT order needs a positive price"},
		{"IOC without quantity", "newOrder", RuleParameters, order(func(o *NewOrder) { o.Type, o.Quantity = TypeImmediateOrCancel, decimal.Zero }), CodeParameterNull,
			"parameter quantity: a IMMEDIATE_OR_CANCEL order needs a positive quantity"},
		{"limit with quote qty", "newOrder", RuleParameters, order(func(o *NewOrder) { o.QuoteOrderQty = d("5") }), CodeParameterError,
			"parameter quoteOrderQty: is for MARKET orders only"},
		{"market with both", "newOrder", RuleParameters, order(func(o *NewOrder) { o.Type, o.Price, o.QuoteOrderQty = TypeMarket, decimal.Zero, d("5") }),
			CodeParameterNull, "parameter quantity: a MARKET order needs exactly one of quantity and quoteOrderQty"},
		{"market sell by quote", "newOrder", RuleParameters, order(func(o *NewOrder) {
			o.Type, o.Side, o.Price, o.Quantity, o.QuoteOrderQty = TypeMarket, SideSell, decimal.Zero, decimal.Zero, d("5")
		}), CodeParameterError, "parameter quoteOrderQty: is for MARKET BUY orders only; a SELL uses quantity"},
		{"market with price", "newOrder", RuleParameters, order(func(o *NewOrder) { o.Type = TypeMarket }), CodeParameterError,
			"parameter price: a MARKET order takes no price"},
		{"stp mode", "newOrder", RuleSTPMode, order(func(o *NewOrder) { o.STPMode = "cancel_all" }), CodeParameterError,
			`parameter stpMode: "cancel_all" is not cancel_maker, cancel_taker or cancel_both`},
		{"client id chars", "newOrder", RuleClientOrderID, order(func(o *NewOrder) { o.NewClientOrderID = "bad id!" }), CodeParameterError,
			`parameter newClientOrderId: "bad id!" may hold only letters, digits, '-' and '_'`},
		{"client id length", "newOrder", RuleClientOrderID, order(func(o *NewOrder) { o.NewClientOrderID = strings.Repeat("a", 33) }), CodeParameterError,
			"parameter newClientOrderId: 33 characters, at most 32"},
		{"test order", "testOrder", RuleClientOrderID, func() error {
			o := limitOrder()
			o.NewClientOrderID = "a.b"
			return c.Spot.TestOrder(ctx, o)
		}(), CodeParameterError, `parameter newClientOrderId: "a.b" may hold only letters, digits, '-' and '_'`},
		{"batch size", "batchOrders", RuleBatch, batch(many), CodeParameterError, "parameter batchOrders: 21 orders; a batch holds 1 to 20"},
		{"batch empty", "batchOrders", RuleBatch, batch(nil), CodeParameterError, "parameter batchOrders: 0 orders; a batch holds 1 to 20"},
		{"batch item", "batchOrders", RuleParameters, batch(badItem), CodeParameterNull, "parameter batchOrders[3].price: a LIMIT order needs a positive price"},
		{"batch of two symbols", "batchOrders", RuleBatch, batch(mixed), CodeParameterError,
			`parameter batchOrders[1].symbol: "ETHUSDT" differs from "BTCUSDT": a batch holds one symbol`},
	}
	for _, tt := range tests {
		want := RuleError{Rule: tt.rule, APIError: APIError{Endpoint: tt.endpoint, Status: 400, Code: tt.code, Msg: tt.msg}}
		var re *RuleError
		if !errors.As(tt.err, &re) || *re != want {
			t.Errorf("%s: %#v, want %#v", tt.name, tt.err, want)
		}
	}
}

func TestSpotValidation(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	noCall(t, mux)
	ctx := t.Context()
	tests := []struct {
		name  string
		err   error
		field string
	}{
		{"cancel without id", func() error { _, err := c.Spot.CancelOrder(ctx, CancelOrderRequest{Symbol: "BTCUSDT"}); return err }(), "orderId"},
		{"cancel with a bad new client id", func() error {
			_, err := c.Spot.CancelOrder(ctx, CancelOrderRequest{Symbol: "BTCUSDT", OrderID: "1", NewClientOrderID: "bad id!"})
			return err
		}(), "newClientOrderId"},
		{"query without symbol", func() error { _, err := c.Spot.QueryOrder(ctx, QueryOrderRequest{OrderID: "1"}); return err }(), "symbol"},
		{"all orders window", func() error {
			_, err := c.Spot.AllOrders(ctx, AllOrdersRequest{Symbol: "BTCUSDT", Start: time.Unix(0, 0), End: time.Unix(8*86400, 0)})
			return err
		}(), "endTime"},
		{"my trades limit", func() error {
			_, err := c.Spot.MyTrades(ctx, MyTradesRequest{Symbol: "BTCUSDT", Limit: 101})
			return err
		}(), "limit"},
		{"stp uids", func() error { _, err := c.Spot.AddSTPGroupUIDs(ctx, "7", nil); return err }(), "uid"},
		{"stp group name", func() error { _, err := c.Spot.CreateSTPGroup(ctx, ""); return err }(), "tradeGroupName"},
	}
	for _, tt := range tests {
		var ve *ValidationError
		if !errors.As(tt.err, &ve) || ve.Field != tt.field {
			t.Errorf("%s: %v, want a validation error on %s", tt.name, tt.err, tt.field)
		}
	}
}

func TestSpotMalformedReplies(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	handle(t, mux, EpNewOrder, func(w http.ResponseWriter, r *http.Request) { reply(w, 200, `{"symbol":"BTCUSDT"}`) })
	handle(t, mux, EpQueryOrder, func(w http.ResponseWriter, r *http.Request) { reply(w, 200, `{"orderId":"1"}`) })
	handle(t, mux, EpAccount, func(w http.ResponseWriter, r *http.Request) { reply(w, 200, `{"canTrade":true}`) })
	handle(t, mux, EpTradeFee, func(w http.ResponseWriter, r *http.Request) { reply(w, 200, `{"code":0,"data":{}}`) })
	ctx := t.Context()
	errs := map[string]error{}
	_, errs["newOrder"] = c.Spot.NewOrder(ctx, limitOrder())
	_, errs["queryOrder"] = c.Spot.QueryOrder(ctx, QueryOrderRequest{Symbol: "BTCUSDT", OrderID: "1"})
	_, errs["account"] = c.Spot.Account(ctx)
	_, errs["tradeFee"] = c.Spot.TradeFee(ctx, "BTCUSDT")
	for name, err := range errs {
		var de *DecodeError
		if !errors.As(err, &de) || de.Endpoint != name {
			t.Errorf("%s: %v, want a decode error naming the endpoint", name, err)
		}
	}
}
