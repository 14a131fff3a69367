package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/shopspring/decimal"
)

// Network is one network a coin moves on.
type Network struct {
	Coin                    string
	Name                    string
	Network                 string // old name, going offline
	NetWork                 string // new name, used by Withdraw
	DepositEnable           bool
	WithdrawEnable          bool
	DepositDesc             string
	DepositTips             string
	WithdrawTips            string
	MinConfirm              int
	WithdrawFee             decimal.Decimal
	WithdrawIntegerMultiple decimal.Decimal
	WithdrawMax             decimal.Decimal
	WithdrawMin             decimal.Decimal
	SameAddress             bool
	Contract                string
}

// CoinConfig is a coin and its networks.
type CoinConfig struct {
	Coin     string
	Name     string
	Networks []Network
}

// UnmarshalJSON decodes a coin config; booleans and integers may be strings.
func (c *CoinConfig) UnmarshalJSON(b []byte) error {
	var w struct {
		Coin        string `json:"coin"`
		Name        string `json:"name"`
		NetworkList []struct {
			Coin                    string      `json:"coin"`
			Name                    string      `json:"name"`
			Network                 string      `json:"network"`
			NetWork                 string      `json:"netWork"`
			DepositEnable           FlexBool    `json:"depositEnable"`
			WithdrawEnable          FlexBool    `json:"withdrawEnable"`
			DepositDesc             *string     `json:"depositDesc"`
			DepositTips             *string     `json:"depositTips"`
			WithdrawTips            *string     `json:"withdrawTips"`
			MinConfirm              FlexInt     `json:"minConfirm"`
			WithdrawFee             FlexDecimal `json:"withdrawFee"`
			WithdrawIntegerMultiple FlexDecimal `json:"withdrawIntegerMultiple"`
			WithdrawMax             FlexDecimal `json:"withdrawMax"`
			WithdrawMin             FlexDecimal `json:"withdrawMin"`
			SameAddress             FlexBool    `json:"sameAddress"`
			Contract                string      `json:"contract"`
		} `json:"networkList"`
	}
	// encoding/json matches keys case-insensitively only when no field
	// matches exactly, so "network" and "netWork" land in their own fields.
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.Coin == "" {
		return errors.New("coin config without coin")
	}
	*c = CoinConfig{Coin: w.Coin, Name: w.Name}
	for _, n := range w.NetworkList {
		c.Networks = append(c.Networks, Network{Coin: n.Coin, Name: n.Name, Network: n.Network, NetWork: n.NetWork,
			DepositEnable: bool(n.DepositEnable), WithdrawEnable: bool(n.WithdrawEnable), DepositDesc: deref(n.DepositDesc),
			DepositTips: deref(n.DepositTips), WithdrawTips: deref(n.WithdrawTips), MinConfirm: int(n.MinConfirm),
			WithdrawFee: n.WithdrawFee.Decimal, WithdrawIntegerMultiple: n.WithdrawIntegerMultiple.Decimal,
			WithdrawMax: n.WithdrawMax.Decimal, WithdrawMin: n.WithdrawMin.Decimal, SameAddress: bool(n.SameAddress), Contract: n.Contract})
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// CoinConfig returns every coin's networks, fees and limits.
func (s *WalletService) CoinConfig(ctx context.Context) ([]CoinConfig, error) {
	var out []CoinConfig
	if err := s.c.do(ctx, EpCoinConfig, nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// WithdrawRequest is a withdrawal.
type WithdrawRequest struct {
	Coin            string
	WithdrawOrderID string // the caller's id, optional
	Network         string // from the coin config's NetWork (Network for WithdrawApply)
	ContractAddress string // not sent by WithdrawApply
	Address         string
	Memo            string
	Amount          decimal.Decimal
	Remark          string
	// IncludeFee takes the network fee out of Amount: the balance is
	// debited by Amount and Amount minus the fee arrives. Without it the
	// fee is debited on top of Amount. Sent as includeFee=true, as widely
	// used clients send it; omitted when false.
	IncludeFee bool
}

func (r *WithdrawRequest) validate(ep EndpointID) error {
	switch {
	case r.Coin == "":
		return invalid(ep, "coin", "required")
	case r.Address == "":
		return invalid(ep, "address", "required")
	case !r.Amount.IsPositive():
		return invalid(ep, "amount", "%s must be positive", r.Amount)
	}
	return nil
}

// idReply decodes {"id": ...}, [{"id": ...}] or [...] with one id.
func idReply(ep EndpointID, body []byte) (string, error) {
	b := trimJSON(body)
	if len(b) > 0 && b[0] == '[' {
		var arr []json.RawMessage
		if err := json.Unmarshal(b, &arr); err != nil || len(arr) != 1 {
			return "", decodeError(ep, body, errors.New("want one id"))
		}
		b = arr[0]
	}
	var w struct {
		ID FlexString `json:"id"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return "", decodeError(ep, body, err)
	}
	if w.ID == "" {
		return "", decodeError(ep, body, errors.New("id missing"))
	}
	return string(w.ID), nil
}

// Withdraw requests a withdrawal and returns its id.
func (s *WalletService) Withdraw(ctx context.Context, r WithdrawRequest) (string, error) {
	if err := r.validate(EpWithdraw); err != nil {
		return "", err
	}
	var q query
	q.str("coin", r.Coin)
	q.str("withdrawOrderId", r.WithdrawOrderID)
	q.str("netWork", r.Network)
	q.str("contractAddress", r.ContractAddress)
	q.str("address", r.Address)
	q.str("memo", r.Memo)
	q.dec("amount", r.Amount)
	q.str("remark", r.Remark)
	if r.IncludeFee {
		q.bool("includeFee", true)
	}
	body, err := s.c.call(ctx, EpWithdraw, &q)
	if err != nil {
		return "", err
	}
	return idReply(EpWithdraw, body)
}

// WithdrawApply is the previous withdrawal endpoint (going offline): the
// network parameter is `network` and there is no contract address.
func (s *WalletService) WithdrawApply(ctx context.Context, r WithdrawRequest) (string, error) {
	if err := r.validate(EpWithdrawApply); err != nil {
		return "", err
	}
	if r.ContractAddress != "" {
		return "", invalid(EpWithdrawApply, "contractAddress", "not accepted by the previous endpoint; use Withdraw")
	}
	var q query
	q.str("coin", r.Coin)
	q.str("withdrawOrderId", r.WithdrawOrderID)
	q.str("network", r.Network)
	q.str("address", r.Address)
	q.str("memo", r.Memo)
	q.dec("amount", r.Amount)
	q.str("remark", r.Remark)
	if r.IncludeFee {
		q.bool("includeFee", true)
	}
	body, err := s.c.call(ctx, EpWithdrawApply, &q)
	if err != nil {
		return "", err
	}
	return idReply(EpWithdrawApply, body)
}

// CancelWithdraw cancels a withdrawal not yet processed and returns its id.
func (s *WalletService) CancelWithdraw(ctx context.Context, id string) (string, error) {
	if id == "" {
		return "", invalid(EpCancelWithdraw, "id", "required")
	}
	var q query
	q.str("id", id)
	body, err := s.c.call(ctx, EpCancelWithdraw, &q)
	if err != nil {
		return "", err
	}
	return idReply(EpCancelWithdraw, body)
}

// DepositAddress is an address to deposit a coin to.
type DepositAddress struct {
	Coin    string
	Network string
	Address string
	Memo    string // memo or tag; empty when none
}

// UnmarshalJSON decodes an address; the memo may be named tag, or be null.
func (a *DepositAddress) UnmarshalJSON(b []byte) error {
	var w struct {
		Coin    string  `json:"coin"`
		Network string  `json:"network"`
		Address string  `json:"address"`
		Memo    *string `json:"memo"`
		Tag     *string `json:"tag"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.Address == "" {
		return errors.New("deposit address without address")
	}
	*a = DepositAddress{Coin: w.Coin, Network: w.Network, Address: w.Address, Memo: deref(w.Memo)}
	if a.Memo == "" {
		a.Memo = deref(w.Tag)
	}
	return nil
}

// GenerateDepositAddress creates a deposit address. The reply is an object
// or an array; the first address is returned.
func (s *WalletService) GenerateDepositAddress(ctx context.Context, coin, network string) (DepositAddress, error) {
	if coin == "" {
		return DepositAddress{}, invalid(EpGenerateDepositAddress, "coin", "required")
	}
	if network == "" {
		return DepositAddress{}, invalid(EpGenerateDepositAddress, "network", "required")
	}
	var q query
	q.str("coin", coin)
	q.str("network", network)
	body, err := s.c.call(ctx, EpGenerateDepositAddress, &q)
	if err != nil {
		return DepositAddress{}, err
	}
	addrs, err := oneOrMany[DepositAddress](EpGenerateDepositAddress, body)
	if err != nil {
		return DepositAddress{}, err
	}
	if len(addrs) == 0 {
		return DepositAddress{}, decodeError(EpGenerateDepositAddress, body, errors.New("no address"))
	}
	return addrs[0], nil
}

// DepositAddresses lists a coin's deposit addresses (of one network, or
// all when network is empty).
func (s *WalletService) DepositAddresses(ctx context.Context, coin, network string) ([]DepositAddress, error) {
	if coin == "" {
		return nil, invalid(EpDepositAddresses, "coin", "required")
	}
	var q query
	q.str("coin", coin)
	q.str("network", network)
	body, err := s.c.call(ctx, EpDepositAddresses, &q)
	if err != nil {
		return nil, err
	}
	return oneOrMany[DepositAddress](EpDepositAddresses, body)
}

// WithdrawAddress is a saved withdrawal address.
type WithdrawAddress struct {
	Coin       string `json:"coin"`
	Network    string `json:"network"`
	Address    string `json:"address"`
	AddressTag string `json:"addressTag"`
	Memo       string `json:"memo"`
}

// WithdrawAddressPage is one page of saved addresses.
type WithdrawAddressPage struct {
	Addresses    []WithdrawAddress
	TotalRecords int
	Page         int
	TotalPages   int
}

// WithdrawAddresses lists saved withdrawal addresses (of a coin, or all).
func (s *WalletService) WithdrawAddresses(ctx context.Context, coin string, page, limit int) (WithdrawAddressPage, error) {
	if page < 0 {
		return WithdrawAddressPage{}, invalid(EpWithdrawAddresses, "page", "%d is negative", page)
	}
	if limit < 0 {
		return WithdrawAddressPage{}, invalid(EpWithdrawAddresses, "limit", "%d is negative", limit)
	}
	var q query
	q.str("coin", coin)
	q.optInt("page", int64(page))
	q.optInt("limit", int64(limit))
	var w struct {
		Data         *[]WithdrawAddress `json:"data"`
		TotalRecords FlexInt            `json:"totalRecords"`
		Page         FlexInt            `json:"page"`
		TotalPageNum FlexInt            `json:"totalPageNum"`
	}
	if err := s.c.do(ctx, EpWithdrawAddresses, &q, &w); err != nil {
		return WithdrawAddressPage{}, err
	}
	if w.Data == nil {
		return WithdrawAddressPage{}, decodeError(EpWithdrawAddresses, nil, errors.New("data missing"))
	}
	return WithdrawAddressPage{Addresses: *w.Data, TotalRecords: int(w.TotalRecords), Page: int(w.Page), TotalPages: int(w.TotalPageNum)}, nil
}

// historyWindow is how far back deposit and withdrawal history reach.
const historyWindow = 90 * 24 * time.Hour
