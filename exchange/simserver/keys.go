package simserver

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"net/netip"
	"strconv"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

// Key is an API key the server accepts.
type Key struct {
	APIKey      string
	Secret      string
	UID         string // the account the key acts for
	Main        bool   // a main-account key (sub-account endpoints need one)
	Permissions []exchange.Permission
	// IPs binds the key to addresses; empty means any address.
	IPs []string
}

func (k *Key) allows(p exchange.Permission) bool {
	if p == "" {
		return true
	}
	for _, have := range k.Permissions {
		if have == p {
			return true
		}
	}
	return false
}

func (k *Key) allowsIP(ip string) bool {
	if len(k.IPs) == 0 {
		return true
	}
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	for _, s := range k.IPs {
		if a, err := netip.ParseAddr(s); err == nil && a == addr {
			return true
		}
	}
	return false
}

// AllPermissions is every permission an endpoint may need, for keys that
// may do everything.
func AllPermissions() []exchange.Permission {
	return append(exchange.KeyPermissions(), exchange.PermSpotWithdrawRead, exchange.PermSpotWithdrawWrite)
}

// authenticate checks a signed request: the key exists and fits the
// endpoint and address, the signature matches the signed text (compared in
// constant time), and the timestamp is inside recvWindow of the server
// clock: timestamp < serverTime + 1000 and serverTime − timestamp ≤
// recvWindow, recvWindow < 60000.
func (s *Server) authenticate(ep *exchange.Endpoint, apiKey, ip string, p *params, now time.Time) (*Key, *apiError) {
	if apiKey == "" {
		return nil, &apiError{status: 401, code: exchange.CodeAPIKeyRequired, msg: "API key required"}
	}
	k := s.key(apiKey)
	if k == nil {
		return nil, &apiError{status: 401, code: exchange.CodeInvalidAccessKey, msg: "invalid access key"}
	}
	if !k.allowsIP(ip) {
		return nil, &apiError{status: 401, code: exchange.CodeIPNotWhitelisted, msg: "IP [" + ip + "] not in the ip white list"}
	}
	if ep.MainOnly && !k.Main {
		return nil, &apiError{status: 401, code: exchange.CodeNoAuthority, msg: "sub-account endpoints need a main-account key"}
	}
	if !k.allows(ep.Permission) {
		return nil, &apiError{status: 401, code: exchange.CodeNoEndpointPermission, msg: "no permission to access the endpoint"}
	}
	if p.signature == "" {
		return nil, badParam(exchange.CodeParameterNull, "parameter signature cannot be null")
	}
	mac := hmac.New(sha256.New, []byte(k.Secret))
	mac.Write([]byte(p.signedText))
	want := mac.Sum(nil)
	got, err := hex.DecodeString(p.signature)
	// Uppercase hex is not accepted, as the spec says.
	if err != nil || p.signature != hex.EncodeToString(got) || !hmac.Equal(got, want) {
		return nil, badParam(exchange.CodeSignatureInvalid, "signature for this request is not valid")
	}
	ts, perr := p.required("timestamp")
	if perr != nil {
		return nil, perr
	}
	tsMs, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return nil, badParam(exchange.CodeParameterError, "parameter timestamp: %q is not an integer", ts)
	}
	window, perr := p.int64("recvWindow", 5000)
	if perr != nil {
		return nil, perr
	}
	if window <= 0 || window >= 60000 {
		return nil, badParam(exchange.CodeRecvWindowTooLarge, "recvWindow must be less than 60000")
	}
	server := now.UnixMilli()
	if !inWindow(tsMs, server, window) {
		return nil, badParam(exchange.CodeTimestampOutsideWindow, "request timestamp %d is outside the recvWindow (server time %d)", tsMs, server)
	}
	return k, nil
}

// inWindow is the spec's timestamp check, timestamp < server + 1000 and
// server − timestamp ≤ window, computed without overflow for every int64
// (window > 0): subtracting an extreme timestamp in int64 wrapped around,
// and timestamp −2⁶³ passed for ever. Each side is compared only where it
// is representable; a bound beyond int64 is met by every timestamp.
func inWindow(ts, server, window int64) bool {
	// ts < server + 1000
	if server <= math.MaxInt64-1000 && ts >= server+1000 {
		return false
	}
	// ts ≥ server − window
	if server >= math.MinInt64+window && ts < server-window {
		return false
	}
	return true
}
