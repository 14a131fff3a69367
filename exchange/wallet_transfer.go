package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/shopspring/decimal"
)

// TransferRequest moves an asset between the account's SPOT and FUTURES
// wallets.
type TransferRequest struct {
	FromAccountType AccountType
	ToAccountType   AccountType
	Asset           string
	Amount          decimal.Decimal
}

// UniversalTransfer moves an asset between wallets and returns the
// transfer id (the reply carries it as one object, or, in the spec's
// sample, as an array of one; both are decoded).
func (s *WalletService) UniversalTransfer(ctx context.Context, r TransferRequest) (string, error) {
	ep := EpUniversalTransfer
	if err := validAccountTypes(ep, r.FromAccountType, r.ToAccountType); err != nil {
		return "", err
	}
	if err := validAmount(ep, r.Asset, r.Amount); err != nil {
		return "", err
	}
	var q query
	q.str("fromAccountType", string(r.FromAccountType))
	q.str("toAccountType", string(r.ToAccountType))
	q.str("asset", r.Asset)
	q.dec("amount", r.Amount)
	return s.c.tranID(ctx, ep, &q)
}

// TransferHistoryRequest filters universal transfers (six months back; the
// last 7 days without Start and End).
type TransferHistoryRequest struct {
	From  AccountType
	To    AccountType
	Start time.Time
	End   time.Time
	Page  int
	Size  int // 0: default 10; else 1..100
}

// TransferPage is one page of transfers.
type TransferPage struct {
	Rows  []TransferRecord
	Total int
}

// TransferHistory lists universal transfers.
func (s *WalletService) TransferHistory(ctx context.Context, r TransferHistoryRequest) (TransferPage, error) {
	ep := EpUniversalTransferHistory
	if err := validAccountTypes(ep, r.From, r.To); err != nil {
		return TransferPage{}, err
	}
	if err := checkWindow(ep, r.Start, r.End, false); err != nil {
		return TransferPage{}, err
	}
	if r.Page < 0 {
		return TransferPage{}, invalid(ep, "page", "%d is negative", r.Page)
	}
	if r.Size < 0 || r.Size > 100 {
		return TransferPage{}, invalid(ep, "size", "%d is outside 1..100", r.Size)
	}
	var q query
	q.str("fromAccountType", string(r.From))
	q.str("toAccountType", string(r.To))
	q.time("startTime", r.Start)
	q.time("endTime", r.End)
	q.optInt("page", int64(r.Page))
	q.optInt("size", int64(r.Size))
	var w struct {
		Rows  *[]TransferRecord `json:"rows"`
		Total FlexInt           `json:"total"`
	}
	if err := s.c.do(ctx, ep, &q, &w); err != nil {
		return TransferPage{}, err
	}
	if w.Rows == nil {
		return TransferPage{}, decodeError(ep, nil, errors.New("rows missing"))
	}
	return TransferPage{Rows: *w.Rows, Total: int(w.Total)}, nil
}

// TransferByID returns one universal transfer.
func (s *WalletService) TransferByID(ctx context.Context, tranID string) (TransferRecord, error) {
	if tranID == "" {
		return TransferRecord{}, invalid(EpUniversalTransferByID, "tranId", "required")
	}
	var q query
	q.str("tranId", tranID)
	var out TransferRecord
	if err := s.c.do(ctx, EpUniversalTransferByID, &q, &out); err != nil {
		return TransferRecord{}, err
	}
	return out, nil
}

// InternalTransferRequest sends an asset to another user of the exchange.
type InternalTransferRequest struct {
	ToAccountType string // EMAIL, UID or MOBILE
	ToAccount     string
	AreaCode      string // telephone area code, for MOBILE
	Asset         string
	Amount        decimal.Decimal
}

// InternalTransfer sends an asset to another user and returns the transfer id.
func (s *WalletService) InternalTransfer(ctx context.Context, r InternalTransferRequest) (string, error) {
	ep := EpInternalTransfer
	switch r.ToAccountType {
	case "EMAIL", "UID", "MOBILE":
	default:
		return "", invalid(ep, "toAccountType", "%q is not EMAIL, UID or MOBILE", r.ToAccountType)
	}
	if r.ToAccount == "" {
		return "", invalid(ep, "toAccount", "required")
	}
	if err := validAmount(ep, r.Asset, r.Amount); err != nil {
		return "", err
	}
	var q query
	q.str("toAccountType", r.ToAccountType)
	q.str("toAccount", r.ToAccount)
	q.str("areaCode", r.AreaCode)
	q.str("asset", r.Asset)
	q.dec("amount", r.Amount)
	return s.c.tranID(ctx, ep, &q)
}

// InternalTransferRecord is one internal transfer.
type InternalTransferRecord struct {
	TranID        string
	Asset         string
	Amount        decimal.Decimal
	FromAccount   string
	ToAccountType string
	ToAccount     string
	Status        string // SUCCESS, FAILED, WAIT
	Timestamp     time.Time
}

// UnmarshalJSON decodes an internal transfer.
func (t *InternalTransferRecord) UnmarshalJSON(b []byte) error {
	var w struct {
		TranID        FlexString `json:"tranId"`
		Asset         string     `json:"asset"`
		Amount        OptDecimal `json:"amount"`
		FromAccount   string     `json:"fromAccount"`
		ToAccountType string     `json:"toAccountType"`
		ToAccount     string     `json:"toAccount"`
		Status        string     `json:"status"`
		Timestamp     Millis     `json:"timestamp"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.TranID == "" || !w.Amount.Valid {
		return errors.New("internal transfer without tranId or amount")
	}
	*t = InternalTransferRecord{TranID: string(w.TranID), Asset: w.Asset, Amount: w.Amount.Decimal, FromAccount: w.FromAccount,
		ToAccountType: w.ToAccountType, ToAccount: w.ToAccount, Status: w.Status, Timestamp: w.Timestamp.Time()}
	return nil
}

// InternalTransferHistoryRequest filters internal transfers (last 7 days
// by default).
type InternalTransferHistoryRequest struct {
	Start  time.Time
	End    time.Time
	Page   int
	Limit  int // 0: default 10
	TranID string
}

// InternalTransferPage is one page of internal transfers.
type InternalTransferPage struct {
	Transfers    []InternalTransferRecord
	Page         int
	TotalRecords int
	TotalPages   int
}

// InternalTransferHistory lists internal transfers.
func (s *WalletService) InternalTransferHistory(ctx context.Context, r InternalTransferHistoryRequest) (InternalTransferPage, error) {
	ep := EpInternalTransferHistory
	if err := checkWindow(ep, r.Start, r.End, false); err != nil {
		return InternalTransferPage{}, err
	}
	if r.Page < 0 || r.Limit < 0 {
		return InternalTransferPage{}, invalid(ep, "page", "page and limit must not be negative")
	}
	var q query
	q.time("startTime", r.Start)
	q.time("endTime", r.End)
	q.optInt("page", int64(r.Page))
	q.optInt("limit", int64(r.Limit))
	q.str("tranId", r.TranID)
	var w struct {
		Page         FlexInt                   `json:"page"`
		TotalRecords FlexInt                   `json:"totalRecords"`
		TotalPageNum FlexInt                   `json:"totalPageNum"`
		Data         *[]InternalTransferRecord `json:"data"`
	}
	if err := s.c.do(ctx, ep, &q, &w); err != nil {
		return InternalTransferPage{}, err
	}
	if w.Data == nil {
		return InternalTransferPage{}, decodeError(ep, nil, errors.New("data missing"))
	}
	return InternalTransferPage{Transfers: *w.Data, Page: int(w.Page), TotalRecords: int(w.TotalRecords), TotalPages: int(w.TotalPageNum)}, nil
}
