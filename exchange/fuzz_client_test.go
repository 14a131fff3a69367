package exchange

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// replyTransport answers every request with one canned reply, without a
// network: the fuzzer's status, Retry-After and body.
type replyTransport struct {
	status     int
	retryAfter string
	body       []byte
}

func (rt *replyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	h := http.Header{"Content-Type": {"application/json"}}
	if rt.retryAfter != "" {
		h.Set("Retry-After", rt.retryAfter)
	}
	return &http.Response{StatusCode: rt.status, Header: h, Body: io.NopCloser(bytes.NewReader(rt.body)),
		ContentLength: int64(len(rt.body)), Request: r}, nil
}

// fuzzStatuses are the statuses a reply is given, chosen by the input.
var fuzzStatuses = [...]int{200, 200, 200, 200, 204, 400, 401, 403, 404, 413, 418, 429, 500, 502, 503, 504}

// FuzzClientReplies answers a call of every endpoint's client method with
// arbitrary status, Retry-After and body, so every reply decoder the client
// has (plain, enveloped, validated, lists, pages, batch items, error
// bodies) sees hostile input through the path real replies take. None may
// panic; each failure must be the typed error its status calls for; no
// error may carry the API secret.
func FuzzClientReplies(f *testing.F) {
	calls := map[EndpointID]func(context.Context, *Client) error{}
	for _, m := range []map[EndpointID]func(context.Context, *Client) error{marketCalls, spotCalls, subCalls, walletCalls} {
		for id, fn := range m {
			calls[id] = fn
		}
	}
	ids := make([]EndpointID, 0, len(calls))
	for id := range calls {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if len(ids) != NumEndpoints {
		f.Fatalf("%d endpoints have a call, want all %d", len(ids), NumEndpoints)
	}
	for i, s := range []string{
		exchangeInfoReply, `{"symbol":"BTCUSDT","orderId":"1","orderListId":"-1","Qty":"1","status":"NEW","isWorking":"true","time":"1"}`,
		`[{"symbol":"BTCUSDT","orderId":"1"},{"newClientOrderId":"a","code":30004,"msg":"x"}]`,
		`{"code":0,"data":["BTCUSDT"],"msg":null}`, `{"code":"200","data":{"tokDeductEnable":"true"},"timestamp":"1"}`,
		`{"code":700002,"msg":"signature for this request is not valid"}`, `{"tranId":"17"}`, `[{"tranId":1}]`,
		`{"rows":[{"tranId":"1","amount":"2"}],"total":"1"}`, `{"data":{"resultList":[]}}`, `<html>403</html>`,
		`{"balances":[{"asset":"BTC","free":"1","locked":"0"}],"canTrade":true}`, `[[1640995200000,"1","2","0.5","1.5","10",1640998799999,"3"]]`,
		`{"serverTime":1644489390087}`, `{"mins":5,"price":"1.5"}`, `{"lastUpdateId":1,"bids":[["1","2"]],"asks":[]}`, ``, `null`, `1e400`,
	} {
		f.Add(uint8(i), uint8(0), "", []byte(s))
	}
	f.Add(uint8(0), uint8(11), "5", []byte(`{"code":429,"msg":"too many requests"}`))
	f.Add(uint8(1), uint8(10), "Wed, 21 Oct 2015 07:28:00 GMT", []byte(`{"code":429}`))
	f.Add(uint8(2), uint8(14), "", []byte(`{"code":503,"msg":"service not available"}`))

	f.Fuzz(func(t *testing.T, ep, status uint8, retryAfter string, body []byte) {
		id := ids[int(ep)%len(ids)]
		st := fuzzStatuses[int(status)%len(fuzzStatuses)]
		rt := &replyTransport{status: st, retryAfter: retryAfter, body: body}
		c, err := New(WithBaseURL("http://127.0.0.1:1"), WithCredentials(NewSecret(testKey), NewSecret(testSecret)),
			WithClock(newFakeClock(testNow)), WithHTTPClient(&http.Client{Transport: rt}), WithLimits(nil))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err = calls[id](ctx, c)
		var ve *ValidationError
		var re *RuleError
		switch {
		case errors.As(err, &ve) || errors.As(err, &re):
			t.Fatalf("%s: the call's own arguments were refused: %v", id, err)
		case st >= 500 && !errors.Is(err, ErrUnknownOutcome):
			t.Fatalf("%s: HTTP %d gave %v, want an unknown outcome", id, st, err)
		case (st == 429 || st == 418) && !errors.Is(err, ErrRateLimited):
			t.Fatalf("%s: HTTP %d gave %v, want a rate-limit error", id, st, err)
		case st >= 400 && st < 500 && st != 429 && st != 418:
			var ae *APIError
			if !errors.As(err, &ae) || ae.Status != st {
				t.Fatalf("%s: HTTP %d gave %v, want an *APIError with that status", id, st, err)
			}
		}
		if err != nil && strings.Contains(err.Error(), testSecret) {
			t.Fatalf("%s: error carries the secret: %v", id, err)
		}
	})
}
