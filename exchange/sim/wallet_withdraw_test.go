package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

// fundedWallet is walletExchange with the master holding 2 BTC, 1000 USDT
// and 100 XRP.
func fundedWallet(t *testing.T) *Exchange {
	t.Helper()
	x := walletExchange(t)
	for asset, amt := range map[string]string{"BTC": "2", "USDT": "1000", "XRP": "100"} {
		if err := x.Credit(x.MasterUID(), asset, wdec(amt)); err != nil {
			t.Fatal(err)
		}
	}
	return x
}

func TestWithdrawStatusProgression(t *testing.T) {
	t.Parallel()
	x := fundedWallet(t)
	p := x.Master()
	id, err := p.Withdraw(exchange.WithdrawRequest{Coin: "BTC", Network: "BTC", Address: "bc1qdest", Amount: wdec("1.2"),
		WithdrawOrderID: "mine-1", Remark: "rent"})
	if err != nil {
		t.Fatal(err)
	}
	if id != "1" {
		t.Errorf("id %q", id)
	}
	if got := strings.SplitN(dumpState(x), "\n", 2)[0]; got != "1000: BTC=0.7995/0 USDT=1000/0 XRP=100/0 addrs=0 book=0" {
		t.Errorf("amount plus fee not debited: %s", got)
	}
	tx := "0x" + walletDigest("withdraw", "1")
	steps := []struct {
		after   time.Duration
		status  exchange.WithdrawStatus
		updated time.Duration
		txID    string
		confirm int
	}{
		{0, exchange.WithdrawApply, 0, "", 0},
		{59 * time.Second, exchange.WithdrawApply, 0, "", 0},
		{time.Minute, exchange.WithdrawAuditing, time.Minute, "", 0},
		{2 * time.Minute, exchange.WithdrawWait, 2 * time.Minute, "", 0},
		{5 * time.Minute, exchange.WithdrawProcessing, 5 * time.Minute, tx, 0},
		{6 * time.Minute, exchange.WithdrawWaitPackaging, 6 * time.Minute, tx, 0},
		{7 * time.Minute, exchange.WithdrawWaitConfirm, 7 * time.Minute, tx, 0},
		{10 * time.Minute, exchange.WithdrawSuccess, 10 * time.Minute, tx, 2},
		{time.Hour, exchange.WithdrawSuccess, 10 * time.Minute, tx, 2},
	}
	for _, s := range steps {
		x.SetTime(wT0.Add(s.after))
		h, err := p.WithdrawHistory(exchange.HistoryRequest{})
		if err != nil || len(h) != 1 {
			t.Fatalf("at %s: %v %+v", s.after, err, h)
		}
		want := exchange.WithdrawRecord{ID: "1", WithdrawOrderID: "mine-1", TxID: s.txID, Coin: "BTC", Network: "BTC", Address: "bc1qdest",
			Amount: wdec("1.2"), Status: s.status, TransactionFee: wdec("0.0005"), ConfirmNo: s.confirm, ApplyTime: wT0,
			UpdateTime: wT0.Add(s.updated), Remark: "rent", TransHash: s.txID, CoinID: walletDigest("coin", "BTC")[:32],
			VcoinID: walletDigest("coin", "BTC")[:32]}
		if fmt.Sprint(h[0]) != fmt.Sprint(want) {
			t.Errorf("at %s:\n got %+v\nwant %+v", s.after, h[0], want)
		}
	}
}

func TestWithdrawRefusals(t *testing.T) {
	t.Parallel()
	x := fundedWallet(t)
	p := x.Master()
	wd := func(r exchange.WithdrawRequest) func() error {
		return func() error { _, err := p.Withdraw(r); return err }
	}
	btc := func(amount string) exchange.WithdrawRequest {
		return exchange.WithdrawRequest{Coin: "BTC", Network: "BTC", Address: "bc1q", Amount: wdec(amount)}
	}
	with := func(r exchange.WithdrawRequest, edit func(*exchange.WithdrawRequest)) exchange.WithdrawRequest {
		edit(&r)
		return r
	}
	checkRefusals(t, x, []refusal{
		{"empty coin", wd(with(btc("1"), func(r *exchange.WithdrawRequest) { r.Coin = "" })), exchange.CodeCurrencyNull},
		{"unknown coin", wd(with(btc("1"), func(r *exchange.WithdrawRequest) { r.Coin = "NOPE" })), exchange.CodeCurrencyNotExist},
		{"unknown network", wd(with(btc("1"), func(r *exchange.WithdrawRequest) { r.Network = "TRC20" })), exchange.CodeParameterError},
		{"old network name on the new endpoint", wd(with(btc("1"), func(r *exchange.WithdrawRequest) { r.Network = "BSC" })), exchange.CodeParameterError},
		{"wrong contract", wd(with(btc("1"), func(r *exchange.WithdrawRequest) { r.Network, r.ContractAddress = "BEP20(BSC)", "0xother" })), exchange.CodeParameterError},
		{"disabled", wd(exchange.WithdrawRequest{Coin: "DIS", Address: "a", Amount: wdec("1")}), exchange.CodeTransferDisabled},
		{"no address", wd(with(btc("1"), func(r *exchange.WithdrawRequest) { r.Address = "" })), exchange.CodeParameterNull},
		{"memo required", wd(exchange.WithdrawRequest{Coin: "XRP", Address: "r1", Amount: wdec("30")}), exchange.CodeParameterNull},
		{"remark too long", wd(with(btc("1"), func(r *exchange.WithdrawRequest) { r.Remark = strings.Repeat("r", 101) })), exchange.CodeRemarkTooLong},
		{"zero", wd(btc("0")), exchange.CodeAmountNotPositive},
		{"negative", wd(btc("-1")), exchange.CodeAmountNotPositive},
		{"too many decimals", wd(btc("1.000000001")), exchange.CodeAmountTooManyDecimals},
		{"below minimum", wd(btc("0.0009")), exchange.CodeAmountWrong},
		{"above maximum", wd(btc("10.1")), exchange.CodeAmountWrong},
		{"not the integer multiple", wd(exchange.WithdrawRequest{Coin: "USDT", Address: "T1", Amount: wdec("10.5")}), exchange.CodeAmountWrong},
		{"amount plus fee above balance", wd(btc("1.9996")), exchange.CodeInsufficientBalance},
		{"contract on withdraw/apply", func() error {
			_, err := p.WithdrawApply(with(btc("1"), func(r *exchange.WithdrawRequest) { r.ContractAddress = "0xbtc" }))
			return err
		}, exchange.CodeParameterError},
	})
	if err := x.RequireSavedAddresses(x.MasterUID(), true); err != nil {
		t.Fatal(err)
	}
	checkRefusals(t, x, []refusal{{"address not saved", wd(btc("1")), exchange.CodeWithdrawAddressInvalid}})
	if err := x.SaveWithdrawAddress(x.MasterUID(), exchange.WithdrawAddress{Coin: "BTC", Network: "BTC", Address: "bc1q"}); err != nil {
		t.Fatal(err)
	}
	// The whole balance less the fee is allowed, to the saved address.
	if _, err := p.Withdraw(btc("1.9995")); err != nil {
		t.Fatalf("withdrawal of the balance less the fee: %v", err)
	}
	if got := strings.SplitN(dumpState(x), "\n", 2)[0]; got != "1000: USDT=1000/0 XRP=100/0 addrs=0 book=1" {
		t.Errorf("after the full withdrawal: %s", got)
	}
}

func TestWithdrawApplyAndCancel(t *testing.T) {
	t.Parallel()
	x := fundedWallet(t)
	p := x.Master()
	// The previous endpoint finds the network by its old name.
	id, err := p.WithdrawApply(exchange.WithdrawRequest{Coin: "BTC", Network: "BSC", Address: "0xdest", Amount: wdec("0.5")})
	if err != nil || id != "1" {
		t.Fatalf("withdraw/apply: %q %v", id, err)
	}
	late, err := p.Withdraw(exchange.WithdrawRequest{Coin: "XRP", Address: "rDest", Memo: "77", Amount: wdec("20")})
	if err != nil || late != "2" {
		t.Fatalf("withdraw: %q %v", late, err)
	}
	if got := strings.SplitN(dumpState(x), "\n", 2)[0]; got != "1000: BTC=1.49999/0 USDT=1000/0 XRP=79.75/0 addrs=0 book=0" {
		t.Errorf("after two withdrawals: %s", got)
	}
	x.Advance(2*time.Minute + 59*time.Second) // WAIT: still cancellable
	if got, err := p.CancelWithdraw("1"); err != nil || got != "1" {
		t.Fatalf("cancel in WAIT: %q %v", got, err)
	}
	if got := strings.SplitN(dumpState(x), "\n", 2)[0]; got != "1000: BTC=2/0 USDT=1000/0 XRP=79.75/0 addrs=0 book=0" {
		t.Errorf("cancel did not refund amount and fee: %s", got)
	}
	x.Advance(3 * time.Minute) // withdrawal 2 is PROCESSING now
	h, _ := p.WithdrawHistory(exchange.HistoryRequest{})
	if len(h) != 2 || h[0].ID != "2" || h[0].Status != exchange.WithdrawProcessing || h[1].ID != "1" || h[1].Status != exchange.WithdrawCancel ||
		!h[1].UpdateTime.Equal(wT0.Add(2*time.Minute+59*time.Second)) || h[1].Network != "BEP20(BSC)" {
		t.Errorf("history: %+v", h)
	}
	cancelled, _ := p.WithdrawHistory(exchange.HistoryRequest{Status: int(exchange.WithdrawCancel)})
	if len(cancelled) != 1 || cancelled[0].ID != "1" {
		t.Errorf("status filter: %+v", cancelled)
	}
	other := x.CreateAccount("other")
	checkRefusals(t, x, []refusal{
		{"already cancelled", func() error { _, err := p.CancelWithdraw("1"); return err }, exchange.CodeOperationNotAllowed},
		{"processing", func() error { _, err := p.CancelWithdraw("2"); return err }, exchange.CodeOperationNotAllowed},
		{"unknown", func() error { _, err := p.CancelWithdraw("99"); return err }, exchange.CodeRecordNotExist},
		{"another account's", func() error { _, err := x.As(other).CancelWithdraw("2"); return err }, exchange.CodeRecordNotExist},
		{"empty id", func() error { _, err := p.CancelWithdraw(""); return err }, exchange.CodeParameterNull},
	})
}

func TestWithdrawAddressBook(t *testing.T) {
	t.Parallel()
	x := walletExchange(t)
	uid := x.MasterUID()
	for i := 1; i <= 25; i++ {
		if err := x.SaveWithdrawAddress(uid, exchange.WithdrawAddress{Coin: "BTC", Network: "BTC", Address: fmt.Sprintf("bc1q%02d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.SaveWithdrawAddress(uid, exchange.WithdrawAddress{Coin: "XRP", Network: "XRP", Address: "rX", AddressTag: "9", Memo: "9"}); err != nil {
		t.Fatal(err)
	}
	p := x.Master()
	page := func(coin string, pg, limit int) string {
		r, err := p.WithdrawAddresses(coin, pg, limit)
		if err != nil {
			return fmt.Sprintf("code %d", codeOfErr(err))
		}
		var a []string
		for _, w := range r.Addresses {
			a = append(a, w.Address)
		}
		return fmt.Sprintf("%d/%d of %d: %s", r.Page, r.TotalPages, r.TotalRecords, strings.Join(a, ","))
	}
	tests := []struct {
		coin        string
		page, limit int
		want        string
	}{
		{"", 0, 0, "1/2 of 26: bc1q01,bc1q02,bc1q03,bc1q04,bc1q05,bc1q06,bc1q07,bc1q08,bc1q09,bc1q10,bc1q11,bc1q12,bc1q13,bc1q14,bc1q15,bc1q16,bc1q17,bc1q18,bc1q19,bc1q20"},
		{"", 2, 0, "2/2 of 26: bc1q21,bc1q22,bc1q23,bc1q24,bc1q25,rX"},
		{"BTC", 3, 10, "3/3 of 25: bc1q21,bc1q22,bc1q23,bc1q24,bc1q25"},
		{"BTC", 4, 10, "4/3 of 25: "},
		{"XRP", 1, 5, "1/1 of 1: rX"},
		{"USDT", 1, 5, "1/0 of 0: "},
		{"NOPE", 1, 5, "code 10232"},
		{"", 1, 101, "code 33333"},
		{"", -1, 5, "code 33333"},
	}
	for _, tt := range tests {
		if got := page(tt.coin, tt.page, tt.limit); got != tt.want {
			t.Errorf("%q page %d limit %d: %s, want %s", tt.coin, tt.page, tt.limit, got, tt.want)
		}
	}
	checkRefusals(t, x, []refusal{
		{"duplicate", func() error {
			return x.SaveWithdrawAddress(uid, exchange.WithdrawAddress{Coin: "BTC", Network: "BTC", Address: "bc1q01"})
		}, 0},
		{"unknown coin", func() error {
			return x.SaveWithdrawAddress(uid, exchange.WithdrawAddress{Coin: "NOPE", Network: "BTC", Address: "a"})
		}, exchange.CodeCurrencyNotExist},
		{"bad network", func() error {
			return x.SaveWithdrawAddress(uid, exchange.WithdrawAddress{Coin: "BTC", Network: "XRP", Address: "a"})
		}, exchange.CodeParameterError},
		{"no address", func() error { return x.SaveWithdrawAddress(uid, exchange.WithdrawAddress{Coin: "BTC", Network: "BTC"}) }, exchange.CodeParameterNull},
		{"unknown user", func() error {
			return x.SaveWithdrawAddress("42", exchange.WithdrawAddress{Coin: "BTC", Network: "BTC", Address: "a"})
		}, exchange.CodeUserNotExist},
	})
	if err := x.SaveWithdrawAddress(uid, exchange.WithdrawAddress{Coin: "BTC", Network: "BTC", Address: "bc1q01"}); err == nil ||
		err.Error() != "sim: address bc1q01 of BTC on BTC is already saved" {
		t.Errorf("duplicate: %v", err)
	}
}

func TestWithdrawToAnotherAccountsAddress(t *testing.T) {
	t.Parallel()
	x := fundedWallet(t)
	p := x.Master()
	other := x.CreateAccount("other")
	to, err := x.As(other).GenerateDepositAddress("BTC", "BTC")
	if err != nil {
		t.Fatal(err)
	}
	xrpTo, _ := x.As(other).GenerateDepositAddress("XRP", "XRP")
	id, err := p.Withdraw(exchange.WithdrawRequest{Coin: "BTC", Network: "BTC", Address: to.Address, Amount: wdec("0.5")})
	if err != nil {
		t.Fatal(err)
	}
	// A wrong memo on a memo network does not reach the account: an
	// ordinary withdrawal with its fee.
	if _, err := p.Withdraw(exchange.WithdrawRequest{Coin: "XRP", Address: xrpTo.Address, Memo: "999", Amount: wdec("20")}); err != nil {
		t.Fatal(err)
	}
	want := "1000: BTC=1.5/0 USDT=1000/0 XRP=79.75/0 addrs=0 book=0\n1001: BTC=0.5/0 addrs=2 book=0\n"
	if got := dumpState(x); !strings.HasPrefix(got, want) {
		t.Errorf("balances:\n%s\nwant prefix\n%s", got, want)
	}
	h, _ := p.WithdrawHistory(exchange.HistoryRequest{Coin: "BTC"})
	coinID := walletDigest("coin", "BTC")[:32]
	wantRec := exchange.WithdrawRecord{ID: id, TxID: "Internal transfer", Coin: "BTC", Network: "BTC", Address: to.Address, Amount: wdec("0.5"),
		TransferType: 1, Status: exchange.WithdrawSuccess, TransactionFee: wdec("0"), ApplyTime: wT0, UpdateTime: wT0,
		TransHash: "Internal transfer", CoinID: coinID, VcoinID: coinID}
	if len(h) != 1 || fmt.Sprint(h[0]) != fmt.Sprint(wantRec) {
		t.Errorf("inside withdrawal\n got %+v\nwant %+v", h, wantRec)
	}
	dep, _ := x.As(other).DepositHistory(exchange.HistoryRequest{})
	wantDep := exchange.DepositRecord{Amount: wdec("0.5"), Coin: "BTC", Network: "BTC", Status: exchange.DepositSuccess, Address: to.Address,
		TxID: "Internal transfer", InsertTime: wT0, UnlockConfirm: "2", ConfirmTimes: "2"}
	if len(dep) != 1 || fmt.Sprint(dep[0]) != fmt.Sprint(wantDep) {
		t.Errorf("recipient's deposit\n got %+v\nwant %+v", dep, wantDep)
	}
	own, _ := p.GenerateDepositAddress("BTC", "BTC")
	sub, err := p.CreateSubAccount("frozensub1", "n")
	if err != nil {
		t.Fatal(err)
	}
	subAddr, _ := x.As(sub.UID).GenerateDepositAddress("BTC", "BTC")
	if err := x.FreezeSubAccount("frozensub1", true); err != nil {
		t.Fatal(err)
	}
	checkRefusals(t, x, []refusal{
		{"cancel a settled inside transfer", func() error { _, err := p.CancelWithdraw(id); return err }, exchange.CodeOperationNotAllowed},
		{"to the own address", func() error {
			_, err := p.Withdraw(exchange.WithdrawRequest{Coin: "BTC", Address: own.Address, Amount: wdec("0.1")})
			return err
		}, exchange.CodeTransferAccount},
		{"to a frozen sub-account", func() error {
			_, err := p.Withdraw(exchange.WithdrawRequest{Coin: "BTC", Address: subAddr.Address, Amount: wdec("0.1")})
			return err
		}, exchange.CodeSubAccountForbidden},
	})
}

// With IncludeFee the fee comes out of the amount: the balance pays the
// amount, the record (what leaves) is the amount less the fee, the limits
// apply to what leaves, and a cancel refunds exactly what was paid.
func TestWithdrawIncludeFee(t *testing.T) {
	t.Parallel()
	x := fundedWallet(t)
	p := x.Master()
	// USDT on TRC20: fee 1, minimum 10, maximum 100000, multiples of 1.
	id, err := p.Withdraw(exchange.WithdrawRequest{Coin: "USDT", Network: "TRC20", Address: "Tdest", Amount: wdec("25"), IncludeFee: true})
	if err != nil {
		t.Fatal(err)
	}
	id2, err := p.Withdraw(exchange.WithdrawRequest{Coin: "USDT", Network: "TRC20", Address: "Tdest", Amount: wdec("25")})
	if err != nil {
		t.Fatal(err)
	}
	// 1000 - 25 (fee inside) - 26 (fee on top).
	if got := strings.SplitN(dumpState(x), "\n", 2)[0]; got != "1000: BTC=2/0 USDT=949/0 XRP=100/0 addrs=0 book=0" {
		t.Errorf("after both withdrawals: %s", got)
	}
	h, err := p.WithdrawHistory(exchange.HistoryRequest{})
	if err != nil || len(h) != 2 {
		t.Fatalf("history %+v %v", h, err)
	}
	got := fmt.Sprintf("%s %s+%s | %s %s+%s", h[1].ID, h[1].Amount, h[1].TransactionFee, h[0].ID, h[0].Amount, h[0].TransactionFee)
	if want := id + " 24+1 | " + id2 + " 25+1"; got != want {
		t.Errorf("records %s, want %s", got, want)
	}
	if _, err := p.CancelWithdraw(id); err != nil {
		t.Fatal(err)
	}
	if got := strings.SplitN(dumpState(x), "\n", 2)[0]; got != "1000: BTC=2/0 USDT=974/0 XRP=100/0 addrs=0 book=0" {
		t.Errorf("after the cancel: %s", got)
	}
	before := dumpState(x)
	for _, tt := range []struct {
		amount, msg string
	}{
		{"1", "amount 1 does not cover the fee 1"},
		{"0.5", "amount 0.5 does not cover the fee 1"},
		{"10", "amount 9 below the minimum 10"},
		{"11.5", "amount 10.5 is not a multiple of 1"},
		{"100002", "amount 100001 above the maximum 100000"},
	} {
		_, err := p.Withdraw(exchange.WithdrawRequest{Coin: "USDT", Network: "TRC20", Address: "Tdest", Amount: wdec(tt.amount), IncludeFee: true})
		if want := (&exchange.APIError{Status: 400, Code: exchange.CodeAmountWrong, Msg: tt.msg}); fmt.Sprint(err) != fmt.Sprint(want) {
			t.Errorf("amount %s: %v, want %v", tt.amount, err, want)
		}
	}
	if after := dumpState(x); after != before {
		t.Errorf("refusals changed the state:\n%s\nwant\n%s", after, before)
	}
}
