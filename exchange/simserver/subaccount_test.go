package simserver

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/exchange/sim"
)

func TestSubAccountEndpointsEndToEnd(t *testing.T) {
	t.Parallel()
	sv := walletScene(t)
	ctx, sub := t.Context(), sv.master.Sub
	created, err := sub.CreateSubAccount(ctx, "alphasub1", "desk one")
	if err != nil || created.Name != "alphasub1" || created.Note != "desk one" {
		t.Fatalf("create %+v %v", created, err)
	}
	sv.x.Advance(time.Second)
	if _, err := sub.CreateSubAccount(ctx, "betasub22", "desk two"); err != nil {
		t.Fatal(err)
	}
	_, err = sub.CreateSubAccount(ctx, "alphasub1", "again")
	wantAPIError(t, "duplicate name", err, 400, exchange.CodeUserNameExists)
	if st, body := signed(t, sv, apiKey, secret, "POST", "/api/v3/sub-account/virtualSubAccount", "subAccount=bad_name1&note=n"); st != 400 ||
		body != `{"code":730601,"msg":"sub-account name \"bad_name1\" must be 8-32 letters and digits"}` {
		t.Errorf("bad name: %d %s", st, body)
	}
	if err := sv.x.FreezeSubAccount("betasub22", true); err != nil {
		t.Fatal(err)
	}
	yes := true
	list, err := sub.SubAccounts(ctx, exchange.SubAccountsRequest{IsFreeze: &yes})
	want := []exchange.SubAccount{{Name: "betasub22", Note: "desk two", IsFreeze: true, CreateTime: exchangetest.T0.Add(time.Second), UID: "1003"}}
	if err != nil || fmt.Sprint(list) != fmt.Sprint(want) {
		t.Errorf("frozen list\n got %+v %v\nwant %+v", list, err, want)
	}
	all, err := sub.SubAccounts(ctx, exchange.SubAccountsRequest{Limit: 1, Page: 1})
	if err != nil || len(all) != 1 || all[0].Name != "alphasub1" || all[0].UID != "1002" || all[0].IsFreeze {
		t.Errorf("page 1 of 1: %+v %v", all, err)
	}

	key, err := sub.CreateSubAPIKey(ctx, exchange.SubAPIKeyRequest{SubAccount: "alphasub1", Note: "bot",
		Permissions: []exchange.Permission{exchange.PermSpotAccountRead, exchange.PermSpotTransferRead}, IPs: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	if key.SubAccount != "alphasub1" || key.Note != "bot" || len(key.APIKey) != 32 || key.SecretKey.IsZero() ||
		fmt.Sprint(key.Permissions) != "[SPOT_ACCOUNT_READ SPOT_TRANSFER_READ]" || fmt.Sprint(key.IPs) != "[127.0.0.1]" || !key.CreateTime.Equal(exchangetest.T0.Add(time.Second)) {
		t.Errorf("created key %+v", key)
	}
	keys, err := sub.SubAPIKeys(ctx, "alphasub1")
	if err != nil || len(keys) != 1 || keys[0].APIKey != key.APIKey || !keys[0].SecretKey.IsZero() || keys[0].Note != "bot" ||
		fmt.Sprint(keys[0].Permissions) != "[SPOT_ACCOUNT_READ SPOT_TRANSFER_READ]" {
		t.Errorf("listed keys %+v %v", keys, err)
	}
	_, err = sub.CreateSubAPIKey(ctx, exchange.SubAPIKeyRequest{SubAccount: "nobody123", Note: "n", Permissions: []exchange.Permission{exchange.PermSpotDealRead}})
	wantAPIError(t, "key of an unknown sub-account", err, 400, exchange.CodeSubAccountNotExist)
	if st, body := signed(t, sv, apiKey, secret, "POST", "/api/v3/sub-account/apiKey", "subAccount=alphasub1&note=n&permissions=SPOT_WITHDRAW_READ"); st != 400 ||
		body != `{"code":730702,"msg":"API key permission \"SPOT_WITHDRAW_READ\" does not exist"}` {
		t.Errorf("withdraw permission on a sub key: %d %s", st, body)
	}

	// Master to sub, idempotent by clientTranId; then the sub's assets.
	tr := exchange.SubTransferRequest{ClientTranID: "abc123", ToAccount: "alphasub1", FromAccountType: exchange.AccountSpot,
		ToAccountType: exchange.AccountSpot, Asset: "USDT", Amount: dec("50")}
	id, err := sub.UniversalTransfer(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	again, err := sub.UniversalTransfer(ctx, tr)
	if err != nil || again != id {
		t.Errorf("repeat with the same clientTranId: %q %v, want %q", again, err, id)
	}
	assets, err := sub.Assets(ctx, "alphasub1", exchange.AccountSpot)
	if err != nil || fmt.Sprint(assets) != "[{USDT 50 0 0}]" {
		t.Errorf("sub assets %v %v", assets, err)
	}
	_, err = sub.UniversalTransfer(ctx, exchange.SubTransferRequest{ToAccount: "betasub22", FromAccountType: "SPOT", ToAccountType: "SPOT", Asset: "USDT", Amount: dec("1")})
	wantAPIError(t, "transfer to a frozen sub-account", err, 400, exchange.CodeSubAccountForbidden)
	hist, err := sub.UniversalTransferHistory(ctx, exchange.SubTransferHistoryRequest{FromAccountType: exchange.AccountSpot, ToAccountType: exchange.AccountSpot})
	wantRec := exchange.TransferRecord{TranID: id, ClientTranID: "abc123", FromAccount: sv.uids[0], ToAccount: "alphasub1", FromAccountType: "SPOT",
		ToAccountType: "SPOT", Asset: "USDT", Amount: dec("50"), Status: "SUCCESS", Timestamp: exchangetest.T0.Add(time.Second)}
	if err != nil || len(hist) != 1 || fmt.Sprint(hist[0]) != fmt.Sprint(wantRec) {
		t.Errorf("sub transfer history\n got %+v %v\nwant %+v", hist, err, wantRec)
	}
	if st, body := signed(t, sv, apiKey, secret, "GET", "/api/v3/sub-account/asset", "subAccount=alphasub1&accountType=FUTURES"); st != 400 ||
		body != `{"code":730003,"msg":"only the SPOT account type is supported"}` {
		t.Errorf("futures assets: %d %s", st, body)
	}

	// The created key is a key of the server, acting for the sub-account,
	// and is refused on every sub-account endpoint.
	subClient, err := exchange.New(exchange.WithBaseURL(sv.url), exchange.WithCredentials(exchange.NewSecret(key.APIKey), key.SecretKey),
		exchange.WithClock(sv.x), exchange.WithLimits(nil))
	if err != nil {
		t.Fatal(err)
	}
	acct, err := subClient.Spot.Account(ctx)
	if err != nil || fmt.Sprint(acct.Balances) != "[{USDT 50 0 50}]" {
		t.Errorf("the sub key's account: %+v %v", acct, err)
	}
	_, err = subClient.Spot.OpenOrders(ctx, "BTCUSDT")
	wantAPIError(t, "sub key without SPOT_DEAL_READ", err, 401, exchange.CodeNoEndpointPermission)
	_, err = subClient.Sub.SubAccounts(ctx, exchange.SubAccountsRequest{})
	wantAPIError(t, "sub key on the sub-account list", err, 401, exchange.CodeNoAuthority)

	name, err := sub.DeleteSubAPIKey(ctx, "alphasub1", key.APIKey)
	if err != nil || name != "alphasub1" {
		t.Errorf("delete %q %v", name, err)
	}
	_, err = subClient.Spot.Account(ctx)
	wantAPIError(t, "deleted key", err, 401, exchange.CodeInvalidAccessKey)
	_, err = sub.DeleteSubAPIKey(ctx, "alphasub1", key.APIKey)
	wantAPIError(t, "delete twice", err, 400, exchange.CodeAPIKeyNotExist)

	if missing := answered200(sv, "sub-account"); len(missing) > 0 {
		t.Errorf("sub-account endpoints never answered 200: %v", missing)
	}
}

// TestSubKeyRefusedOnEverySubAccountEndpoint: a key that is not a
// main-account key, even with every permission, gets 401 code 401.
func TestSubKeyRefusedOnEverySubAccountEndpoint(t *testing.T) {
	t.Parallel()
	sv := walletScene(t)
	if err := sv.s.AddKey(Key{APIKey: "subkey", Secret: otherSecret, UID: sv.uids[1], Permissions: AllPermissions()}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range exchange.Endpoints() {
		if e.Area != "sub-account" {
			continue
		}
		n++
		st, body := signed(t, sv, "subkey", otherSecret, e.Method, e.Path, "subAccount=alphasub1")
		if st != 401 || body != `{"code":401,"msg":"sub-account endpoints need a main-account key"}` {
			t.Errorf("%s: %d %s", e.Name, st, body)
		}
	}
	if n != 8 {
		t.Errorf("%d sub-account endpoints, want 8", n)
	}
	// A key wrongly marked as a main-account key for another account is
	// still refused: the simulator serves sub-account operations to the
	// master only.
	if err := sv.s.AddKey(Key{APIKey: "fakemain", Secret: otherSecret, UID: sv.uids[1], Main: true, Permissions: AllPermissions()}); err != nil {
		t.Fatal(err)
	}
	if st, body := signed(t, sv, "fakemain", otherSecret, "GET", "/api/v3/sub-account/list", ""); st != 401 ||
		body != `{"code":401,"msg":"sub-account operations need the main account"}` {
		t.Errorf("main-flagged key of another account: %d %s", st, body)
	}
}

// TestPermissionPerEndpoint: for every wallet and sub-account endpoint, a
// main-account key holding every permission but the endpoint's gets 401
// code 700007, and the one holding just that permission gets past the
// permission check.
func TestPermissionPerEndpoint(t *testing.T) {
	t.Parallel()
	x, err := sim.New(sim.Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols()})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(x, Options{Limits: Limits{Off: true}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	sv := &served{x: x, s: s, url: hs.URL}
	n := 0
	for _, e := range exchange.Endpoints() {
		if e.Area != "wallet" && e.Area != "sub-account" {
			continue
		}
		n++
		var without []exchange.Permission
		for _, p := range AllPermissions() {
			if p != e.Permission {
				without = append(without, p)
			}
		}
		lacking, holding := "lack-"+e.Name, "hold-"+e.Name
		if err := s.AddKey(Key{APIKey: lacking, Secret: secret, UID: x.MasterUID(), Main: true, Permissions: without}); err != nil {
			t.Fatal(err)
		}
		if err := s.AddKey(Key{APIKey: holding, Secret: secret, UID: x.MasterUID(), Main: true, Permissions: []exchange.Permission{e.Permission}}); err != nil {
			t.Fatal(err)
		}
		if st, body := signed(t, sv, lacking, secret, e.Method, e.Path, ""); st != 401 || body != `{"code":700007,"msg":"no permission to access the endpoint"}` {
			t.Errorf("%s without %s: %d %s", e.Name, e.Permission, st, body)
		}
		if st, body := signed(t, sv, holding, secret, e.Method, e.Path, ""); st == 401 || strings.Contains(body, "700007") {
			t.Errorf("%s with only %s: %d %s", e.Name, e.Permission, st, body)
		}
	}
	if n != 25 {
		t.Errorf("%d wallet and sub-account endpoints, want 25", n)
	}
}
