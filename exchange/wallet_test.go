package exchange

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

var walletCalls = map[EndpointID]func(ctx context.Context, c *Client) error{
	EpCoinConfig: func(ctx context.Context, c *Client) error { _, err := c.Wallet.CoinConfig(ctx); return err },
	EpWithdraw: func(ctx context.Context, c *Client) error {
		_, err := c.Wallet.Withdraw(ctx, WithdrawRequest{Coin: "USDT", Address: "addr", Amount: decimal.NewFromInt(1)})
		return err
	},
	EpCancelWithdraw: func(ctx context.Context, c *Client) error { _, err := c.Wallet.CancelWithdraw(ctx, "1"); return err },
	EpDepositHistory: func(ctx context.Context, c *Client) error {
		_, err := c.Wallet.DepositHistory(ctx, HistoryRequest{})
		return err
	},
	EpWithdrawHistory: func(ctx context.Context, c *Client) error {
		_, err := c.Wallet.WithdrawHistory(ctx, HistoryRequest{})
		return err
	},
	EpGenerateDepositAddress: func(ctx context.Context, c *Client) error {
		_, err := c.Wallet.GenerateDepositAddress(ctx, "USDT", "TRC20")
		return err
	},
	EpDepositAddresses: func(ctx context.Context, c *Client) error {
		_, err := c.Wallet.DepositAddresses(ctx, "USDT", "")
		return err
	},
	EpWithdrawAddresses: func(ctx context.Context, c *Client) error {
		_, err := c.Wallet.WithdrawAddresses(ctx, "", 0, 0)
		return err
	},
	EpUniversalTransfer: func(ctx context.Context, c *Client) error {
		_, err := c.Wallet.UniversalTransfer(ctx, TransferRequest{FromAccountType: AccountSpot, ToAccountType: AccountFutures, Asset: "USDT", Amount: decimal.NewFromInt(1)})
		return err
	},
	EpUniversalTransferHistory: func(ctx context.Context, c *Client) error {
		_, err := c.Wallet.TransferHistory(ctx, TransferHistoryRequest{From: AccountSpot, To: AccountFutures})
		return err
	},
	EpUniversalTransferByID: func(ctx context.Context, c *Client) error { _, err := c.Wallet.TransferByID(ctx, "1"); return err },
	EpDustCandidates:        func(ctx context.Context, c *Client) error { _, err := c.Wallet.DustCandidates(ctx); return err },
	EpDustConvert: func(ctx context.Context, c *Client) error {
		_, err := c.Wallet.ConvertDust(ctx, []string{"XYZ"})
		return err
	},
	EpDustHistory: func(ctx context.Context, c *Client) error {
		_, err := c.Wallet.DustHistory(ctx, DustHistoryRequest{})
		return err
	},
	EpInternalTransfer: func(ctx context.Context, c *Client) error {
		_, err := c.Wallet.InternalTransfer(ctx, InternalTransferRequest{ToAccountType: "UID", ToAccount: "1", Asset: "USDT", Amount: decimal.NewFromInt(1)})
		return err
	},
	EpInternalTransferHistory: func(ctx context.Context, c *Client) error {
		_, err := c.Wallet.InternalTransferHistory(ctx, InternalTransferHistoryRequest{})
		return err
	},
	EpWithdrawApply: func(ctx context.Context, c *Client) error {
		_, err := c.Wallet.WithdrawApply(ctx, WithdrawRequest{Coin: "USDT", Address: "addr", Amount: decimal.NewFromInt(1)})
		return err
	},
}

func TestCoinConfigAndWithdrawals(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	handle(t, mux, EpCoinConfig, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, ts)
		reply(w, 200, `[{"coin":"USDT","name":"TetherUS","networkList":[{"coin":"USDT","depositDesc":null,"depositEnable":"true","minConfirm":"12",
			"name":"TetherUS","network":"BEP20(BSC)","netWork":"BSC","withdrawEnable":false,"withdrawFee":"0.8","withdrawIntegerMultiple":null,
			"withdrawMax":"1000000","withdrawMin":"10","sameAddress":false,"contract":"0x55d3"}]}]`)
	})
	handle(t, mux, EpWithdraw, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "coin=USDT&withdrawOrderId=w-1&netWork=BEP20%28BSC%29&address=0xabc&memo=m%20m&amount=25.5&remark=rent&"+ts)
		reply(w, 200, `{"id":"7213fea8e94b4a5593d507237e5a555b"}`)
	})
	handle(t, mux, EpWithdrawApply, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "coin=USDT&network=TRC20&address=Tabc&amount=10&"+ts)
		reply(w, 200, `[{"id":"old-1"}]`)
	})
	handle(t, mux, EpCancelWithdraw, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "id=7213fea8&"+ts)
		reply(w, 200, `{"id":"7213fea8"}`)
	})
	ctx := t.Context()
	cc, err := c.Wallet.CoinConfig(ctx)
	if err != nil || len(cc) != 1 || len(cc[0].Networks) != 1 {
		t.Fatalf("CoinConfig = %+v, %v", cc, err)
	}
	n := cc[0].Networks[0]
	if n.Network != "BEP20(BSC)" || n.NetWork != "BSC" || !n.DepositEnable || n.WithdrawEnable || n.MinConfirm != 12 ||
		n.WithdrawFee.String() != "0.8" || !n.WithdrawIntegerMultiple.IsZero() || n.DepositDesc != "" {
		t.Errorf("network %+v", n)
	}
	id, err := c.Wallet.Withdraw(ctx, WithdrawRequest{Coin: "USDT", WithdrawOrderID: "w-1", Network: "BEP20(BSC)", Address: "0xabc",
		Memo: "m m", Amount: decimal.RequireFromString("25.50"), Remark: "rent"})
	if err != nil || id != "7213fea8e94b4a5593d507237e5a555b" {
		t.Fatalf("Withdraw = %q, %v", id, err)
	}
	id, err = c.Wallet.WithdrawApply(ctx, WithdrawRequest{Coin: "USDT", Network: "TRC20", Address: "Tabc", Amount: decimal.NewFromInt(10)})
	if err != nil || id != "old-1" {
		t.Fatalf("WithdrawApply = %q, %v", id, err)
	}
	if id, err := c.Wallet.CancelWithdraw(ctx, "7213fea8"); err != nil || id != "7213fea8" {
		t.Fatalf("CancelWithdraw = %q, %v", id, err)
	}
}

// IncludeFee goes on the wire as includeFee=true, signed, on both
// withdrawal endpoints, and not at all when false (the test above).
func TestWithdrawIncludeFee(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	handle(t, mux, EpWithdraw, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "coin=USDT&netWork=TRC20&address=Tabc&amount=25&includeFee=true&"+ts)
		reply(w, 200, `{"id":"w-fee"}`)
	})
	handle(t, mux, EpWithdrawApply, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "coin=USDT&network=TRC20&address=Tabc&amount=10&remark=r&includeFee=true&"+ts)
		reply(w, 200, `[{"id":"old-fee"}]`)
	})
	ctx := t.Context()
	id, err := c.Wallet.Withdraw(ctx, WithdrawRequest{Coin: "USDT", Network: "TRC20", Address: "Tabc", Amount: decimal.NewFromInt(25), IncludeFee: true})
	if err != nil || id != "w-fee" {
		t.Fatalf("Withdraw = %q, %v", id, err)
	}
	id, err = c.Wallet.WithdrawApply(ctx, WithdrawRequest{Coin: "USDT", Network: "TRC20", Address: "Tabc", Amount: decimal.NewFromInt(10),
		Remark: "r", IncludeFee: true})
	if err != nil || id != "old-fee" {
		t.Fatalf("WithdrawApply = %q, %v", id, err)
	}
}

func TestDepositAddresses(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	var gen int
	handle(t, mux, EpGenerateDepositAddress, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "coin=USDT&network=TRC20&"+ts)
		if gen == 0 {
			reply(w, 200, `{"coin":"USDT","network":"TRC20","address":"Taddr1","memo":null}`)
		} else {
			reply(w, 200, `[{"coin":"USDT","network":"TRC20","address":"Taddr2","tag":"77"}]`)
		}
		gen++
	})
	handle(t, mux, EpDepositAddresses, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "coin=USDT&"+ts)
		reply(w, 200, `[{"coin":"USDT","network":"TRC20","address":"Taddr1"},{"coin":"USDT","network":"ERC20","address":"0xaddr","memo":"9"}]`)
	})
	handle(t, mux, EpWithdrawAddresses, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "coin=USDT&page=2&limit=5&"+ts)
		reply(w, 200, `{"data":[{"coin":"USDT","network":"TRC20","address":"Tsaved","addressTag":"home","memo":""}],"totalRecords":"6","page":2,"totalPageNum":2}`)
	})
	ctx := t.Context()
	a, err := c.Wallet.GenerateDepositAddress(ctx, "USDT", "TRC20")
	if err != nil || a.Address != "Taddr1" || a.Memo != "" {
		t.Fatalf("object form: %+v, %v", a, err)
	}
	a, err = c.Wallet.GenerateDepositAddress(ctx, "USDT", "TRC20")
	if err != nil || a.Address != "Taddr2" || a.Memo != "77" {
		t.Fatalf("array form: %+v, %v", a, err)
	}
	as, err := c.Wallet.DepositAddresses(ctx, "USDT", "")
	if err != nil || len(as) != 2 || as[1].Memo != "9" {
		t.Fatalf("DepositAddresses = %+v, %v", as, err)
	}
	p, err := c.Wallet.WithdrawAddresses(ctx, "USDT", 2, 5)
	if err != nil || len(p.Addresses) != 1 || p.Addresses[0].AddressTag != "home" || p.TotalRecords != 6 || p.TotalPages != 2 {
		t.Fatalf("WithdrawAddresses = %+v, %v", p, err)
	}
}

func TestDepositAndWithdrawHistory(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	from := time.UnixMilli(testMillis).Add(-10 * 24 * time.Hour)
	handle(t, mux, EpDepositHistory, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, fmt.Sprintf("coin=USDT&status=5&startTime=%d&endTime=%d&", from.UnixMilli(), testMillis)+ts)
		reply(w, 200, `[{"amount":"50","coin":"USDT","network":"TRC20","status":5,"address":"Ta","addressTag":null,"txId":"0xt1",
			"insertTime":1644489000000,"unlockConfirm":"20","confirmTimes":12,"memo":null}]`)
	})
	handle(t, mux, EpWithdrawHistory, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "coin=BTC&limit=10&"+ts)
		reply(w, 200, `[{"id":"w1","txId":"0xw","coin":"BTC","network":"BTC","address":"bc1","amount":"0.1","transferType":0,"status":"7",
			"transactionFee":"0.0005","confirmNo":"3","applyTime":"1644489000000","updateTime":1644489100000,"remark":"","memo":null,"transHash":"h","coinId":"c1","vcoinId":5},
			{"id":"w0","coin":"BTC","address":"1old","amount":"1","status":9,"applyTime":1500000000000}]`)
	})
	ctx := t.Context()
	d, err := c.Wallet.DepositHistory(ctx, HistoryRequest{Coin: "USDT", Status: 5, Start: from, End: time.UnixMilli(testMillis)})
	if err != nil || len(d) != 1 || d[0].Status != DepositSuccess || d[0].Status.String() != "SUCCESS" || d[0].ConfirmTimes != "12" || d[0].TxID != "0xt1" {
		t.Fatalf("DepositHistory = %+v, %v", d, err)
	}
	wr, err := c.Wallet.WithdrawHistory(ctx, HistoryRequest{Coin: "BTC", Limit: 10})
	if err != nil || len(wr) != 2 || wr[0].Status != WithdrawSuccess || wr[0].TransactionFee.String() != "0.0005" || wr[0].VcoinID != "5" ||
		wr[1].Network != "" || wr[1].WithdrawOrderID != "" || wr[1].Status.String() != "CANCEL" || wr[1].Status.Cancellable() {
		t.Fatalf("WithdrawHistory = %+v, %v", wr, err)
	}
}

func TestHistoryRanges(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	now := time.UnixMilli(testMillis)
	from := now.Add(-20 * 24 * time.Hour)
	var windows []string
	handle(t, mux, EpWithdrawHistory, func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		windows = append(windows, q.Get("startTime")+"-"+q.Get("endTime"))
		// The same withdrawal appears in two windows; ids must be unique.
		reply(w, 200, fmt.Sprintf(`[{"id":"dup","coin":"BTC","amount":"1","applyTime":%d},{"id":"w%s","coin":"BTC","amount":"2","applyTime":%s}]`,
			from.UnixMilli(), q.Get("startTime"), q.Get("startTime")))
	})
	recs, err := c.Wallet.WithdrawHistoryRange(t.Context(), "BTC", from, now)
	if err != nil {
		t.Fatal(err)
	}
	ms := func(d time.Duration) int64 { return from.Add(d).UnixMilli() }
	week := 7 * 24 * time.Hour
	want := []string{
		fmt.Sprintf("%d-%d", ms(0), ms(week)-1),
		fmt.Sprintf("%d-%d", ms(week), ms(2*week)-1),
		fmt.Sprintf("%d-%d", ms(2*week), now.UnixMilli()-1),
	}
	if strings.Join(windows, " ") != strings.Join(want, " ") {
		t.Errorf("windows\n got %v\nwant %v", windows, want)
	}
	if len(recs) != 4 || recs[0].ID != "dup" || recs[3].ID != fmt.Sprintf("w%d", ms(2*week)) {
		t.Errorf("records %v", recs)
	}
	_, err = c.Wallet.DepositHistoryRange(t.Context(), "BTC", now.Add(-91*24*time.Hour), now)
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Field != "startTime" {
		t.Errorf("91 days back: %v", err)
	}
}

func TestWalletTransfers(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	handle(t, mux, EpUniversalTransfer, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "fromAccountType=SPOT&toAccountType=FUTURES&asset=USDT&amount=100&"+ts)
		reply(w, 200, `[{"tranId":"c86b8d6d"}]`)
	})
	handle(t, mux, EpUniversalTransferHistory, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "fromAccountType=SPOT&toAccountType=FUTURES&page=1&size=100&"+ts)
		reply(w, 200, `{"rows":[{"tranId":"c86b8d6d","clientTranId":"","asset":"USDT","amount":"100","fromAccountType":"SPOT","toAccountType":"FUTURES","status":"SUCCESS","timestamp":1644489390000}],"total":"1"}`)
	})
	handle(t, mux, EpUniversalTransferByID, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "tranId=c86b8d6d&"+ts)
		reply(w, 200, `{"tranId":"c86b8d6d","asset":"USDT","amount":"100","symbol":"","status":"SUCCESS","timestamp":"1644489390000"}`)
	})
	handle(t, mux, EpInternalTransfer, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "toAccountType=MOBILE&toAccount=5550100&areaCode=%2B1&asset=USDT&amount=5&"+ts)
		reply(w, 200, `{"tranId":"it-1"}`)
	})
	handle(t, mux, EpInternalTransferHistory, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "page=1&limit=10&tranId=it-1&"+ts)
		reply(w, 200, `{"page":1,"totalRecords":1,"totalPageNum":1,"data":[{"tranId":"it-1","asset":"USDT","amount":"5","fromAccount":"1001","toAccountType":"MOBILE","toAccount":"5550100","status":"WAIT","timestamp":1644489390000}]}`)
	})
	ctx := t.Context()
	if id, err := c.Wallet.UniversalTransfer(ctx, TransferRequest{FromAccountType: AccountSpot, ToAccountType: AccountFutures, Asset: "USDT", Amount: decimal.NewFromInt(100)}); err != nil || id != "c86b8d6d" {
		t.Fatalf("UniversalTransfer = %q, %v", id, err)
	}
	p, err := c.Wallet.TransferHistory(ctx, TransferHistoryRequest{From: AccountSpot, To: AccountFutures, Page: 1, Size: 100})
	if err != nil || p.Total != 1 || p.Rows[0].ToAccountType != AccountFutures || p.Rows[0].Amount.String() != "100" {
		t.Fatalf("TransferHistory = %+v, %v", p, err)
	}
	tr, err := c.Wallet.TransferByID(ctx, "c86b8d6d")
	if err != nil || tr.Status != "SUCCESS" || tr.Timestamp.UnixMilli() != 1644489390000 {
		t.Fatalf("TransferByID = %+v, %v", tr, err)
	}
	if id, err := c.Wallet.InternalTransfer(ctx, InternalTransferRequest{ToAccountType: "MOBILE", ToAccount: "5550100", AreaCode: "+1", Asset: "USDT", Amount: decimal.NewFromInt(5)}); err != nil || id != "it-1" {
		t.Fatalf("InternalTransfer = %q, %v", id, err)
	}
	ip, err := c.Wallet.InternalTransferHistory(ctx, InternalTransferHistoryRequest{Page: 1, Limit: 10, TranID: "it-1"})
	if err != nil || len(ip.Transfers) != 1 || ip.Transfers[0].Status != "WAIT" || ip.Transfers[0].ToAccount != "5550100" {
		t.Fatalf("InternalTransferHistory = %+v, %v", ip, err)
	}
}

func TestDust(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	handle(t, mux, EpDustCandidates, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, ts)
		reply(w, 200, `[{"convertTok":"0.01","convertUsdt":"0.5","balance":"3","asset":"ABC","code":null,"message":null},
			{"convertTok":"0","convertUsdt":"0","balance":"100","asset":"BIG","code":"30031","message":"value above the limit"}]`)
	})
	handle(t, mux, EpDustConvert, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "asset=ABC%2CDEF&"+ts)
		reply(w, 200, `{"successList":["ABC"],"failedList":[{"asset":"DEF","message":"not convertible","code":30032}],"totalConvert":"0.01","convertFee":"0.0002"}`)
	})
	handle(t, mux, EpDustHistory, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "page=1&limit=1000&"+ts)
		reply(w, 200, `{"data":[{"totalConvert":"0.01","totalFee":"0.0002","convertTime":1644489390000,"convertDetails":[
			{"id":"d1","convert":"0.01","fee":"0.0002","amount":"3","time":"1644489390000","asset":"ABC"}]}],"totalRecords":1,"page":1,"totalPageNum":1}`)
	})
	ctx := t.Context()
	cs, err := c.Wallet.DustCandidates(ctx)
	if err != nil || len(cs) != 2 || cs[0].Code != "" || cs[0].ConvertUsdt.String() != "0.5" || cs[1].Code != "30031" || cs[1].Message != "value above the limit" {
		t.Fatalf("DustCandidates = %+v, %v", cs, err)
	}
	res, err := c.Wallet.ConvertDust(ctx, []string{"ABC", "DEF"})
	if err != nil || len(res.SuccessList) != 1 || res.FailedList[0].Code != "30032" || res.ConvertFee.String() != "0.0002" {
		t.Fatalf("ConvertDust = %+v, %v", res, err)
	}
	h, err := c.Wallet.DustHistory(ctx, DustHistoryRequest{Page: 1, Limit: 1000})
	if err != nil || len(h.Conversions) != 1 || h.Conversions[0].Details[0].Amount.String() != "3" || h.Conversions[0].Details[0].Time.UnixMilli() != 1644489390000 {
		t.Fatalf("DustHistory = %+v, %v", h, err)
	}
}

func TestWalletValidation(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	noCall(t, mux)
	ctx := t.Context()
	one := decimal.NewFromInt(1)
	sixteen := make([]string, 16)
	for i := range sixteen {
		sixteen[i] = fmt.Sprintf("A%d", i)
	}
	tests := []struct {
		name  string
		err   error
		field string
	}{
		{"withdraw coin", func() error { _, err := c.Wallet.Withdraw(ctx, WithdrawRequest{Address: "a", Amount: one}); return err }(), "coin"},
		{"withdraw amount", func() error {
			_, err := c.Wallet.Withdraw(ctx, WithdrawRequest{Coin: "BTC", Address: "a", Amount: decimal.RequireFromString("-1")})
			return err
		}(), "amount"},
		{"apply contract", func() error {
			_, err := c.Wallet.WithdrawApply(ctx, WithdrawRequest{Coin: "BTC", Address: "a", Amount: one, ContractAddress: "0x"})
			return err
		}(), "contractAddress"},
		{"history limit", func() error { _, err := c.Wallet.DepositHistory(ctx, HistoryRequest{Limit: 1001}); return err }(), "limit"},
		{"history 90 days", func() error {
			_, err := c.Wallet.WithdrawHistory(ctx, HistoryRequest{Start: testNow.Add(-91 * 24 * time.Hour)})
			return err
		}(), "startTime"},
		{"dust too many", func() error { _, err := c.Wallet.ConvertDust(ctx, sixteen); return err }(), "asset"},
		{"dust duplicate", func() error { _, err := c.Wallet.ConvertDust(ctx, []string{"A", "A"}); return err }(), "asset"},
		{"dust empty", func() error { _, err := c.Wallet.ConvertDust(ctx, nil); return err }(), "asset"},
		{"transfer size", func() error {
			_, err := c.Wallet.TransferHistory(ctx, TransferHistoryRequest{From: AccountSpot, To: AccountSpot, Size: 101})
			return err
		}(), "size"},
		{"internal type", func() error {
			_, err := c.Wallet.InternalTransfer(ctx, InternalTransferRequest{ToAccountType: "IBAN", ToAccount: "x", Asset: "USDT", Amount: one})
			return err
		}(), "toAccountType"},
		{"address network", func() error { _, err := c.Wallet.GenerateDepositAddress(ctx, "USDT", ""); return err }(), "network"},
	}
	for _, tt := range tests {
		var ve *ValidationError
		if !errors.As(tt.err, &ve) || ve.Field != tt.field {
			t.Errorf("%s: %v, want a validation error on %s", tt.name, tt.err, tt.field)
		}
	}
}
