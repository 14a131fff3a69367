package sim

import (
	"context"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// dustQuote is the asset dust is valued in.
const dustQuote = "USDT"

// dustConversion is one past conversion, for the history.
type dustConversion struct {
	uid     string
	at      time.Time
	total   decimal.Decimal
	fee     decimal.Decimal
	details []exchange.DustDetail
}

// dustValue values a free balance in USDT at the last price of ASSETUSDT.
func (x *Exchange) dustValue(asset string, amount decimal.Decimal) (decimal.Decimal, bool) {
	if asset == dustQuote {
		return amount, true
	}
	m, ok := x.markets[asset+dustQuote]
	if !ok || !m.price().IsPositive() {
		return decimal.Zero, false
	}
	return amount.Mul(m.price()), true
}

func (x *Exchange) tokenPrice() (decimal.Decimal, bool) {
	m, ok := x.markets[x.opts.Token+dustQuote]
	if !ok || !m.price().IsPositive() {
		return decimal.Zero, false
	}
	return m.price(), true
}

// candidate judges one asset; Code and Message say why it cannot convert.
func (x *Exchange) candidate(asset string, free decimal.Decimal) exchange.DustCandidate {
	c := exchange.DustCandidate{Asset: asset, Balance: free}
	val, ok := x.dustValue(asset, free)
	tok, tokOK := x.tokenPrice()
	switch {
	case asset == dustQuote || asset == x.opts.Token:
		c.Code, c.Message = "30020", "asset cannot be converted"
	case !ok:
		c.Code, c.Message = "30010", "no valid trade price"
	case !tokOK:
		c.Code, c.Message = "30010", "no token price"
	case !val.LessThan(x.opts.DustThreshold):
		c.Code, c.Message = "30003", "value not below the dust threshold of "+x.opts.DustThreshold.String()+" "+dustQuote
	default:
		c.ConvertUsdt = val.Round(8)
		c.ConvertTok = val.Mul(one.Sub(x.opts.DustFee)).Div(tok).Round(8)
	}
	return c
}

// DustCandidates implements exchange.Trader: every non-zero free balance,
// convertible or with the reason it is not.
func (p *Port) DustCandidates(ctx context.Context) ([]exchange.DustCandidate, error) {
	a, err := p.enter(exchange.EpDustCandidates)
	if err != nil {
		return nil, err
	}
	defer p.leave()
	var out []exchange.DustCandidate
	for _, b := range a.snapshot() {
		if b.Free.IsPositive() {
			out = append(out, p.x.candidate(b.Asset, b.Free))
		}
	}
	return out, nil
}

// ConvertDust implements exchange.Trader: up to 15 assets into the token,
// each converted or failed with its reason.
func (p *Port) ConvertDust(ctx context.Context, assets []string) (exchange.DustResult, error) {
	a, err := p.enter(exchange.EpDustConvert)
	if err != nil {
		return exchange.DustResult{}, err
	}
	defer p.leave()
	if len(assets) == 0 || len(assets) > exchange.MaxDustAssets {
		return exchange.DustResult{}, apiErr(exchange.CodeParameterError, "1 to %d assets per conversion", exchange.MaxDustAssets)
	}
	res := exchange.DustResult{TotalConvert: decimal.Zero, ConvertFee: decimal.Zero}
	conv := dustConversion{uid: a.uid, at: p.x.now}
	tok := a.bal(p.x.opts.Token)
	for _, asset := range assets {
		b := a.bal(asset)
		c := p.x.candidate(asset, b.free.dec())
		if !b.free.isPositive() {
			c.Code, c.Message = "10101", "no free balance"
		}
		if c.Code != "" {
			res.FailedList = append(res.FailedList, exchange.DustFailure{Asset: asset, Message: c.Message, Code: c.Code})
			continue
		}
		tp, _ := p.x.tokenPrice()
		gross := c.ConvertUsdt.Div(tp).Round(8)
		fee := gross.Sub(c.ConvertTok)
		converted := b.free.dec()
		b.free = amount{}
		tok.free = tok.free.add(amountOf(c.ConvertTok))
		res.SuccessList = append(res.SuccessList, asset)
		res.TotalConvert = res.TotalConvert.Add(c.ConvertTok)
		res.ConvertFee = res.ConvertFee.Add(fee)
		conv.details = append(conv.details, exchange.DustDetail{ID: asset, Convert: c.ConvertTok, Fee: fee, Amount: converted, Time: p.x.now, Asset: asset})
	}
	sort.Strings(res.SuccessList)
	if len(conv.details) > 0 {
		conv.total, conv.fee = res.TotalConvert, res.ConvertFee
		p.x.dust = append(p.x.dust, conv)
	}
	return res, nil
}
