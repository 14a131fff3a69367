package exchange

import (
	"encoding/json"
	"testing"
	"time"
)

// FuzzReplyDecoders feeds arbitrary bytes to every reply decoder: none may
// panic, whatever arrives.
func FuzzReplyDecoders(f *testing.F) {
	seeds := []string{
		exchangeInfoReply,
		`{"symbol":"BTCUSDT","orderId":"1","orderListId":"-1","Qty":"1","status":"NEW","isWorking":"true","time":"1"}`,
		`[1640995200000,"1","2","0.5","1.5","10",1640998799999,"3"]`,
		`{"symbol":"BTCUSDT","id":"1","orderId":"2","price":"1","qty":"1","isMaker":"false","clientOrderId":null}`,
		`{"asset":"BTC","free":"1","locked":null}`, `{"balances":[]}`, `{"code":"-2011","msg":"x"}`,
		`{"tranId":[{"tranId":1}]}`, `[{"id":"w"}]`, `{"subAccount":"abcdefgh","isFreeze":"true","uid":1}`,
		`{"coin":"USDT","networkList":[{"network":"A","netWork":"B","depositEnable":"true","minConfirm":"1"}]}`,
		`null`, `"x"`, `1e400`, `{"lastUpdateId":1}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		targets := []any{
			new(ExchangeInfo), new(SymbolInfo), new(Order), new(OwnTrade), new(OrderAck), new(Balance), new(Account), new(Kline),
			new([]Kline), new(Ticker24h), new(PriceTicker), new(BookTicker), new(PublicTrade), new(AggTrade), new(STPGroup),
			new(SubAccount), new(SubAPIKey), new(TransferRecord), new(CoinConfig), new(DepositRecord), new(WithdrawRecord),
			new(DepositAddress), new(InternalTransferRecord), new(DustCandidate), new(FlexInt), new(FlexBool), new(FlexString),
			new(Millis), new(OptDecimal), new(FlexDecimal),
		}
		for _, v := range targets {
			_ = json.Unmarshal(b, v)
		}
		parseErrorBody(b)
		decodeTranID(b, 0)
		decodeTransferRecords(b)
		decodeEnvelope(EpSelfSymbols, b, new([]string))
		oneOrMany[Ticker24h](EpTicker24h, b)
		idReply(EpWithdraw, b)
		DecodeDepth(b)
	})
}

func TestFlexDecoders(t *testing.T) {
	t.Parallel()
	ints := map[string]int64{`5`: 5, `"5"`: 5, `null`: 0, `""`: 0, `"-1"`: -1, `5.0`: 5}
	for in, want := range ints {
		var n FlexInt
		if err := json.Unmarshal([]byte(in), &n); err != nil || int64(n) != want {
			t.Errorf("FlexInt(%s) = %d, %v", in, n, err)
		}
	}
	for _, bad := range []string{`"x"`, `5.5`, `true`} {
		var n FlexInt
		if err := json.Unmarshal([]byte(bad), &n); err == nil {
			t.Errorf("FlexInt(%s) accepted", bad)
		}
	}
	bools := map[string]bool{`true`: true, `"true"`: true, `"1"`: true, `false`: false, `"false"`: false, `null`: false, `0`: false}
	for in, want := range bools {
		var v FlexBool
		if err := json.Unmarshal([]byte(in), &v); err != nil || bool(v) != want {
			t.Errorf("FlexBool(%s) = %v, %v", in, v, err)
		}
	}
	var v FlexBool
	if err := json.Unmarshal([]byte(`"yes"`), &v); err == nil {
		t.Error(`FlexBool("yes") accepted`)
	}
	strs := map[string]string{`"a"`: "a", `7`: "7", `null`: "", `1.5`: "1.5"}
	for in, want := range strs {
		var s FlexString
		if err := json.Unmarshal([]byte(in), &s); err != nil || string(s) != want {
			t.Errorf("FlexString(%s) = %q, %v", in, s, err)
		}
	}
	var o OptDecimal
	for in, want := range map[string]string{`"1.50"`: "1.5", `2`: "2", `null`: "", `""`: ""} {
		if err := json.Unmarshal([]byte(in), &o); err != nil || (want == "") == o.Valid || (o.Valid && o.Decimal.String() != want) {
			t.Errorf("OptDecimal(%s) = %+v, %v", in, o, err)
		}
	}
	var k Kline
	if err := json.Unmarshal([]byte(`[1,"1","2","0.5","1.5",null,2]`), &k); err == nil {
		t.Error("kline with a null volume accepted")
	}
	var ack OrderAck
	if err := json.Unmarshal([]byte(`{"symbol":"BTCUSDT"}`), &ack); err == nil {
		t.Error("ack without orderId accepted")
	}
}

func TestIntervals(t *testing.T) {
	t.Parallel()
	if iv, err := ParseInterval("1h"); err != nil || iv != Interval60m {
		t.Errorf("1h = %q, %v", iv, err)
	}
	if _, err := ParseInterval("8h"); err == nil {
		t.Error("8h accepted")
	}
	if Interval("1h").Valid() {
		t.Error("1h valid on the wire")
	}
	jan31 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	if got := Interval1M.Next(jan31); !got.Equal(time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("1M Next = %s", got)
	}
	wed := time.Date(2024, 3, 6, 15, 4, 0, 0, time.UTC)
	if got := Interval1W.Truncate(wed); !got.Equal(time.Date(2024, 3, 4, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("1W Truncate = %s", got)
	}
	if got := Interval4h.Truncate(wed); !got.Equal(time.Date(2024, 3, 6, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("4h Truncate = %s", got)
	}
}
