package simserver

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/exchange/sim"
)

// walletCoins: BTC on BTC (fee 0.0005, min 0.001, max 10, 2 confirmations)
// and BEP20(BSC) (old name BSC), USDT with 2 decimals on TRC20 (fee 1,
// min 10, multiple 1), XRP needing a memo.
func walletCoins() []sim.Coin {
	n := func(name string) exchange.Network {
		return exchange.Network{NetWork: name, DepositEnable: true, WithdrawEnable: true, MinConfirm: 1}
	}
	btc := n("BTC")
	btc.WithdrawFee, btc.WithdrawMin, btc.WithdrawMax, btc.MinConfirm, btc.WithdrawTips = dec("0.0005"), dec("0.001"), dec("10"), 2, "check the address"
	bsc := n("BEP20(BSC)")
	bsc.Network, bsc.WithdrawFee, bsc.Contract = "BSC", dec("0.00001"), "0xbtc"
	trc := n("TRC20")
	trc.WithdrawFee, trc.WithdrawMin, trc.WithdrawIntegerMultiple = dec("1"), dec("10"), dec("1")
	xrp := n("XRP")
	xrp.WithdrawFee = dec("0.25")
	return []sim.Coin{
		{Coin: "BTC", Name: "Bitcoin", Networks: []sim.Network{{Network: btc}, {Network: bsc}}},
		{Coin: "USDT", Name: "Tether", Precision: 2, Networks: []sim.Network{{Network: trc}}},
		{Coin: "XRP", Name: "Ripple", Precision: 6, Networks: []sim.Network{{Network: xrp, MemoRequired: true}}},
		{Coin: "XYZ", Name: "Xyz", Networks: []sim.Network{{Network: n("XYZ")}}},
		{Coin: "TOK", Name: "Token", Networks: []sim.Network{{Network: n("TOK")}}},
	}
}

// walletScene serves an exchange with walletCoins, the master holding
// 2 BTC, 1000 USDT and 100 XRP.
func walletScene(t *testing.T) *served {
	t.Helper()
	sv := serve(t, sim.Options{}, Options{Limits: Limits{Off: true}})
	if err := sv.x.SetCoins(walletCoins()); err != nil {
		t.Fatal(err)
	}
	for asset, amt := range map[string]string{"BTC": "2", "USDT": "1000", "XRP": "100"} {
		if err := sv.x.Credit(sv.uids[0], asset, dec(amt)); err != nil {
			t.Fatal(err)
		}
	}
	return sv
}

// wantAPIError checks a refusal's HTTP status and code.
func wantAPIError(t *testing.T, what string, err error, status, code int) {
	t.Helper()
	var ae *exchange.APIError
	if !errors.As(err, &ae) || ae.Status != status || ae.Code != code {
		t.Errorf("%s: %v, want HTTP %d code %d", what, err, status, code)
	}
}

// signed sends a signed request with the given parameters in the query
// and returns the status and body.
func signed(t *testing.T, sv *served, key, sec, method, path, query string) (int, string) {
	t.Helper()
	q := "timestamp=" + fmt.Sprint(sv.x.Now().UnixMilli())
	if query != "" {
		q = query + "&" + q
	}
	q += "&signature=" + exchange.Sign(exchange.NewSecret(sec), q, "")
	st, body, _ := do(t, method, sv.url+path+"?"+q, "", map[string]string{"X-SVC-APIKEY": key})
	return st, body
}

// answered200 lists the endpoints of an area the server never answered
// with 200.
func answered200(sv *served, area string) []string {
	ok := map[exchange.EndpointID]bool{}
	for _, r := range sv.s.Requests() {
		if r.Status == 200 {
			ok[r.Endpoint] = true
		}
	}
	var missing []string
	for _, e := range exchange.Endpoints() {
		if e.Area == area && !ok[e.ID] {
			missing = append(missing, e.Name)
		}
	}
	return missing
}

func TestWalletEndpointsEndToEnd(t *testing.T) {
	t.Parallel()
	sv := walletScene(t)
	t.Run("coins and deposits", func(t *testing.T) { coinsAndDeposits(t, sv) })
	t.Run("withdrawals", func(t *testing.T) { withdrawals(t, sv) })
	t.Run("transfers", func(t *testing.T) { transfers(t, sv) })
	t.Run("dust", func(t *testing.T) { dust(t, sv) })
	if missing := answered200(sv, "wallet"); len(missing) > 0 {
		t.Errorf("wallet endpoints never answered 200: %v", missing)
	}
}

func coinsAndDeposits(t *testing.T, sv *served) {
	ctx, w := t.Context(), sv.master.Wallet
	cfg, err := w.CoinConfig(ctx)
	if err != nil || len(cfg) != 5 || cfg[0].Coin != "BTC" || cfg[0].Name != "Bitcoin" || len(cfg[0].Networks) != 2 {
		t.Fatalf("coin config %+v %v", cfg, err)
	}
	want := exchange.Network{Coin: "BTC", Name: "Bitcoin", Network: "BTC", NetWork: "BTC", DepositEnable: true, WithdrawEnable: true,
		WithdrawTips: "check the address", MinConfirm: 2, WithdrawFee: dec("0.0005"), WithdrawIntegerMultiple: dec("0"),
		WithdrawMax: dec("10"), WithdrawMin: dec("0.001")}
	if fmt.Sprint(cfg[0].Networks[0]) != fmt.Sprint(want) || cfg[0].Networks[1].Network != "BSC" || cfg[0].Networks[1].Contract != "0xbtc" {
		t.Errorf("BTC networks\n got %+v\nwant %+v", cfg[0].Networks, want)
	}
	addr, err := w.GenerateDepositAddress(ctx, "XRP", "XRP")
	if err != nil || addr.Coin != "XRP" || addr.Network != "XRP" || len(addr.Address) != 40 || addr.Memo != sv.uids[0] {
		t.Errorf("generated address %+v %v", addr, err)
	}
	if _, err := sv.x.Deposit(sv.uids[0], "XRP", "XRP", dec("12.5")); err != nil {
		t.Fatal(err)
	}
	addrs, err := w.DepositAddresses(ctx, "XRP", "")
	if err != nil || len(addrs) != 1 || addrs[0] != addr {
		t.Errorf("addresses %+v %v", addrs, err)
	}
	if none, err := w.DepositAddresses(ctx, "BTC", "BTC"); err != nil || len(none) != 0 {
		t.Errorf("no BTC address yet: %+v %v", none, err)
	}
	hist, err := w.DepositHistory(ctx, exchange.HistoryRequest{Coin: "XRP"})
	wantDep := exchange.DepositRecord{Amount: dec("12.5"), Coin: "XRP", Network: "XRP", Status: exchange.DepositSuccess, Address: addr.Address,
		AddressTag: sv.uids[0], TxID: hist[0].TxID, InsertTime: exchangetest.T0, UnlockConfirm: "1", ConfirmTimes: "1", Memo: sv.uids[0]}
	if err != nil || len(hist) != 1 || fmt.Sprint(hist[0]) != fmt.Sprint(wantDep) || len(hist[0].TxID) != 66 {
		t.Errorf("deposit history\n got %+v %v\nwant %+v", hist, err, wantDep)
	}
	_, err = w.GenerateDepositAddress(ctx, "NOPE", "X")
	wantAPIError(t, "address of an unknown coin", err, 400, exchange.CodeCurrencyNotExist)
	_, err = w.DepositHistory(ctx, exchange.HistoryRequest{Limit: 1000, Status: 99})
	if err != nil {
		t.Errorf("history with an unused status: %v", err)
	}
	if st, body := signed(t, sv, apiKey, secret, "GET", "/api/v3/capital/deposit/hisrec", "limit=1001"); st != 400 ||
		body != `{"code":33333,"msg":"limit 1001 outside 1..1000"}` {
		t.Errorf("limit 1001: %d %s", st, body)
	}
	if st, body := signed(t, sv, apiKey, secret, "POST", "/api/v3/capital/deposit/address", "coin=BTC"); st != 400 ||
		body != `{"code":44444,"msg":"parameter network cannot be null"}` {
		t.Errorf("address without network: %d %s", st, body)
	}
}

func withdrawals(t *testing.T, sv *served) {
	ctx, w := t.Context(), sv.master.Wallet
	id, err := w.Withdraw(ctx, exchange.WithdrawRequest{Coin: "BTC", Network: "BEP20(BSC)", ContractAddress: "0xbtc", Address: "0xdest",
		Amount: dec("0.5"), WithdrawOrderID: "w-1", Remark: "to cold storage"})
	if err != nil {
		t.Fatal(err)
	}
	old, err := w.WithdrawApply(ctx, exchange.WithdrawRequest{Coin: "USDT", Network: "TRC20", Address: "Tdest", Amount: dec("20")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.CancelWithdraw(ctx, old); err != nil {
		t.Fatal(err)
	}
	sv.x.Advance(5 * time.Minute) // the BSC withdrawal is PROCESSING now
	hist, err := w.WithdrawHistory(ctx, exchange.HistoryRequest{})
	if err != nil || len(hist) != 2 {
		t.Fatalf("withdraw history %+v %v", hist, err)
	}
	applied := exchangetest.T0
	want := exchange.WithdrawRecord{ID: id, WithdrawOrderID: "w-1", TxID: hist[1].TxID, Coin: "BTC", Network: "BEP20(BSC)", Address: "0xdest",
		Amount: dec("0.5"), Status: exchange.WithdrawProcessing, TransactionFee: dec("0.00001"), ApplyTime: applied,
		UpdateTime: applied.Add(5 * time.Minute), Remark: "to cold storage", TransHash: hist[1].TxID, CoinID: hist[1].CoinID, VcoinID: hist[1].CoinID}
	if fmt.Sprint(hist[1]) != fmt.Sprint(want) || len(hist[1].TxID) != 66 || len(hist[1].CoinID) != 32 {
		t.Errorf("withdrawal\n got %+v\nwant %+v", hist[1], want)
	}
	if hist[0].ID != old || hist[0].Status != exchange.WithdrawCancel || hist[0].TxID != "" || hist[0].WithdrawOrderID != "" {
		t.Errorf("cancelled withdrawal %+v", hist[0])
	}
	acct, _ := sv.master.Spot.Account(ctx)
	if got := fmt.Sprint(acct.Balances); !strings.Contains(got, "{BTC 1.49999 0 1.49999}") || !strings.Contains(got, "{USDT 1000 0 1000}") {
		t.Errorf("balances after withdrawal and refund: %s", got)
	}
	_, err = w.CancelWithdraw(ctx, id)
	wantAPIError(t, "cancel while processing", err, 400, exchange.CodeOperationNotAllowed)
	_, err = w.Withdraw(ctx, exchange.WithdrawRequest{Coin: "BTC", Network: "BTC", Address: "bc1q", Amount: dec("1.5")})
	wantAPIError(t, "amount plus fee above the balance", err, 400, exchange.CodeInsufficientBalance)
	_, err = w.Withdraw(ctx, exchange.WithdrawRequest{Coin: "BTC", Network: "BTC", Address: "bc1q", Amount: dec("0.000000001")})
	wantAPIError(t, "too many decimals", err, 400, exchange.CodeAmountTooManyDecimals)
	_, err = w.Withdraw(ctx, exchange.WithdrawRequest{Coin: "XRP", Address: "r1", Amount: dec("30")})
	wantAPIError(t, "memo required", err, 400, exchange.CodeParameterNull)
	if st, body := signed(t, sv, apiKey, secret, "POST", "/api/v3/capital/withdraw", "coin=BTC&address=bc1q"); st != 400 ||
		body != `{"code":10095,"msg":"amount cannot be null"}` {
		t.Errorf("no amount: %d %s", st, body)
	}
	if st, body := signed(t, sv, apiKey, secret, "POST", "/api/v3/capital/withdraw", "coin=BTC&address=bc1q&amount=0"); st != 400 ||
		body != `{"code":10102,"msg":"amount 0 is zero or negative"}` {
		t.Errorf("zero amount: %d %s", st, body)
	}
	if st, body := signed(t, sv, apiKey, secret, "DELETE", "/api/v3/capital/withdraw", ""); st != 400 ||
		body != `{"code":44444,"msg":"parameter id cannot be null"}` {
		t.Errorf("cancel without id: %d %s", st, body)
	}
	for i := 1; i <= 3; i++ {
		if err := sv.x.SaveWithdrawAddress(sv.uids[0], exchange.WithdrawAddress{Coin: "BTC", Network: "BTC", Address: fmt.Sprint("bc1q", i), AddressTag: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	pg, err := w.WithdrawAddresses(ctx, "BTC", 2, 2)
	want2 := exchange.WithdrawAddressPage{Addresses: []exchange.WithdrawAddress{{Coin: "BTC", Network: "BTC", Address: "bc1q3", AddressTag: "t"}},
		TotalRecords: 3, Page: 2, TotalPages: 2}
	if err != nil || fmt.Sprint(pg) != fmt.Sprint(want2) {
		t.Errorf("address book page 2\n got %+v %v\nwant %+v", pg, err, want2)
	}
}

func transfers(t *testing.T, sv *served) {
	ctx, w := t.Context(), sv.master.Wallet
	start := sv.x.Now()
	id, err := w.UniversalTransfer(ctx, exchange.TransferRequest{FromAccountType: exchange.AccountSpot, ToAccountType: exchange.AccountFutures,
		Asset: "USDT", Amount: dec("100.25")})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := w.TransferByID(ctx, id)
	want := exchange.TransferRecord{TranID: id, FromAccountType: "SPOT", ToAccountType: "FUTURES", Asset: "USDT", Amount: dec("100.25"),
		Status: "SUCCESS", Timestamp: start}
	if err != nil || fmt.Sprint(rec) != fmt.Sprint(want) {
		t.Errorf("transfer by id\n got %+v %v\nwant %+v", rec, err, want)
	}
	pg, err := w.TransferHistory(ctx, exchange.TransferHistoryRequest{From: exchange.AccountSpot, To: exchange.AccountFutures})
	if err != nil || pg.Total != 1 || len(pg.Rows) != 1 || fmt.Sprint(pg.Rows[0]) != fmt.Sprint(want) {
		t.Errorf("transfer history %+v %v", pg, err)
	}
	if f := sv.x.FuturesBalance(sv.uids[0], "USDT"); f.String() != "100.25" {
		t.Errorf("futures balance %s", f)
	}
	_, err = w.UniversalTransfer(ctx, exchange.TransferRequest{FromAccountType: exchange.AccountFutures, ToAccountType: exchange.AccountSpot,
		Asset: "USDT", Amount: dec("100.26")})
	wantAPIError(t, "above the futures balance", err, 400, exchange.CodeInsufficientBalance)
	_, err = w.TransferByID(ctx, "999")
	wantAPIError(t, "unknown transfer", err, 400, exchange.CodeRecordNotExist)
	if st, body := signed(t, sv, apiKey, secret, "POST", "/api/v3/capital/transfer", "fromAccountType=SPOT&asset=USDT&amount=1"); st != 400 ||
		body != `{"code":44444,"msg":"parameter toAccountType cannot be null"}` {
		t.Errorf("no toAccountType: %d %s", st, body)
	}
	if err := sv.x.SetContact(sv.uids[1], "other@example.com", "", ""); err != nil {
		t.Fatal(err)
	}
	iid, err := w.InternalTransfer(ctx, exchange.InternalTransferRequest{ToAccountType: "EMAIL", ToAccount: "other@example.com", Asset: "USDT", Amount: dec("7")})
	if err != nil {
		t.Fatal(err)
	}
	ipg, err := sv.other.Wallet.InternalTransferHistory(ctx, exchange.InternalTransferHistoryRequest{TranID: iid})
	wantI := exchange.InternalTransferRecord{TranID: iid, Asset: "USDT", Amount: dec("7"), FromAccount: sv.uids[0], ToAccountType: "EMAIL",
		ToAccount: "other@example.com", Status: "SUCCESS", Timestamp: start}
	if err != nil || ipg.TotalRecords != 1 || ipg.Page != 1 || ipg.TotalPages != 1 || fmt.Sprint(ipg.Transfers[0]) != fmt.Sprint(wantI) {
		t.Errorf("internal history\n got %+v %v\nwant %+v", ipg, err, wantI)
	}
	other, _ := sv.other.Spot.Account(ctx)
	if fmt.Sprint(other.Balances) != "[{USDT 7 0 7}]" {
		t.Errorf("recipient balances %v", other.Balances)
	}
	_, err = w.InternalTransfer(ctx, exchange.InternalTransferRequest{ToAccountType: "UID", ToAccount: "424242", Asset: "USDT", Amount: dec("1")})
	wantAPIError(t, "unknown recipient", err, 400, exchange.CodeUserNotExist)
}

func dust(t *testing.T, sv *served) {
	ctx, w := t.Context(), sv.master.Wallet
	for sym, px := range map[string]string{"XYZUSDT": "0.5", "TOKUSDT": "2"} {
		if err := sv.x.SetLastPrice(sym, dec(px)); err != nil {
			t.Fatal(err)
		}
	}
	if err := sv.x.Credit(sv.uids[0], "XYZ", dec("4")); err != nil {
		t.Fatal(err)
	}
	cands, err := w.DustCandidates(ctx)
	var xyz exchange.DustCandidate
	for _, c := range cands {
		if c.Asset == "XYZ" {
			xyz = c
		}
	}
	if err != nil || fmt.Sprint(xyz) != fmt.Sprint(exchange.DustCandidate{Asset: "XYZ", Balance: dec("4"), ConvertTok: dec("0.98"), ConvertUsdt: dec("2")}) {
		t.Errorf("dust candidate %+v %v", xyz, err)
	}
	res, err := w.ConvertDust(ctx, []string{"XYZ", "USDT"})
	wantRes := exchange.DustResult{SuccessList: []string{"XYZ"}, FailedList: []exchange.DustFailure{{Asset: "USDT", Message: "asset cannot be converted", Code: "30020"}},
		TotalConvert: dec("0.98"), ConvertFee: dec("0.02")}
	if err != nil || fmt.Sprint(res) != fmt.Sprint(wantRes) {
		t.Errorf("convert\n got %+v %v\nwant %+v", res, err, wantRes)
	}
	hist, err := w.DustHistory(ctx, exchange.DustHistoryRequest{})
	now := sv.x.Now()
	wantH := exchange.DustHistoryPage{TotalRecords: 1, Page: 1, TotalPages: 1, Conversions: []exchange.DustConversion{{TotalConvert: dec("0.98"),
		TotalFee: dec("0.02"), ConvertTime: now, Details: []exchange.DustDetail{{ID: "XYZ", Convert: dec("0.98"), Fee: dec("0.02"), Amount: dec("4"), Time: now, Asset: "XYZ"}}}}}
	if err != nil || fmt.Sprint(hist) != fmt.Sprint(wantH) {
		t.Errorf("dust history\n got %+v %v\nwant %+v", hist, err, wantH)
	}
}
