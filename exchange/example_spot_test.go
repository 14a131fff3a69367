package exchange_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// exampleServer stands in for the exchange in the examples.
func exampleServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method + " " + r.URL.Path {
		case "POST /api/v3/order":
			io.WriteString(w, `{"symbol":"BTCUSDT","orderId":"1001","orderListId":-1,"price":"20000","origQty":"0.01","type":"LIMIT","side":"BUY","transactTime":1700000000000}`)
		case "DELETE /api/v3/order":
			io.WriteString(w, `{"symbol":"BTCUSDT","origClientOrderId":"my-order-1","orderId":"1001","clientOrderId":"cancel-1","price":"20000",
				"origQty":"0.01","executedQty":"0","cummulativeQuoteQty":"0","status":"CANCELED","timeInForce":"GTC","type":"LIMIT","side":"BUY"}`)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
}

// Placing a limit order. A client order id makes the order findable if the
// reply is lost: an *exchange.UnknownOutcomeError means "look it up", never
// "send it again".
func ExampleSpotService_NewOrder() {
	srv := exampleServer()
	defer srv.Close()
	c, err := exchange.New(exchange.WithBaseURL(srv.URL),
		exchange.WithCredentials(exchange.NewSecret("my-key"), exchange.NewSecret("my-secret")))
	if err != nil {
		fmt.Println(err)
		return
	}
	ack, err := c.Spot.NewOrder(context.Background(), exchange.NewOrder{
		Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
		Quantity: decimal.RequireFromString("0.01"), Price: decimal.RequireFromString("20000"),
		NewClientOrderID: "my-order-1",
	})
	if errors.Is(err, exchange.ErrUnknownOutcome) {
		fmt.Println("outcome unknown: query my-order-1")
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("accepted as order", ack.OrderID, ack.Side, ack.OrigQty, "@", ack.Price)
	// Output:
	// accepted as order 1001 BUY 0.01 @ 20000
}

// Cancelling an order by the client order id it was placed with.
func ExampleSpotService_CancelOrder() {
	srv := exampleServer()
	defer srv.Close()
	c, err := exchange.New(exchange.WithBaseURL(srv.URL),
		exchange.WithCredentials(exchange.NewSecret("my-key"), exchange.NewSecret("my-secret")))
	if err != nil {
		fmt.Println(err)
		return
	}
	o, err := c.Spot.CancelOrder(context.Background(), exchange.CancelOrderRequest{
		Symbol: "BTCUSDT", OrigClientOrderID: "my-order-1", NewClientOrderID: "cancel-1",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(o.OrigClientOrderID, o.Status, "executed", o.ExecutedQty, "of", o.OrigQty)
	// Output:
	// my-order-1 CANCELED executed 0 of 0.01
}
