package sim

import (
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
)

func benchWallet(b *testing.B) *Exchange {
	b.Helper()
	x, err := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols()})
	if err != nil {
		b.Fatal(err)
	}
	if err := x.SetCoins(testCoins()); err != nil {
		b.Fatal(err)
	}
	if err := x.Credit(x.MasterUID(), "USDT", wdec("1000000000")); err != nil {
		b.Fatal(err)
	}
	return x
}

// BenchmarkUniversalTransfer moves USDT to the FUTURES wallet and back:
// two transfers, two records, per iteration.
func BenchmarkUniversalTransfer(b *testing.B) {
	x := benchWallet(b)
	p := x.Master()
	there := exchange.TransferRequest{FromAccountType: exchange.AccountSpot, ToAccountType: exchange.AccountFutures, Asset: "USDT", Amount: wdec("1.5")}
	back := exchange.TransferRequest{FromAccountType: exchange.AccountFutures, ToAccountType: exchange.AccountSpot, Asset: "USDT", Amount: wdec("1.5")}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.UniversalTransfer(there); err != nil {
			b.Fatal(err)
		}
		if _, err := p.UniversalTransfer(back); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWithdrawHistory reads a full page of 1000 withdrawals, each with
// its status worked out from the clock.
func BenchmarkWithdrawHistory(b *testing.B) {
	x := benchWallet(b)
	p := x.Master()
	for i := 0; i < 1000; i++ {
		if _, err := p.Withdraw(exchange.WithdrawRequest{Coin: "USDT", Address: "T1", Amount: wdec("10")}); err != nil {
			b.Fatal(err)
		}
		x.Advance(time.Second)
	}
	b.ReportAllocs()
	for b.Loop() {
		h, err := p.WithdrawHistory(exchange.HistoryRequest{})
		if err != nil || len(h) != 1000 {
			b.Fatal(len(h), err)
		}
	}
}
