package sim

import (
	"github.com/spotbot/spotbot/exchange"
)

// Dust history page sizes (spec 4.4).
const (
	dustHistoryDefault = 1
	dustHistoryMax     = 1000
)

// DustHistory pages through the account's past dust conversions, newest
// first, filtered by time when Start or End is set (the spec gives no
// default window); page defaults to 1, limit to 1 (at most 1000).
func (p *Port) DustHistory(r exchange.DustHistoryRequest) (exchange.DustHistoryPage, error) {
	if _, err := p.enter(exchange.EpDustHistory); err != nil {
		return exchange.DustHistoryPage{}, err
	}
	defer p.leave()
	if !r.Start.IsZero() && !r.End.IsZero() && r.End.Before(r.Start) {
		return exchange.DustHistoryPage{}, apiErr(exchange.CodeParameterError, "endTime %d is before startTime %d", r.End.UnixMilli(), r.Start.UnixMilli())
	}
	page, limit, err := paging(r.Page, r.Limit, dustHistoryDefault, dustHistoryMax)
	if err != nil {
		return exchange.DustHistoryPage{}, err
	}
	var all []exchange.DustConversion
	for i := len(p.x.dust) - 1; i >= 0; i-- {
		d := p.x.dust[i]
		if d.uid != p.uid || !r.Start.IsZero() && d.at.Before(r.Start) || !r.End.IsZero() && d.at.After(r.End) {
			continue
		}
		all = append(all, exchange.DustConversion{TotalConvert: d.total, TotalFee: d.fee, ConvertTime: d.at,
			Details: append([]exchange.DustDetail(nil), d.details...)})
	}
	lo, hi, pages := pageBounds(len(all), page, limit)
	return exchange.DustHistoryPage{Conversions: append([]exchange.DustConversion{}, all[lo:hi]...), TotalRecords: len(all),
		Page: page, TotalPages: pages}, nil
}
