package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

func TestDustHistory(t *testing.T) {
	t.Parallel()
	x := walletExchange(t)
	for sym, px := range map[string]string{"XYZUSDT": "0.5", "TOKUSDT": "2", "BTCUSDT": "20000"} {
		if err := x.SetLastPrice(sym, wdec(px)); err != nil {
			t.Fatal(err)
		}
	}
	uid := x.MasterUID()
	p := x.Master()
	for i, asset := range []string{"XYZ", "BTC", "XYZ"} {
		amt := map[string]string{"XYZ": "4", "BTC": "0.0001"}[asset]
		if err := x.Credit(uid, asset, wdec(amt)); err != nil {
			t.Fatal(err)
		}
		x.SetTime(wT0.Add(time.Duration(i+1) * time.Hour))
		if _, err := p.ConvertDust(t.Context(), []string{asset}); err != nil {
			t.Fatal(err)
		}
	}
	pg, err := p.DustHistory(exchange.DustHistoryRequest{})
	want := exchange.DustHistoryPage{TotalRecords: 3, Page: 1, TotalPages: 3, Conversions: []exchange.DustConversion{{
		TotalConvert: wdec("0.98"), TotalFee: wdec("0.02"), ConvertTime: wT0.Add(3 * time.Hour),
		Details: []exchange.DustDetail{{ID: "XYZ", Convert: wdec("0.98"), Fee: wdec("0.02"), Amount: wdec("4"), Time: wT0.Add(3 * time.Hour), Asset: "XYZ"}}}}}
	if err != nil || fmt.Sprint(pg) != fmt.Sprint(want) {
		t.Errorf("default page\n got %+v %v\nwant %+v", pg, err, want)
	}
	all, _ := p.DustHistory(exchange.DustHistoryRequest{Limit: 10})
	win, _ := p.DustHistory(exchange.DustHistoryRequest{Limit: 10, Start: wT0.Add(90 * time.Minute), End: wT0.Add(150 * time.Minute)})
	if all.TotalRecords != 3 || len(all.Conversions) != 3 || all.Conversions[1].Details[0].Asset != "BTC" ||
		all.Conversions[1].TotalConvert.String() != "0.98" || len(win.Conversions) != 1 || !win.Conversions[0].ConvertTime.Equal(wT0.Add(2*time.Hour)) {
		t.Errorf("all %+v\nwindow %+v", all, win)
	}
	other := x.CreateAccount("other")
	if h, _ := x.As(other).DustHistory(exchange.DustHistoryRequest{}); h.TotalRecords != 0 || h.Conversions == nil {
		t.Errorf("another account: %+v", h)
	}
	checkRefusals(t, x, []refusal{
		{"limit 1001", func() error { _, err := p.DustHistory(exchange.DustHistoryRequest{Limit: 1001}); return err }, exchange.CodeParameterError},
		{"page 0 after default", func() error { _, err := p.DustHistory(exchange.DustHistoryRequest{Page: -2}); return err }, exchange.CodeParameterError},
		{"inverted", func() error {
			_, err := p.DustHistory(exchange.DustHistoryRequest{Start: wT0.Add(time.Hour), End: wT0})
			return err
		}, exchange.CodeParameterError},
	})
}
