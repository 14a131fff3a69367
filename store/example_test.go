package store_test

import (
	"context"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/store"
	"github.com/spotbot/spotbot/strategy"
)

func Example() {
	ctx := context.Background()
	st, err := store.Open(ctx, store.Memory)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	at := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	order := exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
		Quantity: decimal.RequireFromString("0.0010"), Price: decimal.RequireFromString("42000.00"), NewClientOrderID: "grid-1-a"}

	// Recorded before it is sent; the same intent again changes nothing.
	created, _ := st.RecordIntent(ctx, strategy.Intent{Instance: "grid-1", ClientOrderID: "grid-1-a", Order: order, At: at})
	again, _ := st.RecordIntent(ctx, strategy.Intent{Instance: "grid-1", ClientOrderID: "grid-1-a", Order: order, At: at})
	fmt.Println("created:", created, "again:", again)

	st.RecordAck(ctx, "grid-1-a", "1001", at)
	st.RecordFill(ctx, "grid-1", "grid-1-a", exchange.OwnTrade{Symbol: "BTCUSDT", ID: "7", OrderID: "1001",
		Price: decimal.RequireFromString("42000.00"), Qty: decimal.RequireFromString("0.0010"),
		QuoteQty: decimal.RequireFromString("42.000000"), IsBuyer: true, Time: at})
	st.RecordOrder(ctx, "grid-1", exchange.Order{Symbol: "BTCUSDT", OrderID: "1001", ClientOrderID: "grid-1-a",
		Status: exchange.StatusFilled, ExecutedQty: decimal.RequireFromString("0.0010"), UpdateTime: at})
	// A late reply with an older status does not move it back.
	st.RecordOrder(ctx, "grid-1", exchange.Order{Symbol: "BTCUSDT", OrderID: "1001", ClientOrderID: "grid-1-a",
		Status: exchange.StatusNew, UpdateTime: at})

	o, _, _ := st.Order(ctx, "grid-1-a")
	fmt.Println(o.Intent, o.Status, o.ExecutedQty.StringFixed(4), "price", o.Price.StringFixed(2))
	pos, _ := st.Positions(ctx, "grid-1")
	fmt.Println(pos[0].Symbol, "position", pos[0].Qty, "cost", pos[0].BuyQuote)
	// Output:
	// created: true again: false
	// final FILLED 0.0010 price 42000.00
	// BTCUSDT position 0.001 cost 42
}
