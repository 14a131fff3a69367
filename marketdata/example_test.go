package marketdata_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
)

func ExampleReadCSV() {
	in := marketdata.Header + "\n" +
		"1704067200000,42000.10,42100.00,41900.00,42050.50,12.5\n" +
		"1704070800000,42050.50,42000.00,42000.00,42150.00,8.25\n" + // high below close
		"1704074400000,42150.00,42300.00,42100.00,42250.00,3\n"
	res, err := marketdata.ReadCSV(strings.NewReader(in), marketdata.ReadOptions{Interval: exchange.Interval60m, SkipBad: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range res.Klines {
		fmt.Println(k.OpenTime.Format("2006-01-02 15:04"), k.Close, k.CloseTime.Format("15:04:05.000"))
	}
	for _, bad := range res.Skipped {
		fmt.Println("skipped", bad)
	}
	for _, g := range marketdata.Gaps(res.Klines, exchange.Interval60m) {
		fmt.Println(g)
	}
	// Output:
	// 2024-01-01 00:00 42050.5 00:59:59.999
	// 2024-01-01 02:00 42250 02:59:59.999
	// skipped line 3: high: 42000.00 is below max(open 42050.50, close 42150.00)
	// 1 bar missing at 2024-01-01T01:00:00Z
}

func ExampleSample() {
	ks, err := marketdata.Sample("BTCUSDT")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(ks), "bars from", ks[0].OpenTime.Format("2006-01-02"), "to", ks[len(ks)-1].OpenTime.Format("2006-01-02"))
	if err := marketdata.WriteCSV(os.Stdout, ks[:2]); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 4309 bars from 2020-11-17 to 2021-05-16
	// open_time_ms,open,high,low,close,volume
	// 1605571200000,16713.080000,16830.000000,16683.630000,16806.090000,2861.4
	// 1605574800000,16806.090000,16806.930000,16666.400000,16690.210000,2463.7
}
