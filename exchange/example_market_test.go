package exchange_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/spotbot/spotbot/exchange"
)

// Reading hourly klines. The server here stands in for the exchange.
func ExampleMarketService_Klines() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `[[1640995200000,"46216.93","46731.39","46208.37","46656.13","1503.33",1640998799999,"69915657.39"],
			[1640998800000,"46656.14","46949.99","46574.06","46778.14","943.81",1641002399999,"44082381.52"]]`)
	}))
	defer srv.Close()

	c, err := exchange.New(exchange.WithBaseURL(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	iv, _ := exchange.ParseInterval("1h") // the wire calls it 60m
	ks, err := c.Market.Klines(context.Background(), exchange.KlinesRequest{Symbol: "BTCUSDT", Interval: iv, Limit: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range ks {
		fmt.Println(k.OpenTime.Format("2006-01-02 15:04"), "open", k.Open, "close", k.Close, "volume", k.Volume)
	}
	// Output:
	// 2022-01-01 00:00 open 46216.93 close 46656.13 volume 1503.33
	// 2022-01-01 01:00 open 46656.14 close 46778.14 volume 943.81
}
