package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// MaxDustAssets is the most assets one dust conversion may hold.
const MaxDustAssets = 15

// UnmarshalJSON decodes a dust candidate.
func (d *DustCandidate) UnmarshalJSON(b []byte) error {
	var w struct {
		Asset       string      `json:"asset"`
		Balance     FlexDecimal `json:"balance"`
		ConvertTok  FlexDecimal `json:"convertTok"`
		ConvertUsdt FlexDecimal `json:"convertUsdt"`
		Code        FlexString  `json:"code"`
		Message     *string     `json:"message"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.Asset == "" {
		return errors.New("dust candidate without asset")
	}
	*d = DustCandidate{Asset: w.Asset, Balance: w.Balance.Decimal, ConvertTok: w.ConvertTok.Decimal,
		ConvertUsdt: w.ConvertUsdt.Decimal, Code: string(w.Code), Message: deref(w.Message)}
	return nil
}

// DustCandidates lists assets and whether each may be converted.
func (s *WalletService) DustCandidates(ctx context.Context) ([]DustCandidate, error) {
	var out []DustCandidate
	if err := s.c.do(ctx, EpDustCandidates, nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// ConvertDust converts up to 15 assets into the platform token.
func (s *WalletService) ConvertDust(ctx context.Context, assets []string) (DustResult, error) {
	ep := EpDustConvert
	if len(assets) == 0 || len(assets) > MaxDustAssets {
		return DustResult{}, invalid(ep, "asset", "%d assets; a conversion holds 1 to %d", len(assets), MaxDustAssets)
	}
	seen := map[string]bool{}
	for i, a := range assets {
		if a == "" || strings.Contains(a, ",") {
			return DustResult{}, invalid(ep, "asset", "entry %d (%q) is empty or holds a comma", i, a)
		}
		if seen[a] {
			return DustResult{}, invalid(ep, "asset", "%s listed twice", a)
		}
		seen[a] = true
	}
	var q query
	q.str("asset", strings.Join(assets, ","))
	var w struct {
		SuccessList []string `json:"successList"`
		FailedList  []struct {
			Asset   string     `json:"asset"`
			Message string     `json:"message"`
			Code    FlexString `json:"code"`
		} `json:"failedList"`
		TotalConvert FlexDecimal `json:"totalConvert"`
		ConvertFee   FlexDecimal `json:"convertFee"`
	}
	if err := s.c.do(ctx, ep, &q, &w); err != nil {
		return DustResult{}, err
	}
	res := DustResult{SuccessList: w.SuccessList, TotalConvert: w.TotalConvert.Decimal, ConvertFee: w.ConvertFee.Decimal}
	for _, f := range w.FailedList {
		res.FailedList = append(res.FailedList, DustFailure{Asset: f.Asset, Message: f.Message, Code: string(f.Code)})
	}
	return res, nil
}

// DustConversion is one past conversion.
type DustConversion struct {
	TotalConvert decimal.Decimal
	TotalFee     decimal.Decimal
	ConvertTime  time.Time
	Details      []DustDetail
}

// DustDetail is one asset of a past conversion.
type DustDetail struct {
	ID      string
	Convert decimal.Decimal
	Fee     decimal.Decimal
	Amount  decimal.Decimal
	Time    time.Time
	Asset   string
}

// DustHistoryPage is one page of conversion history.
type DustHistoryPage struct {
	Conversions  []DustConversion
	TotalRecords int
	Page         int
	TotalPages   int
}

// DustHistoryRequest filters conversion history.
type DustHistoryRequest struct {
	Start time.Time
	End   time.Time
	Page  int
	Limit int // 0: default 1; else 1..1000
}

// DustHistory lists past conversions.
func (s *WalletService) DustHistory(ctx context.Context, r DustHistoryRequest) (DustHistoryPage, error) {
	ep := EpDustHistory
	if err := checkWindow(ep, r.Start, r.End, false); err != nil {
		return DustHistoryPage{}, err
	}
	if r.Page < 0 {
		return DustHistoryPage{}, invalid(ep, "page", "%d is negative", r.Page)
	}
	if r.Limit < 0 || r.Limit > 1000 {
		return DustHistoryPage{}, invalid(ep, "limit", "%d is outside 1..1000", r.Limit)
	}
	var q query
	q.time("startTime", r.Start)
	q.time("endTime", r.End)
	q.optInt("page", int64(r.Page))
	q.optInt("limit", int64(r.Limit))
	var w struct {
		Data *[]struct {
			TotalConvert   FlexDecimal `json:"totalConvert"`
			TotalFee       FlexDecimal `json:"totalFee"`
			ConvertTime    Millis      `json:"convertTime"`
			ConvertDetails []struct {
				ID      FlexString  `json:"id"`
				Convert FlexDecimal `json:"convert"`
				Fee     FlexDecimal `json:"fee"`
				Amount  FlexDecimal `json:"amount"`
				Time    Millis      `json:"time"`
				Asset   string      `json:"asset"`
			} `json:"convertDetails"`
		} `json:"data"`
		TotalRecords FlexInt `json:"totalRecords"`
		Page         FlexInt `json:"page"`
		TotalPageNum FlexInt `json:"totalPageNum"`
	}
	if err := s.c.do(ctx, ep, &q, &w); err != nil {
		return DustHistoryPage{}, err
	}
	if w.Data == nil {
		return DustHistoryPage{}, decodeError(ep, nil, errors.New("data missing"))
	}
	out := DustHistoryPage{TotalRecords: int(w.TotalRecords), Page: int(w.Page), TotalPages: int(w.TotalPageNum)}
	for _, c := range *w.Data {
		dc := DustConversion{TotalConvert: c.TotalConvert.Decimal, TotalFee: c.TotalFee.Decimal, ConvertTime: c.ConvertTime.Time()}
		for _, d := range c.ConvertDetails {
			dc.Details = append(dc.Details, DustDetail{ID: string(d.ID), Convert: d.Convert.Decimal, Fee: d.Fee.Decimal,
				Amount: d.Amount.Decimal, Time: d.Time.Time(), Asset: d.Asset})
		}
		out.Conversions = append(out.Conversions, dc)
	}
	return out, nil
}
