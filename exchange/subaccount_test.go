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

var subCalls = map[EndpointID]func(ctx context.Context, c *Client) error{
	EpCreateSubAccount: func(ctx context.Context, c *Client) error {
		_, err := c.Sub.CreateSubAccount(ctx, "trader001", "desk")
		return err
	},
	EpListSubAccounts: func(ctx context.Context, c *Client) error {
		_, err := c.Sub.SubAccounts(ctx, SubAccountsRequest{})
		return err
	},
	EpCreateSubAPIKey: func(ctx context.Context, c *Client) error {
		_, err := c.Sub.CreateSubAPIKey(ctx, SubAPIKeyRequest{SubAccount: "trader001", Note: "n", Permissions: []Permission{PermSpotDealRead}})
		return err
	},
	EpListSubAPIKeys: func(ctx context.Context, c *Client) error { _, err := c.Sub.SubAPIKeys(ctx, "trader001"); return err },
	EpDeleteSubAPIKey: func(ctx context.Context, c *Client) error {
		_, err := c.Sub.DeleteSubAPIKey(ctx, "trader001", "k")
		return err
	},
	EpSubUniversalTransfer: func(ctx context.Context, c *Client) error {
		_, err := c.Sub.UniversalTransfer(ctx, SubTransferRequest{FromAccountType: AccountSpot, ToAccountType: AccountSpot, ToAccount: "trader001", Asset: "USDT", Amount: decimal.NewFromInt(1)})
		return err
	},
	EpSubUniversalTransferHistory: func(ctx context.Context, c *Client) error {
		_, err := c.Sub.UniversalTransferHistory(ctx, SubTransferHistoryRequest{FromAccountType: AccountSpot, ToAccountType: AccountSpot})
		return err
	},
	EpSubAccountAssets: func(ctx context.Context, c *Client) error {
		_, err := c.Sub.Assets(ctx, "trader001", AccountSpot)
		return err
	},
}

func TestSubAccounts(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	handle(t, mux, EpCreateSubAccount, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "subAccount=trader001&note=desk%20one&"+ts)
		reply(w, 200, `{"subAccount":"trader001","note":"desk one"}`)
	})
	handle(t, mux, EpListSubAccounts, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "isFreeze=false&page=2&limit=200&"+ts)
		reply(w, 200, `{"subAccounts":[{"subAccount":"trader001","isFreeze":"false","createTime":"1644489390000","uid":49910594},
			{"subAccount":"trader002","isFreeze":true,"createTime":1644489390001,"uid":"49910595"}]}`)
	})
	ctx := t.Context()
	sa, err := c.Sub.CreateSubAccount(ctx, "trader001", "desk one")
	if err != nil || sa.Name != "trader001" || sa.Note != "desk one" {
		t.Fatalf("CreateSubAccount = %+v, %v", sa, err)
	}
	no := false
	list, err := c.Sub.SubAccounts(ctx, SubAccountsRequest{IsFreeze: &no, Page: 2, Limit: 200})
	if err != nil || len(list) != 2 || list[0].IsFreeze || list[0].UID != "49910594" || list[0].CreateTime.UnixMilli() != 1644489390000 ||
		!list[1].IsFreeze || list[1].UID != "49910595" {
		t.Fatalf("SubAccounts = %+v, %v", list, err)
	}
}

func TestSubAPIKeys(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	const secretKey = "s3cr3t-of-the-sub-key"
	handle(t, mux, EpCreateSubAPIKey, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "subAccount=trader001&note=bot&permissions=SPOT_DEAL_READ%2CSPOT_DEAL_WRITE&ip=10.0.0.1%2C2001%3Adb8%3A%3A1&"+ts)
		reply(w, 200, `{"subAccount":"trader001","note":"bot","apiKey":"mx0pub","secretKey":"`+secretKey+`","permissions":"SPOT_DEAL_READ,SPOT_DEAL_WRITE","ip":"10.0.0.1,2001:db8::1","creatTime":1644489390000}`)
	})
	handle(t, mux, EpListSubAPIKeys, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "subAccount=trader001&"+ts)
		reply(w, 200, `{"subAccount":[{"note":"bot","apiKey":"mx0pub","permissions":"SPOT_DEAL_READ","ip":"","creatTime":"1644489390000"}]}`)
	})
	handle(t, mux, EpDeleteSubAPIKey, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "subAccount=trader001&apiKey=mx0pub&"+ts)
		reply(w, 200, `{"subAccount":"trader001"}`)
	})
	ctx := t.Context()
	k, err := c.Sub.CreateSubAPIKey(ctx, SubAPIKeyRequest{SubAccount: "trader001", Note: "bot",
		Permissions: []Permission{PermSpotDealRead, PermSpotDealWrite}, IPs: []string{"10.0.0.1", "2001:db8::1"}})
	if err != nil || k.APIKey != "mx0pub" || string(k.SecretKey.reveal()) != secretKey || len(k.Permissions) != 2 ||
		k.IPs[1] != "2001:db8::1" || k.CreateTime.UnixMilli() != 1644489390000 {
		t.Fatalf("CreateSubAPIKey = %+v, %v", k, err)
	}
	for _, s := range []string{fmt.Sprintf("%v", k), fmt.Sprintf("%+v", k), fmt.Sprintf("%#v", k)} {
		if strings.Contains(s, secretKey) {
			t.Errorf("secret printed: %s", s)
		}
	}
	keys, err := c.Sub.SubAPIKeys(ctx, "trader001")
	if err != nil || len(keys) != 1 || !keys[0].SecretKey.IsZero() || keys[0].IPs != nil || keys[0].Permissions[0] != PermSpotDealRead {
		t.Fatalf("SubAPIKeys = %+v, %v", keys, err)
	}
	if name, err := c.Sub.DeleteSubAPIKey(ctx, "trader001", "mx0pub"); err != nil || name != "trader001" {
		t.Fatalf("DeleteSubAPIKey = %q, %v", name, err)
	}
}

func TestSubTransfers(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	replies := []string{`{"tranId":"7001"}`, `[{"tranId":7002}]`, `{"tranId":[{"tranId":"7003"}]}`}
	var n int
	handle(t, mux, EpSubUniversalTransfer, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "clientTranId=abc123&toAccount=trader001&fromAccountType=SPOT&toAccountType=FUTURES&asset=USDT&amount=10.5&"+ts)
		reply(w, 200, replies[n])
		n++
	})
	histories := []string{
		`{"result":[{"tranId":"1","fromAccount":"master","toAccount":"trader001","clientTranId":"abc123","asset":"USDT","amount":"10.5","fromAccountType":"SPOT","toAccountType":"FUTURES","fromSymbol":"","toSymbol":"","status":"SUCCESS","timestamp":1644489390000}],"totalCount":1}`,
		`[{"tranId":2,"asset":"BTC","amount":0.1,"status":"WAIT","timestamp":"1644489390001"}]`,
		`{"tranId":"3","asset":"ETH","amount":"1","status":"FAILED"}`,
	}
	var h int
	handle(t, mux, EpSubUniversalTransferHistory, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "fromAccountType=SPOT&toAccountType=FUTURES&startTime=1644400000000&endTime=1644489390000&page=1&limit=500&"+ts)
		reply(w, 200, histories[h])
		h++
	})
	handle(t, mux, EpSubAccountAssets, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, "subAccount=trader001&accountType=SPOT&"+ts)
		reply(w, 200, `{"balances":[{"asset":"USDT","free":"10.5","locked":"0"}]}`)
	})
	ctx := t.Context()
	req := SubTransferRequest{ClientTranID: "abc123", ToAccount: "trader001", FromAccountType: AccountSpot, ToAccountType: AccountFutures,
		Asset: "USDT", Amount: decimal.RequireFromString("10.50")}
	for _, want := range []string{"7001", "7002", "7003"} {
		if id, err := c.Sub.UniversalTransfer(ctx, req); err != nil || id != want {
			t.Errorf("UniversalTransfer = %q, %v; want %s", id, err, want)
		}
	}
	hr := SubTransferHistoryRequest{FromAccountType: AccountSpot, ToAccountType: AccountFutures, Start: time.UnixMilli(1644400000000),
		End: time.UnixMilli(1644489390000), Page: 1, Limit: 500}
	for i, want := range []string{"1:abc123:10.5:SUCCESS", "2::0.1:WAIT", "3::1:FAILED"} {
		recs, err := c.Sub.UniversalTransferHistory(ctx, hr)
		if err != nil || len(recs) != 1 {
			t.Fatalf("history shape %d: %v %v", i, recs, err)
		}
		r := recs[0]
		if got := r.TranID + ":" + r.ClientTranID + ":" + r.Amount.String() + ":" + r.Status; got != want {
			t.Errorf("history shape %d: %s, want %s", i, got, want)
		}
	}
	bal, err := c.Sub.Assets(ctx, "trader001", AccountSpot)
	if err != nil || len(bal) != 1 || bal[0].Free.String() != "10.5" {
		t.Fatalf("Assets = %+v, %v", bal, err)
	}
}

func TestSubAccountValidation(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	noCall(t, mux)
	ctx := t.Context()
	one := decimal.NewFromInt(1)
	tests := []struct {
		name  string
		err   error
		field string
	}{
		{"short name", func() error { _, err := c.Sub.CreateSubAccount(ctx, "abc", "n"); return err }(), "subAccount"},
		{"long name", func() error { _, err := c.Sub.CreateSubAccount(ctx, strings.Repeat("a", 33), "n"); return err }(), "subAccount"},
		{"name chars", func() error { _, err := c.Sub.CreateSubAccount(ctx, "trader_01", "n"); return err }(), "subAccount"},
		{"no note", func() error { _, err := c.Sub.CreateSubAccount(ctx, "trader001", ""); return err }(), "note"},
		{"list limit", func() error { _, err := c.Sub.SubAccounts(ctx, SubAccountsRequest{Limit: 201}); return err }(), "limit"},
		{"no permissions", func() error {
			_, err := c.Sub.CreateSubAPIKey(ctx, SubAPIKeyRequest{SubAccount: "trader001", Note: "n"})
			return err
		}(), "permissions"},
		{"bad permission", func() error {
			_, err := c.Sub.CreateSubAPIKey(ctx, SubAPIKeyRequest{SubAccount: "trader001", Note: "n", Permissions: []Permission{"SPOT_WITHDRAW_WRITE"}})
			return err
		}(), "permissions"},
		{"bad ip", func() error {
			_, err := c.Sub.CreateSubAPIKey(ctx, SubAPIKeyRequest{SubAccount: "trader001", Note: "n", Permissions: []Permission{PermSpotDealRead}, IPs: []string{"10.0.0"}})
			return err
		}(), "ip"},
		{"too many ips", func() error {
			ips := make([]string, 21)
			for i := range ips {
				ips[i] = fmt.Sprintf("10.0.0.%d", i)
			}
			_, err := c.Sub.CreateSubAPIKey(ctx, SubAPIKeyRequest{SubAccount: "trader001", Note: "n", Permissions: []Permission{PermSpotDealRead}, IPs: ips})
			return err
		}(), "ip"},
		{"tran id", func() error {
			_, err := c.Sub.UniversalTransfer(ctx, SubTransferRequest{ClientTranID: "a-b", FromAccountType: AccountSpot, ToAccountType: AccountSpot, Asset: "USDT", Amount: one})
			return err
		}(), "clientTranId"},
		{"account type", func() error {
			_, err := c.Sub.UniversalTransfer(ctx, SubTransferRequest{FromAccountType: "MARGIN", ToAccountType: AccountSpot, Asset: "USDT", Amount: one})
			return err
		}(), "fromAccountType"},
		{"zero amount", func() error {
			_, err := c.Sub.UniversalTransfer(ctx, SubTransferRequest{FromAccountType: AccountSpot, ToAccountType: AccountSpot, Asset: "USDT"})
			return err
		}(), "amount"},
		{"assets type", func() error { _, err := c.Sub.Assets(ctx, "trader001", AccountFutures); return err }(), "accountType"},
	}
	for _, tt := range tests {
		var ve *ValidationError
		if !errors.As(tt.err, &ve) || ve.Field != tt.field {
			t.Errorf("%s: %v, want a validation error on %s", tt.name, tt.err, tt.field)
		}
	}
}
