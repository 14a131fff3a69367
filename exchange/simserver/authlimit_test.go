package simserver

import (
	"testing"
	"time"
)

// Failed authentication draws the endpoint's weight from the caller's IP
// budget, so guessing keys or signatures is throttled (429) and then
// banned (418) like any other excess; a banned address gets 418 before its
// key or signature is even looked at. Before, a refused authentication
// counted nothing (every guess answered 401 or 700002 for ever) and a
// banned address with a bad key got 401.
func TestFailedAuthenticationDrawsOnTheIPBudget(t *testing.T) {
	t.Parallel()
	s, hs, clk := protoServer(t, Options{Limits: Limits{BanAfter: 3, TimeScale: 0.001}})
	// The account endpoint weighs 10: 30 refused guesses fill the IP
	// budget of 300 per 10 s.
	q := "timestamp=1644489390087"
	bad := hs.URL + "/api/v3/account?" + q + "&signature=" + sign("timestamp=1")
	for i := range 30 {
		if st, body, _ := do(t, "GET", bad, "", keyHdr); st != 400 || body != `{"code":700002,"msg":"signature for this request is not valid"}` {
			t.Fatalf("guess %d: %d %s", i, st, body)
		}
	}
	want := []struct {
		status int
		body   string
		retry  string
	}{
		{429, `{"code":429,"msg":"too many requests (ip budget)"}`, "10"},
		{429, `{"code":429,"msg":"too many requests (ip budget)"}`, "10"},
		{418, `{"code":429,"msg":"IP banned for repeated rate-limit violations"}`, "1"},
	}
	for i, w := range want {
		if st, body, ra := do(t, "GET", bad, "", keyHdr); st != w.status || body != w.body || ra != w.retry {
			t.Fatalf("guess %d over the budget: %d %s Retry-After %q, want %d %s %q", 31+i, st, body, ra, w.status, w.body, w.retry)
		}
	}
	// Banned: 418 before authentication, whatever the key; the public
	// endpoints too.
	for _, key := range []string{apiKey, "unknown", ""} {
		good := hs.URL + "/api/v3/account?" + q + "&signature=" + sign(q)
		if st, body, _ := do(t, "GET", good, "", map[string]string{"X-SVC-APIKEY": key}); st != 418 || body != `{"code":429,"msg":"IP banned until 2022-02-10T10:36:30Z"}` {
			t.Errorf("banned address, key %q: %d %s", key, st, body)
		}
	}
	// The ban (2 minutes × 0.001) and the window pass: served again.
	clk.Set(testNow.Add(10*time.Second + 121*time.Millisecond))
	q2 := "timestamp=" + "1644489400208"
	if st, body, _ := do(t, "GET", hs.URL+"/api/v3/account?"+q2+"&signature="+sign(q2), "", keyHdr); st != 200 {
		t.Errorf("after the ban: %d %s", st, body)
	}
	var codes []int
	for _, r := range s.Requests() {
		codes = append(codes, r.Status)
	}
	if n := len(codes); n != 37 || codes[29] != 400 || codes[30] != 429 || codes[32] != 418 || codes[35] != 418 || codes[36] != 200 {
		t.Errorf("request log statuses %v", codes)
	}
}
