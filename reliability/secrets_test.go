package reliability

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/simserver"
)

// bodyTap records the reply bodies of sub-account key creation, the one
// place a secret legitimately crosses the wire, so the test knows the
// secret it must never see again.
type bodyTap struct {
	mu      sync.Mutex
	secrets []string
}

func (b *bodyTap) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || r.URL.Path != "/api/v3/sub-account/apiKey" || r.Method != "POST" {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var k struct {
		SecretKey string `json:"secretKey"`
	}
	if json.Unmarshal(body, &k) == nil && k.SecretKey != "" {
		b.mu.Lock()
		b.secrets = append(b.secrets, k.SecretKey)
		b.mu.Unlock()
	}
	return resp, nil
}

// TestSecretsNeverPrinted drives the client and the server through
// successes, refusals, faults, timeouts, a dead server and a malformed
// reply, with both logging at debug level, and then scans everything
// either wrote (the client's slog output, the server's log and request
// log, every error's text in every format, the client and a sub-account
// key printed and logged) for the API secret of the client, of a
// sub-account key it created, and of a wrong secret it tried; and for
// signed query strings, which can be replayed within recvWindow.
func TestSecretsNeverPrinted(t *testing.T) {
	t.Parallel()
	debug := &slog.HandlerOptions{Level: slog.LevelDebug}
	var srvLog, cliLog bytes.Buffer
	var logMu sync.Mutex
	r := newRig(t, simserver.Options{Limits: simserver.Limits{Off: true}, Logger: slog.New(slog.NewTextHandler(&lockedWriter{&logMu, &srvLog}, debug))})
	logger := slog.New(slog.NewTextHandler(&lockedWriter{&logMu, &cliLog}, debug))
	tap := &bodyTap{}
	ctx := t.Context()
	newClient := func(base, key string, secret exchange.Secret, opts ...exchange.Option) *exchange.Client {
		c, err := exchange.New(append([]exchange.Option{exchange.WithBaseURL(base), exchange.WithCredentials(exchange.NewSecret(key), secret),
			exchange.WithClock(r.x), exchange.WithLimits(nil), exchange.WithLogger(logger),
			exchange.WithHTTPClient(&http.Client{Transport: tap, Timeout: 5 * time.Second})}, opts...)...)
		must(t, err)
		return c
	}
	master := newClient(r.url, masterKey, exchange.NewSecret(masterSecret))
	var errs []error
	expectErr := func(what string, err error) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: no error", what)
			return
		}
		errs = append(errs, err)
	}

	// Successes and refusals.
	_, err := master.SyncTime(ctx)
	must(t, err)
	_, err = master.Spot.NewOrder(ctx, bid("BTCUSDT", "0.001", "15000"))
	must(t, err)
	_, err = master.Spot.CancelOrder(ctx, exchange.CancelOrderRequest{Symbol: "BTCUSDT", OrderID: "999"})
	expectErr("unknown order", err)
	_, err = master.Sub.CreateSubAccount(ctx, "secretsub01", "secrets")
	must(t, err)
	k, err := master.Sub.CreateSubAPIKey(ctx, exchange.SubAPIKeyRequest{SubAccount: "secretsub01", Note: "bot",
		Permissions: []exchange.Permission{exchange.PermSpotAccountRead, exchange.PermSpotDealRead, exchange.PermSpotDealWrite}})
	must(t, err)
	sub := newClient(r.url, k.APIKey, k.SecretKey)
	if _, err := sub.Spot.Account(ctx); err != nil {
		t.Fatalf("the created key does not work: %v", err)
	}
	_, err = sub.Spot.NewOrder(ctx, bid("BTCUSDT", "0.001", "15000"))
	expectErr("sub-account without funds", err)
	_, err = sub.Sub.SubAccounts(ctx, exchange.SubAccountsRequest{})
	expectErr("sub-account key on a main-only endpoint", err)
	const wrongSecret = "ffffeeeeddddccccbbbbaaaa99998888"
	_, err = newClient(r.url, masterKey, exchange.NewSecret(wrongSecret)).Spot.Account(ctx)
	expectErr("wrong secret", err)

	// Faults: 5XX before and after acting, a dropped connection, a 429
	// storm, a timeout.
	for _, f := range []simserver.Fault{{Before5XX: 1}, {After5XX: 1}, {DropAfter: 1}} {
		r.s.SetFaults(simserver.Faults{ByEndpoint: map[exchange.EndpointID]simserver.Fault{exchange.EpNewOrder: f}})
		_, err = master.Spot.NewOrder(ctx, bid("BTCUSDT", "0.001", "15000"))
		expectErr(fmt.Sprintf("fault %+v", f), err)
	}
	r.s.SetFaults(simserver.Faults{Storm429Until: r.x.Now().Add(time.Hour)})
	_, err = master.Spot.Account(ctx)
	expectErr("429 storm", err)
	r.s.SetFaults(simserver.Faults{Default: simserver.Fault{Latency: 300 * time.Millisecond}})
	_, err = newClient(r.url, masterKey, exchange.NewSecret(masterSecret), exchange.WithTimeout(20*time.Millisecond)).Spot.Account(ctx)
	expectErr("timeout", err)
	r.s.SetFaults(simserver.Faults{})

	// A dead server, and a reply that does not decode but carries a
	// secret (a broken key-creation reply).
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	_, err = newClient(dead.URL, masterKey, exchange.NewSecret(masterSecret)).Spot.Account(ctx)
	expectErr("dead server", err)
	const replySecret = "c0ffee00c0ffee00c0ffee00c0ffee00"
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `{"subAccount":"secretsub01","note":"bot","apiKey":"","secretKey":"`+replySecret+`","creatTime":"x"}`)
	}))
	t.Cleanup(broken.Close)
	_, err = newClient(broken.URL, masterKey, exchange.NewSecret(masterSecret)).Sub.CreateSubAPIKey(ctx,
		exchange.SubAPIKeyRequest{SubAccount: "secretsub01", Note: "bot", Permissions: []exchange.Permission{exchange.PermSpotAccountRead}})
	expectErr("undecodable key reply", err)

	// Everything printed or logged.
	logger.Info("values", "client", master, "key", k, "secret", k.SecretKey)
	kj, err := json.Marshal(k)
	must(t, err)
	texts := map[string]string{
		"client printed": fmt.Sprintf("%v %+v %#v %s", master, master, master, master),
		"key printed":    fmt.Sprintf("%v %+v %#v", k, k, k),
		"key as JSON":    string(kj),
		"request log":    fmt.Sprintf("%+v", r.s.Requests()),
		"client slog":    locked(&logMu, &cliLog),
		"server slog":    locked(&logMu, &srvLog),
	}
	for i, e := range errs {
		texts[fmt.Sprintf("error %d", i)] = fmt.Sprintf("%v | %+v | %#v", e, e, e)
	}
	if len(tap.secrets) != 2 || len(tap.secrets[0]) < 16 || tap.secrets[1] != replySecret {
		t.Fatalf("tapped %d secrets", len(tap.secrets))
	}
	secrets := map[string]string{"client secret": masterSecret, "sub-account key secret": tap.secrets[0],
		"wrong secret": wrongSecret, "secret in a broken reply": replySecret}
	for where, text := range texts {
		for what, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s carries the %s: %s", where, what, text)
			}
		}
		if where != "request log" && strings.Contains(text, "signature=") {
			t.Errorf("%s carries a signed query: %s", where, text)
		}
	}

	// The scan saw real output: every error kind, and debug lines of the
	// client.
	if len(errs) != 11 {
		t.Errorf("%d errors collected, want 11", len(errs))
	}
	for _, want := range []string{"level=DEBUG msg=request endpoint=newOrder status=200", "level=DEBUG msg=\"clock synced\"",
		"level=DEBUG msg=\"request failed\" endpoint=account sent=false", "SecretKey:REDACTED", "secret=REDACTED"} {
		if !strings.Contains(texts["client slog"], want) {
			t.Errorf("client log lacks %q:\n%s", want, texts["client slog"])
		}
	}
	var unknown *exchange.UnknownOutcomeError
	var decode *exchange.DecodeError
	switch {
	case !errors.As(errs[5], &unknown):
		t.Errorf("error 5 is %T, want the 5XX-after-acting unknown outcome", errs[5])
	case !errors.As(errs[10], &decode) || decode.Body != "(withheld: the reply carries a secret key)":
		t.Errorf("error 10 is %#v, want a decode error with the body withheld", errs[10])
	}
}

// lockedWriter serialises writes of concurrent loggers into one buffer.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func locked(mu *sync.Mutex, b *bytes.Buffer) string {
	mu.Lock()
	defer mu.Unlock()
	return b.String()
}
