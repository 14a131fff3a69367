package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// KYCStatus returns the account's KYC level: "1" unverified, "2" primary,
// "3" advanced, "4" institutional.
func (s *SpotService) KYCStatus(ctx context.Context) (string, error) {
	var r struct {
		Status FlexString `json:"status"`
	}
	if err := s.c.do(ctx, EpKYCStatus, nil, &r); err != nil {
		return "", err
	}
	if r.Status == "" {
		return "", decodeError(EpKYCStatus, nil, errors.New("status missing"))
	}
	return string(r.Status), nil
}

// UID returns the account's user id.
func (s *SpotService) UID(ctx context.Context) (string, error) {
	var r struct {
		UID FlexString `json:"uid"`
	}
	if err := s.c.do(ctx, EpUID, nil, &r); err != nil {
		return "", err
	}
	if r.UID == "" {
		return "", decodeError(EpUID, nil, errors.New("uid missing"))
	}
	return string(r.UID), nil
}

// SelfSymbols lists the symbols the account may trade through the API.
func (s *SpotService) SelfSymbols(ctx context.Context) ([]string, error) {
	var out []string
	if err := s.c.doEnvelope(ctx, EpSelfSymbols, nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Account returns the spot account with its balances.
func (s *SpotService) Account(ctx context.Context) (*Account, error) {
	var a Account
	if err := s.c.do(ctx, EpAccount, nil, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

type tokDeduct struct {
	Enable *FlexBool `json:"tokDeductEnable"`
}

// SetTokDeduct switches paying fees in the platform token on or off and
// returns the new setting.
func (s *SpotService) SetTokDeduct(ctx context.Context, enable bool) (bool, error) {
	var q query
	q.bool("tokDeductEnable", enable)
	return s.c.tokDeduct(ctx, EpSetTokDeduct, &q)
}

// TokDeduct reports whether fees are paid in the platform token.
func (s *SpotService) TokDeduct(ctx context.Context) (bool, error) {
	return s.c.tokDeduct(ctx, EpGetTokDeduct, nil)
}

func (c *Client) tokDeduct(ctx context.Context, ep EndpointID, q *query) (bool, error) {
	var r tokDeduct
	if err := c.doEnvelope(ctx, ep, q, &r); err != nil {
		return false, err
	}
	if r.Enable == nil {
		return false, decodeError(ep, nil, errors.New("tokDeductEnable missing"))
	}
	return bool(*r.Enable), nil
}

// TradeFee returns the account's fee rates for a symbol.
func (s *SpotService) TradeFee(ctx context.Context, symbol string) (TradeFee, error) {
	if symbol == "" {
		return TradeFee{}, invalid(EpTradeFee, "symbol", "required")
	}
	var q query
	q.str("symbol", symbol)
	var r struct {
		Maker OptDecimal `json:"makerCommission"`
		Taker OptDecimal `json:"takerCommission"`
	}
	if err := s.c.doEnvelope(ctx, EpTradeFee, &q, &r); err != nil {
		return TradeFee{}, err
	}
	if !r.Maker.Valid || !r.Taker.Valid {
		return TradeFee{}, decodeError(EpTradeFee, nil, errors.New("makerCommission or takerCommission missing"))
	}
	return TradeFee{MakerCommission: r.Maker.Decimal, TakerCommission: r.Taker.Decimal}, nil
}

// STPGroup is a self-trade prevention group of a master account.
type STPGroup struct {
	Name       string
	ID         string
	UIDs       []string
	CreateTime time.Time
	UpdateTime time.Time
}

// UnmarshalJSON decodes a group; its id arrives as a string or a number and
// its members as one comma-joined string.
func (g *STPGroup) UnmarshalJSON(b []byte) error {
	var w struct {
		Name       string     `json:"tradeGroupName"`
		ID         FlexString `json:"tradeGroupId"`
		UIDs       FlexString `json:"tradeGroupUid"`
		CreateTime Millis     `json:"createTime"`
		UpdateTime Millis     `json:"updateTime"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.ID == "" {
		return errors.New("STP group without tradeGroupId")
	}
	*g = STPGroup{Name: w.Name, ID: string(w.ID), CreateTime: w.CreateTime.Time(), UpdateTime: w.UpdateTime.Time()}
	for _, u := range strings.Split(string(w.UIDs), ",") {
		if u = strings.TrimSpace(u); u != "" {
			g.UIDs = append(g.UIDs, u)
		}
	}
	return nil
}

// CreateSTPGroup creates a group (at most 10 per master account, names
// unique).
func (s *SpotService) CreateSTPGroup(ctx context.Context, name string) (STPGroup, error) {
	if name == "" {
		return STPGroup{}, invalid(EpCreateSTPGroup, "tradeGroupName", "required")
	}
	var q query
	q.str("tradeGroupName", name)
	var g STPGroup
	if err := s.c.doEnvelope(ctx, EpCreateSTPGroup, &q, &g); err != nil {
		return STPGroup{}, err
	}
	return g, nil
}

// STPGroups returns the groups of that name.
func (s *SpotService) STPGroups(ctx context.Context, name string) ([]STPGroup, error) {
	if name == "" {
		return nil, invalid(EpListSTPGroups, "tradeGroupName", "required")
	}
	var q query
	q.str("tradeGroupName", name)
	var out []STPGroup
	if err := s.c.doEnvelope(ctx, EpListSTPGroups, &q, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// okEnvelope calls an endpoint whose envelope data is true on success.
func (c *Client) okEnvelope(ctx context.Context, ep EndpointID, q *query) error {
	var ok FlexBool
	if err := c.doEnvelope(ctx, ep, q, &ok); err != nil {
		return err
	}
	if !ok {
		return &APIError{Endpoint: ep.String(), Status: 200, Msg: "the exchange answered false"}
	}
	return nil
}

// DeleteSTPGroup deletes a group.
func (s *SpotService) DeleteSTPGroup(ctx context.Context, groupID string) error {
	if groupID == "" {
		return invalid(EpDeleteSTPGroup, "tradeGroupId", "required")
	}
	var q query
	q.str("tradeGroupId", groupID)
	return s.c.okEnvelope(ctx, EpDeleteSTPGroup, &q)
}

// AddSTPGroupUIDs adds members to a group (sent as POST; the service also
// accepts GET).
func (s *SpotService) AddSTPGroupUIDs(ctx context.Context, groupID string, uids []string) (STPGroup, error) {
	q, err := groupUIDs(EpAddSTPGroupUID, groupID, uids)
	if err != nil {
		return STPGroup{}, err
	}
	var g STPGroup
	if err := s.c.doEnvelope(ctx, EpAddSTPGroupUID, q, &g); err != nil {
		return STPGroup{}, err
	}
	return g, nil
}

// RemoveSTPGroupUIDs removes members from a group.
func (s *SpotService) RemoveSTPGroupUIDs(ctx context.Context, groupID string, uids []string) error {
	q, err := groupUIDs(EpRemoveSTPGroupUID, groupID, uids)
	if err != nil {
		return err
	}
	return s.c.okEnvelope(ctx, EpRemoveSTPGroupUID, q)
}

func groupUIDs(ep EndpointID, groupID string, uids []string) (*query, error) {
	list, err := joinIDs(ep, "uid", uids)
	if err != nil {
		return nil, err
	}
	if groupID == "" {
		return nil, invalid(ep, "tradeGroupId", "required")
	}
	var q query
	q.str("uid", list)
	q.str("tradeGroupId", groupID)
	return &q, nil
}
