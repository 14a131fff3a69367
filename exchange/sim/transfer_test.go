package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

func firstLine(x *Exchange) string { return strings.SplitN(dumpState(x), "\n", 2)[0] }

func TestUniversalTransfer(t *testing.T) {
	t.Parallel()
	x := fundedWallet(t)
	p := x.Master()
	id, err := p.UniversalTransfer(exchange.TransferRequest{FromAccountType: exchange.AccountSpot, ToAccountType: exchange.AccountFutures,
		Asset: "USDT", Amount: wdec("250.5")})
	if err != nil || id != "1" {
		t.Fatalf("to futures: %q %v", id, err)
	}
	x.Advance(time.Minute)
	back, err := p.UniversalTransfer(exchange.TransferRequest{FromAccountType: exchange.AccountFutures, ToAccountType: exchange.AccountSpot,
		Asset: "USDT", Amount: wdec("50")})
	if err != nil || back != "2" {
		t.Fatalf("to spot: %q %v", back, err)
	}
	if got := firstLine(x); got != "1000: BTC=2/0 USDT=799.5/0 XRP=100/0 FUSDT=200.5 addrs=0 book=0" {
		t.Errorf("balances: %s", got)
	}
	if f := x.FuturesBalance(x.MasterUID(), "USDT"); f.String() != "200.5" {
		t.Errorf("FuturesBalance = %s", f)
	}
	rec, err := p.TransferByID("1")
	want := exchange.TransferRecord{TranID: "1", FromAccountType: exchange.AccountSpot, ToAccountType: exchange.AccountFutures,
		Asset: "USDT", Amount: wdec("250.5"), Status: "SUCCESS", Timestamp: wT0}
	if err != nil || fmt.Sprint(rec) != fmt.Sprint(want) {
		t.Errorf("by id: %+v %v", rec, err)
	}
	pg, err := p.TransferHistory(exchange.TransferHistoryRequest{From: exchange.AccountFutures, To: exchange.AccountSpot})
	if err != nil || pg.Total != 1 || len(pg.Rows) != 1 || pg.Rows[0].TranID != "2" || !pg.Rows[0].Timestamp.Equal(wT0.Add(time.Minute)) {
		t.Errorf("history futures→spot: %+v %v", pg, err)
	}
	checkRefusals(t, x, []refusal{
		{"same wallet", func() error {
			_, err := p.UniversalTransfer(exchange.TransferRequest{FromAccountType: "SPOT", ToAccountType: "SPOT", Asset: "USDT", Amount: wdec("1")})
			return err
		}, exchange.CodeTransferAccount},
		{"bad type", func() error {
			_, err := p.UniversalTransfer(exchange.TransferRequest{FromAccountType: "MARGIN", ToAccountType: "SPOT", Asset: "USDT", Amount: wdec("1")})
			return err
		}, exchange.CodeParameterError},
		{"empty asset", func() error {
			_, err := p.UniversalTransfer(exchange.TransferRequest{FromAccountType: "SPOT", ToAccountType: "FUTURES", Amount: wdec("1")})
			return err
		}, exchange.CodeCurrencyNull},
		{"unknown asset", func() error {
			_, err := p.UniversalTransfer(exchange.TransferRequest{FromAccountType: "SPOT", ToAccountType: "FUTURES", Asset: "NOPE", Amount: wdec("1")})
			return err
		}, exchange.CodeCurrencyNotExist},
		{"zero", func() error {
			_, err := p.UniversalTransfer(exchange.TransferRequest{FromAccountType: "SPOT", ToAccountType: "FUTURES", Asset: "USDT", Amount: wdec("0")})
			return err
		}, exchange.CodeAmountNotPositive},
		{"too many decimals", func() error {
			_, err := p.UniversalTransfer(exchange.TransferRequest{FromAccountType: "SPOT", ToAccountType: "FUTURES", Asset: "USDT", Amount: wdec("1.005")})
			return err
		}, exchange.CodeAmountTooManyDecimals},
		{"above spot balance", func() error {
			_, err := p.UniversalTransfer(exchange.TransferRequest{FromAccountType: "SPOT", ToAccountType: "FUTURES", Asset: "USDT", Amount: wdec("799.51")})
			return err
		}, exchange.CodeInsufficientBalance},
		{"above futures balance", func() error {
			_, err := p.UniversalTransfer(exchange.TransferRequest{FromAccountType: "FUTURES", ToAccountType: "SPOT", Asset: "USDT", Amount: wdec("200.51")})
			return err
		}, exchange.CodeInsufficientBalance},
		{"unknown id", func() error { _, err := p.TransferByID("99"); return err }, exchange.CodeRecordNotExist},
		{"empty id", func() error { _, err := p.TransferByID(""); return err }, exchange.CodeParameterNull},
		{"history without types", func() error { _, err := p.TransferHistory(exchange.TransferHistoryRequest{}); return err }, exchange.CodeParameterError},
	})
	other := x.CreateAccount("other")
	if _, err := x.As(other).TransferByID("1"); codeOfErr(err) != exchange.CodeRecordNotExist {
		t.Errorf("another account reads transfer 1: %v", err)
	}
}

func TestTransferHistoryWindowAndPaging(t *testing.T) {
	t.Parallel()
	x := fundedWallet(t)
	p := x.Master()
	day := 24 * time.Hour
	at := func(d int) time.Time { return wT0.Add(time.Duration(d) * day) }
	// 12 transfers on day 200 (one a minute) and one each on days 0 and 190.
	for _, d := range []int{0, 190} {
		x.SetTime(at(d))
		if _, err := p.UniversalTransfer(exchange.TransferRequest{FromAccountType: "SPOT", ToAccountType: "FUTURES", Asset: "USDT", Amount: wdec("1")}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 12; i++ {
		x.SetTime(at(200).Add(time.Duration(i) * time.Minute))
		if _, err := p.UniversalTransfer(exchange.TransferRequest{FromAccountType: "SPOT", ToAccountType: "FUTURES", Asset: "USDT", Amount: wdec("1")}); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(r exchange.TransferHistoryRequest) string {
		r.From, r.To = exchange.AccountSpot, exchange.AccountFutures
		pg, err := p.TransferHistory(r)
		if err != nil {
			return fmt.Sprintf("code %d", codeOfErr(err))
		}
		var s []string
		for _, row := range pg.Rows {
			s = append(s, row.TranID)
		}
		return fmt.Sprintf("%d: %s", pg.Total, strings.Join(s, ","))
	}
	tests := []struct {
		name string
		r    exchange.TransferHistoryRequest
		want string
	}{
		{"default: last 7 days, 10 a page", exchange.TransferHistoryRequest{}, "12: 14,13,12,11,10,9,8,7,6,5"},
		{"page 2", exchange.TransferHistoryRequest{Page: 2}, "12: 4,3"},
		{"size 100", exchange.TransferHistoryRequest{Size: 100, Start: at(100)}, "13: 14,13,12,11,10,9,8,7,6,5,4,3,2"},
		{"six months back", exchange.TransferHistoryRequest{Start: at(0)}, "code 33333"},
		{"size above 100", exchange.TransferHistoryRequest{Size: 101}, "code 33333"},
		{"end before start", exchange.TransferHistoryRequest{Start: at(195), End: at(190)}, "code 33333"},
	}
	for _, tt := range tests {
		if got := ids(tt.r); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestInternalTransfer(t *testing.T) {
	t.Parallel()
	x := fundedWallet(t)
	p := x.Master()
	bob := x.CreateAccount("bob")
	carol := x.CreateAccount("carol")
	if err := x.SetContact(x.MasterUID(), "me@example.com", "", ""); err != nil {
		t.Fatal(err)
	}
	if err := x.SetContact(bob, "bob@example.com", "5550001", "44"); err != nil {
		t.Fatal(err)
	}
	if err := x.SetContact(carol, "bob@example.com", "", ""); err == nil || err.Error() != `sim: contact "bob@example.com"/"" already belongs to user `+bob {
		t.Errorf("duplicate email: %v", err)
	}
	steps := []exchange.InternalTransferRequest{
		{ToAccountType: "UID", ToAccount: carol, Asset: "USDT", Amount: wdec("10")},
		{ToAccountType: "EMAIL", ToAccount: "bob@example.com", Asset: "BTC", Amount: wdec("0.25")},
		{ToAccountType: "MOBILE", ToAccount: "5550001", AreaCode: "44", Asset: "USDT", Amount: wdec("5.5")},
	}
	for i, r := range steps {
		x.Advance(time.Second)
		id, err := p.InternalTransfer(r)
		if err != nil || id != fmt.Sprint(i+1) {
			t.Fatalf("transfer %d: %q %v", i, id, err)
		}
	}
	want := "1000: BTC=1.75/0 USDT=984.5/0 XRP=100/0 addrs=0 book=0\n1001: BTC=0.25/0 USDT=5.5/0 addrs=0 book=0\n1002: USDT=10/0 addrs=0 book=0\n"
	if got := dumpState(x); !strings.HasPrefix(got, want) {
		t.Errorf("balances:\n%s\nwant prefix\n%s", got, want)
	}
	pg, err := x.As(bob).InternalTransferHistory(exchange.InternalTransferHistoryRequest{})
	wantRec := exchange.InternalTransferRecord{TranID: "3", Asset: "USDT", Amount: wdec("5.5"), FromAccount: "me@example.com",
		ToAccountType: "MOBILE", ToAccount: "5550001", Status: "SUCCESS", Timestamp: wT0.Add(3 * time.Second)}
	if err != nil || pg.TotalRecords != 2 || pg.Page != 1 || pg.TotalPages != 1 || fmt.Sprint(pg.Transfers[0]) != fmt.Sprint(wantRec) || pg.Transfers[1].TranID != "2" {
		t.Errorf("receiver's history: %+v %v", pg, err)
	}
	mine, _ := p.InternalTransferHistory(exchange.InternalTransferHistoryRequest{Limit: 2, Page: 2})
	byID, _ := p.InternalTransferHistory(exchange.InternalTransferHistoryRequest{TranID: "2"})
	if mine.TotalRecords != 3 || mine.TotalPages != 2 || len(mine.Transfers) != 1 || mine.Transfers[0].TranID != "1" ||
		len(byID.Transfers) != 1 || byID.Transfers[0].ToAccount != "bob@example.com" {
		t.Errorf("sender's pages: %+v, by id %+v", mine, byID)
	}
	x.Advance(8 * 24 * time.Hour)
	if old, _ := p.InternalTransferHistory(exchange.InternalTransferHistoryRequest{}); old.TotalRecords != 0 {
		t.Errorf("default window keeps %d transfers older than 7 days", old.TotalRecords)
	}
	if err := x.SetContact(carol, "", "5550001", "1"); err != nil {
		t.Fatal(err)
	}
	it := func(r exchange.InternalTransferRequest) func() error {
		return func() error { _, err := p.InternalTransfer(r); return err }
	}
	checkRefusals(t, x, []refusal{
		{"unknown uid", it(exchange.InternalTransferRequest{ToAccountType: "UID", ToAccount: "42", Asset: "USDT", Amount: wdec("1")}), exchange.CodeUserNotExist},
		{"unknown email", it(exchange.InternalTransferRequest{ToAccountType: "EMAIL", ToAccount: "x@y", Asset: "USDT", Amount: wdec("1")}), exchange.CodeUserNotExist},
		{"wrong area code", it(exchange.InternalTransferRequest{ToAccountType: "MOBILE", ToAccount: "5550001", AreaCode: "33", Asset: "USDT", Amount: wdec("1")}), exchange.CodeUserNotExist},
		{"ambiguous mobile", it(exchange.InternalTransferRequest{ToAccountType: "MOBILE", ToAccount: "5550001", Asset: "USDT", Amount: wdec("1")}), exchange.CodeParameterError},
		{"bad type", it(exchange.InternalTransferRequest{ToAccountType: "NAME", ToAccount: "bob", Asset: "USDT", Amount: wdec("1")}), exchange.CodeParameterError},
		{"no account", it(exchange.InternalTransferRequest{ToAccountType: "UID", Asset: "USDT", Amount: wdec("1")}), exchange.CodeParameterNull},
		{"to self", it(exchange.InternalTransferRequest{ToAccountType: "EMAIL", ToAccount: "me@example.com", Asset: "USDT", Amount: wdec("1")}), exchange.CodeTransferAccount},
		{"above balance", it(exchange.InternalTransferRequest{ToAccountType: "UID", ToAccount: bob, Asset: "USDT", Amount: wdec("984.51")}), exchange.CodeInsufficientBalance},
		{"negative", it(exchange.InternalTransferRequest{ToAccountType: "UID", ToAccount: bob, Asset: "USDT", Amount: wdec("-1")}), exchange.CodeAmountNotPositive},
		{"unknown asset", it(exchange.InternalTransferRequest{ToAccountType: "UID", ToAccount: bob, Asset: "NOPE", Amount: wdec("1")}), exchange.CodeCurrencyNotExist},
		{"history limit", func() error {
			_, err := p.InternalTransferHistory(exchange.InternalTransferHistoryRequest{Limit: 101})
			return err
		}, exchange.CodeParameterError},
	})
}
