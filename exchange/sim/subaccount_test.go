package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

func TestCreateAndListSubAccounts(t *testing.T) {
	t.Parallel()
	x := walletExchange(t)
	p := x.Master()
	var uids []string
	for i := 1; i <= 12; i++ {
		x.Advance(time.Second)
		s, err := p.CreateSubAccount(fmt.Sprintf("trader%02dx", i), fmt.Sprintf("note %d", i))
		if err != nil {
			t.Fatal(err)
		}
		uids = append(uids, s.UID)
	}
	first, _ := p.SubAccounts(exchange.SubAccountsRequest{SubAccount: "trader01x"})
	want := exchange.SubAccount{Name: "trader01x", Note: "note 1", CreateTime: wT0.Add(time.Second), UID: "1001"}
	if len(first) != 1 || first[0] != want || uids[11] != "1012" {
		t.Errorf("created: %+v, uids %v", first, uids)
	}
	if uid, err := x.SubAccountUID("trader12x"); err != nil || uid != "1012" {
		t.Errorf("SubAccountUID = %q %v", uid, err)
	}
	if err := x.FreezeSubAccount("trader03x", true); err != nil {
		t.Fatal(err)
	}
	names := func(r exchange.SubAccountsRequest) string {
		subs, err := p.SubAccounts(r)
		if err != nil {
			return fmt.Sprintf("code %d", codeOfErr(err))
		}
		var s []string
		for _, sa := range subs {
			s = append(s, strings.TrimPrefix(strings.TrimSuffix(sa.Name, "x"), "trader"))
		}
		return strings.Join(s, ",")
	}
	yes, no := true, false
	tests := []struct {
		name string
		r    exchange.SubAccountsRequest
		want string
	}{
		{"default page of 10", exchange.SubAccountsRequest{}, "01,02,03,04,05,06,07,08,09,10"},
		{"page 2", exchange.SubAccountsRequest{Page: 2}, "11,12"},
		{"limit 5 page 3", exchange.SubAccountsRequest{Page: 3, Limit: 5}, "11,12"},
		{"frozen", exchange.SubAccountsRequest{IsFreeze: &yes}, "03"},
		{"not frozen, limit 3", exchange.SubAccountsRequest{IsFreeze: &no, Limit: 3}, "01,02,04"},
		{"by name", exchange.SubAccountsRequest{SubAccount: "trader07x"}, "07"},
		{"unknown name", exchange.SubAccountsRequest{SubAccount: "nobody123"}, ""},
		{"limit 201", exchange.SubAccountsRequest{Limit: 201}, "code 33333"},
	}
	for _, tt := range tests {
		if got := names(tt.r); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
	other := x.CreateAccount("someone1")
	checkRefusals(t, x, []refusal{
		{"duplicate", func() error { _, err := p.CreateSubAccount("trader01x", "n"); return err }, exchange.CodeUserNameExists},
		{"name of another account", func() error { _, err := p.CreateSubAccount("someone1", "n"); return err }, exchange.CodeUserNameExists},
		{"empty name", func() error { _, err := p.CreateSubAccount("", "n"); return err }, exchange.CodeSubAccountNameNull},
		{"7 characters", func() error { _, err := p.CreateSubAccount("abcdefg", "n"); return err }, exchange.CodeSubAccountNameFormat},
		{"33 characters", func() error { _, err := p.CreateSubAccount(strings.Repeat("a", 33), "n"); return err }, exchange.CodeSubAccountNameFormat},
		{"not alphanumeric", func() error { _, err := p.CreateSubAccount("trader_01", "n"); return err }, exchange.CodeSubAccountNameFormat},
		{"no note", func() error { _, err := p.CreateSubAccount("trader99x", ""); return err }, exchange.CodeSubAccountRemarksNull},
		{"not the master", func() error { _, err := x.As(other).CreateSubAccount("trader99x", "n"); return err }, exchange.CodeNoAuthority},
		{"list as a sub", func() error { _, err := x.As(uids[0]).SubAccounts(exchange.SubAccountsRequest{}); return err }, exchange.CodeNoAuthority},
		{"freeze unknown", func() error { return x.FreezeSubAccount("nobody123", true) }, exchange.CodeSubAccountNotExist},
	})
	if _, err := p.CreateSubAccount(strings.Repeat("Z9", 16), "32 characters"); err != nil {
		t.Errorf("a 32-character name: %v", err)
	}
}

func TestSubAPIKeys(t *testing.T) {
	t.Parallel()
	x := walletExchange(t)
	p := x.Master()
	if _, err := p.CreateSubAccount("keyholder1", "keys"); err != nil {
		t.Fatal(err)
	}
	k, secret, err := p.CreateSubAPIKey("keyholder1", "bot", []exchange.Permission{exchange.PermSpotDealWrite, exchange.PermSpotAccountRead, exchange.PermSpotDealWrite},
		[]string{"127.0.0.1", "::1"})
	if err != nil {
		t.Fatal(err)
	}
	want := SubKey{SubAccount: "keyholder1", UID: "1001", Note: "bot", APIKey: "mx0" + walletDigest("apikey", "1000", "1")[:29],
		Permissions: []exchange.Permission{exchange.PermSpotDealWrite, exchange.PermSpotAccountRead}, IPs: []string{"127.0.0.1", "::1"}, CreateTime: wT0}
	if fmt.Sprint(k) != fmt.Sprint(want) || secret != walletDigest("secret", "1000", "1")[:32] || len(k.APIKey) != 32 {
		t.Errorf("key %+v secret %q", k, secret)
	}
	for i := 2; i <= 30; i++ {
		if _, _, err := p.CreateSubAPIKey("keyholder1", fmt.Sprint("k", i), []exchange.Permission{exchange.PermSpotAccountRead}, nil); err != nil {
			t.Fatal(err)
		}
	}
	keys, _ := p.SubAPIKeys("keyholder1")
	if len(keys) != 30 || keys[0].APIKey != k.APIKey || keys[29].Note != "k30" {
		t.Errorf("%d keys listed", len(keys))
	}
	ips := make([]string, 21)
	for i := range ips {
		ips[i] = fmt.Sprintf("10.0.0.%d", i)
	}
	create := func(sub, note string, perms []exchange.Permission, ips []string) func() error {
		return func() error { _, _, err := p.CreateSubAPIKey(sub, note, perms, ips); return err }
	}
	read := []exchange.Permission{exchange.PermSpotAccountRead}
	checkRefusals(t, x, []refusal{
		{"31st key", create("keyholder1", "n", read, nil), exchange.CodeTooManyAPIKeys},
		{"no sub-account", create("", "n", read, nil), exchange.CodeSubAccountNameNull},
		{"unknown sub-account", create("nobody123", "n", read, nil), exchange.CodeSubAccountNotExist},
		{"no note", create("keyholder1", "", read, nil), exchange.CodeAPIKeyRemarksNull},
		{"no permission", create("keyholder1", "n", nil, nil), exchange.CodeAPIKeyPermissionNull},
		{"withdraw permission", create("keyholder1", "n", []exchange.Permission{exchange.PermSpotWithdrawWrite}, nil), exchange.CodeAPIKeyPermissionUnknown},
		{"unknown permission", create("keyholder1", "n", []exchange.Permission{"SPOT_EVERYTHING"}, nil), exchange.CodeAPIKeyPermissionUnknown},
		{"21 addresses", create("keyholder1", "n", read, ips), exchange.CodeIPInfoIncorrect},
		{"bad address", create("keyholder1", "n", read, []string{"10.0.0.300"}), exchange.CodeBoundIPFormat},
		{"delete unknown key", func() error { return p.DeleteSubAPIKey("keyholder1", "mx0nope") }, exchange.CodeAPIKeyNotExist},
		{"delete without key", func() error { return p.DeleteSubAPIKey("keyholder1", "") }, exchange.CodeAccessKeyNull},
		{"delete on unknown sub", func() error { return p.DeleteSubAPIKey("nobody123", k.APIKey) }, exchange.CodeSubAccountNotExist},
		{"list unknown sub", func() error { _, err := p.SubAPIKeys("nobody123"); return err }, exchange.CodeSubAccountNotExist},
		{"create as the sub", func() error { _, _, err := x.As("1001").CreateSubAPIKey("keyholder1", "n", read, nil); return err }, exchange.CodeNoAuthority},
	})
	if err := p.DeleteSubAPIKey("keyholder1", k.APIKey); err != nil {
		t.Fatal(err)
	}
	keys, _ = p.SubAPIKeys("keyholder1")
	if len(keys) != 29 || keys[0].Note != "k2" {
		t.Errorf("after delete: %d keys, first %q", len(keys), keys[0].Note)
	}
	// With room again, the 30th key is created with the next sequence number.
	k31, _, err := p.CreateSubAPIKey("keyholder1", "again", read, nil)
	if err != nil || k31.APIKey != "mx0"+walletDigest("apikey", "1000", "31")[:29] {
		t.Errorf("key after delete: %+v %v", k31, err)
	}
}

func TestSubUniversalTransfer(t *testing.T) {
	t.Parallel()
	x := fundedWallet(t)
	p := x.Master()
	for _, n := range []string{"alphasub1", "betasub22"} {
		if _, err := p.CreateSubAccount(n, "n"); err != nil {
			t.Fatal(err)
		}
	}
	tr := func(cid, from, to string, ft, tt exchange.AccountType, asset, amount string) exchange.SubTransferRequest {
		return exchange.SubTransferRequest{ClientTranID: cid, FromAccount: from, ToAccount: to, FromAccountType: ft, ToAccountType: tt,
			Asset: asset, Amount: wdec(amount)}
	}
	steps := []exchange.SubTransferRequest{
		tr("c1", "", "alphasub1", "SPOT", "SPOT", "USDT", "100"),
		tr("", "alphasub1", "betasub22", "SPOT", "FUTURES", "USDT", "40"),
		tr("c3", "", "", "SPOT", "FUTURES", "BTC", "0.5"),
		tr("", "betasub22", "", "FUTURES", "SPOT", "USDT", "15"),
	}
	for i, r := range steps {
		x.Advance(time.Second)
		id, err := p.SubUniversalTransfer(r)
		if err != nil || id != fmt.Sprint(i+1) {
			t.Fatalf("step %d: %q %v", i, id, err)
		}
	}
	want := "1000: BTC=1.5/0 USDT=915/0 XRP=100/0 FBTC=0.5 addrs=0 book=0\n" +
		"1001: USDT=60/0 addrs=0 book=0 sub=alphasub1/false/0\n" +
		"1002: FUSDT=25 addrs=0 book=0 sub=betasub22/false/0\n"
	if got := dumpState(x); !strings.HasPrefix(got, want) {
		t.Errorf("balances:\n%s\nwant prefix\n%s", got, want)
	}
	// The same clientTranId and request again: the first id, nothing moves.
	before := dumpState(x)
	if id, err := p.SubUniversalTransfer(steps[0]); err != nil || id != "1" || dumpState(x) != before {
		t.Errorf("idempotent repeat: %q %v", id, err)
	}
	hist := func(r exchange.SubTransferHistoryRequest) string {
		recs, total, err := p.SubTransferHistory(r)
		if err != nil {
			return fmt.Sprintf("code %d", codeOfErr(err))
		}
		var s []string
		for _, t := range recs {
			s = append(s, t.TranID+":"+t.FromAccount+">"+t.ToAccount)
		}
		return fmt.Sprintf("%d: %s", total, strings.Join(s, ","))
	}
	tests := []struct {
		name string
		r    exchange.SubTransferHistoryRequest
		want string
	}{
		{"spot to spot", exchange.SubTransferHistoryRequest{FromAccountType: "SPOT", ToAccountType: "SPOT"}, "1: 1:1000>alphasub1"},
		{"spot to futures", exchange.SubTransferHistoryRequest{FromAccountType: "SPOT", ToAccountType: "FUTURES"}, "2: 3:1000>1000,2:alphasub1>betasub22"},
		{"from a sub", exchange.SubTransferHistoryRequest{FromAccountType: "SPOT", ToAccountType: "FUTURES", FromAccount: "alphasub1"}, "1: 2:alphasub1>betasub22"},
		{"by clientTranId", exchange.SubTransferHistoryRequest{FromAccountType: "SPOT", ToAccountType: "FUTURES", ClientTranID: "c3"}, "1: 3:1000>1000"},
		{"limit 1 page 2", exchange.SubTransferHistoryRequest{FromAccountType: "SPOT", ToAccountType: "FUTURES", Limit: 1, Page: 2}, "2: 2:alphasub1>betasub22"},
		{"time window", exchange.SubTransferHistoryRequest{FromAccountType: "SPOT", ToAccountType: "FUTURES", Start: wT0.Add(3 * time.Second)}, "1: 3:1000>1000"},
		{"limit 501", exchange.SubTransferHistoryRequest{FromAccountType: "SPOT", ToAccountType: "SPOT", Limit: 501}, "code 33333"},
		{"unknown account", exchange.SubTransferHistoryRequest{FromAccountType: "SPOT", ToAccountType: "SPOT", ToAccount: "nobody123"}, "code 140001"},
		{"no types", exchange.SubTransferHistoryRequest{}, "code 33333"},
	}
	for _, tt := range tests {
		if got := hist(tt.r); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
	recs, _, _ := p.SubTransferHistory(exchange.SubTransferHistoryRequest{FromAccountType: "SPOT", ToAccountType: "SPOT"})
	wantRec := exchange.TransferRecord{TranID: "1", ClientTranID: "c1", FromAccount: "1000", ToAccount: "alphasub1", FromAccountType: "SPOT",
		ToAccountType: "SPOT", Asset: "USDT", Amount: wdec("100"), Status: "SUCCESS", Timestamp: wT0.Add(time.Second)}
	if fmt.Sprint(recs[0]) != fmt.Sprint(wantRec) {
		t.Errorf("record\n got %+v\nwant %+v", recs[0], wantRec)
	}
	// Sub-account transfers are not the master's own universal transfers.
	if _, err := p.TransferByID("3"); codeOfErr(err) != exchange.CodeRecordNotExist {
		t.Errorf("TransferByID of a sub-account transfer: %v", err)
	}
	if err := x.FreezeSubAccount("betasub22", true); err != nil {
		t.Fatal(err)
	}
	sub := func(r exchange.SubTransferRequest) func() error {
		return func() error { _, err := p.SubUniversalTransfer(r); return err }
	}
	checkRefusals(t, x, []refusal{
		{"clientTranId reused", sub(tr("c1", "", "alphasub1", "SPOT", "SPOT", "USDT", "101")), exchange.CodeParameterError},
		{"clientTranId too long", sub(tr(strings.Repeat("a", 33), "", "alphasub1", "SPOT", "SPOT", "USDT", "1")), exchange.CodeParameterError},
		{"clientTranId not alphanumeric", sub(tr("c-1", "", "alphasub1", "SPOT", "SPOT", "USDT", "1")), exchange.CodeParameterError},
		{"frozen", sub(tr("", "", "betasub22", "SPOT", "SPOT", "USDT", "1")), exchange.CodeSubAccountForbidden},
		{"unknown sub", sub(tr("", "nobody123", "", "SPOT", "SPOT", "USDT", "1")), exchange.CodeSubAccountNotExist},
		{"same wallet", sub(tr("", "alphasub1", "alphasub1", "SPOT", "SPOT", "USDT", "1")), exchange.CodeTransferAccount},
		{"bad type", sub(tr("", "", "alphasub1", "SPOT", "MARGIN", "USDT", "1")), exchange.CodeParameterError},
		{"above balance", sub(tr("", "alphasub1", "", "SPOT", "SPOT", "USDT", "60.01")), exchange.CodeInsufficientBalance},
		{"zero", sub(tr("", "alphasub1", "", "SPOT", "SPOT", "USDT", "0")), exchange.CodeAmountNotPositive},
		{"decimals", sub(tr("", "alphasub1", "", "SPOT", "SPOT", "USDT", "0.001")), exchange.CodeAmountTooManyDecimals},
		{"unknown asset", sub(tr("", "alphasub1", "", "SPOT", "SPOT", "NOPE", "1")), exchange.CodeCurrencyNotExist},
		{"as a sub", func() error {
			_, err := x.As("1001").SubUniversalTransfer(tr("", "", "alphasub1", "SPOT", "SPOT", "USDT", "1"))
			return err
		}, exchange.CodeNoAuthority},
	})
}

func TestSubAssets(t *testing.T) {
	t.Parallel()
	x := fundedWallet(t)
	p := x.Master()
	s, err := p.CreateSubAccount("assetsub1", "n")
	if err != nil {
		t.Fatal(err)
	}
	empty, err := p.SubAssets("assetsub1", exchange.AccountSpot)
	if err != nil || empty == nil || len(empty) != 0 {
		t.Errorf("empty sub: %#v %v", empty, err)
	}
	if err := x.Credit(s.UID, "BTC", wdec("0.3")); err != nil {
		t.Fatal(err)
	}
	bals, err := p.SubAssets("assetsub1", exchange.AccountSpot)
	if err != nil || fmt.Sprint(bals) != fmt.Sprint([]exchange.Balance{{Asset: "BTC", Free: wdec("0.3"), Locked: wdec("0"), Available: wdec("0.3")}}) {
		t.Errorf("assets: %+v %v", bals, err)
	}
	checkRefusals(t, x, []refusal{
		{"futures", func() error { _, err := p.SubAssets("assetsub1", exchange.AccountFutures); return err }, exchange.CodeUnsupportedOperation},
		{"no type", func() error { _, err := p.SubAssets("assetsub1", ""); return err }, exchange.CodeParameterNull},
		{"bad type", func() error { _, err := p.SubAssets("assetsub1", "MARGIN"); return err }, exchange.CodeParameterError},
		{"unknown", func() error { _, err := p.SubAssets("nobody123", exchange.AccountSpot); return err }, exchange.CodeSubAccountNotExist},
		{"no name", func() error { _, err := p.SubAssets("", exchange.AccountSpot); return err }, exchange.CodeSubAccountNameNull},
		{"as the sub", func() error { _, err := x.As(s.UID).SubAssets("assetsub1", exchange.AccountSpot); return err }, exchange.CodeNoAuthority},
	})
}
