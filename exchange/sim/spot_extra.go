package sim

import (
	"context"

	"github.com/spotbot/spotbot/exchange"
)

// TokDeduct reports whether the account pays fees in the platform token.
func (p *Port) TokDeduct(ctx context.Context) (bool, error) {
	a, err := p.enter(exchange.EpGetTokDeduct)
	if err != nil {
		return false, err
	}
	defer p.leave()
	return a.tokDeduct, nil
}

// KYCStatus returns the account's KYC level: "1" unverified (the default),
// "2" primary, "3" advanced, "4" institutional.
func (p *Port) KYCStatus(ctx context.Context) (string, error) {
	a, err := p.enter(exchange.EpKYCStatus)
	if err != nil {
		return "", err
	}
	defer p.leave()
	if a.kyc == "" {
		return "1", nil
	}
	return a.kyc, nil
}

// SetKYC sets an account's KYC level (a control call; "1" to "4").
func (x *Exchange) SetKYC(uid, level string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	a, ok := x.accounts[uid]
	if !ok {
		return apiErr(exchange.CodeUserNotExist, "user %s does not exist", uid)
	}
	switch level {
	case "1", "2", "3", "4":
		a.kyc = level
		return nil
	}
	return apiErr(exchange.CodeParameterError, "KYC level %q is not 1, 2, 3 or 4", level)
}

// SelfSymbols lists the symbols the account may trade through the API (the
// default symbols: every account may trade all of them).
func (p *Port) SelfSymbols(ctx context.Context) ([]string, error) {
	if _, err := p.enter(exchange.EpSelfSymbols); err != nil {
		return nil, err
	}
	p.leave()
	return p.x.DefaultSymbols(), nil
}

// HasAccount reports whether uid is an account of the exchange.
func (x *Exchange) HasAccount(uid string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	_, ok := x.accounts[uid]
	return ok
}

// HasSymbol reports whether symbol is listed (in any status).
func (x *Exchange) HasSymbol(symbol string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	_, ok := x.markets[symbol]
	return ok
}

// DiscardEvents drops the account's undelivered order events, for callers
// that never read them (the HTTP server), so they do not pile up.
func (p *Port) DiscardEvents() {
	p.x.mu.Lock()
	defer p.x.mu.Unlock()
	if a, ok := p.account(); ok {
		p.x.queued.Add(-int64(len(a.events)))
		clear(a.events)
		a.events = a.events[:0]
		clear(a.evTrades) // the dropped events' trades: never handed out
		a.evTrades = a.evTrades[:0]
	}
}
