package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/shopspring/decimal"
)

// DepositStatus is a deposit's state (facts file).
type DepositStatus int

// Deposit statuses.
const (
	DepositSmall DepositStatus = iota + 1
	DepositTimeDelay
	DepositLargeDelay
	DepositPending
	DepositSuccess
	DepositAuditing
	DepositRejected
	DepositRefund
	DepositPreSuccess
	DepositInvalid
	DepositRestricted
	DepositCompleted
)

var depositStatusNames = [...]string{"", "SMALL", "TIME_DELAY", "LARGE_DELAY", "PENDING", "SUCCESS", "AUDITING",
	"REJECTED", "REFUND", "PRE_SUCCESS", "INVALID", "RESTRICTED", "COMPLETED"}

func (s DepositStatus) String() string {
	if s > 0 && int(s) < len(depositStatusNames) {
		return depositStatusNames[s]
	}
	return fmt.Sprintf("DepositStatus(%d)", int(s))
}

// WithdrawStatus is a withdrawal's state (facts file).
type WithdrawStatus int

// Withdrawal statuses. Only APPLY, AUDITING and WAIT may be cancelled.
const (
	WithdrawApply WithdrawStatus = iota + 1
	WithdrawAuditing
	WithdrawWait
	WithdrawProcessing
	WithdrawWaitPackaging
	WithdrawWaitConfirm
	WithdrawSuccess
	WithdrawFailed
	WithdrawCancel
	WithdrawManual
)

var withdrawStatusNames = [...]string{"", "APPLY", "AUDITING", "WAIT", "PROCESSING", "WAIT_PACKAGING", "WAIT_CONFIRM",
	"SUCCESS", "FAILED", "CANCEL", "MANUAL"}

func (s WithdrawStatus) String() string {
	if s > 0 && int(s) < len(withdrawStatusNames) {
		return withdrawStatusNames[s]
	}
	return fmt.Sprintf("WithdrawStatus(%d)", int(s))
}

// Cancellable reports whether a withdrawal in s can still be cancelled.
func (s WithdrawStatus) Cancellable() bool {
	return s == WithdrawApply || s == WithdrawAuditing || s == WithdrawWait
}

// DepositRecord is one deposit.
type DepositRecord struct {
	Amount        decimal.Decimal
	Coin          string
	Network       string
	Status        DepositStatus
	Address       string
	AddressTag    string
	TxID          string
	InsertTime    time.Time
	UnlockConfirm string
	ConfirmTimes  string
	Memo          string
}

// UnmarshalJSON decodes a deposit.
func (d *DepositRecord) UnmarshalJSON(b []byte) error {
	var w struct {
		Amount        OptDecimal `json:"amount"`
		Coin          string     `json:"coin"`
		Network       string     `json:"network"`
		Status        FlexInt    `json:"status"`
		Address       string     `json:"address"`
		AddressTag    *string    `json:"addressTag"`
		TxID          *string    `json:"txId"`
		InsertTime    Millis     `json:"insertTime"`
		UnlockConfirm FlexString `json:"unlockConfirm"`
		ConfirmTimes  FlexString `json:"confirmTimes"`
		Memo          *string    `json:"memo"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.Coin == "" || !w.Amount.Valid {
		return errors.New("deposit without coin or amount")
	}
	*d = DepositRecord{Amount: w.Amount.Decimal, Coin: w.Coin, Network: w.Network, Status: DepositStatus(w.Status),
		Address: w.Address, AddressTag: deref(w.AddressTag), TxID: deref(w.TxID), InsertTime: w.InsertTime.Time(),
		UnlockConfirm: string(w.UnlockConfirm), ConfirmTimes: string(w.ConfirmTimes), Memo: deref(w.Memo)}
	return nil
}

// WithdrawRecord is one withdrawal. Records from before multi-network
// support have no network.
type WithdrawRecord struct {
	ID              string
	WithdrawOrderID string
	TxID            string
	Coin            string
	Network         string
	Address         string
	Amount          decimal.Decimal
	TransferType    int // 0 outside, 1 inside
	Status          WithdrawStatus
	TransactionFee  decimal.Decimal
	ConfirmNo       int
	ApplyTime       time.Time
	UpdateTime      time.Time
	Remark          string
	Memo            string
	TransHash       string
	CoinID          string
	VcoinID         string
}

// UnmarshalJSON decodes a withdrawal.
func (r *WithdrawRecord) UnmarshalJSON(b []byte) error {
	var w struct {
		ID              FlexString  `json:"id"`
		WithdrawOrderID *string     `json:"withdrawOrderId"`
		TxID            *string     `json:"txId"`
		Coin            string      `json:"coin"`
		Network         *string     `json:"network"`
		Address         string      `json:"address"`
		Amount          OptDecimal  `json:"amount"`
		TransferType    FlexInt     `json:"transferType"`
		Status          FlexInt     `json:"status"`
		TransactionFee  FlexDecimal `json:"transactionFee"`
		ConfirmNo       FlexInt     `json:"confirmNo"`
		ApplyTime       Millis      `json:"applyTime"`
		UpdateTime      Millis      `json:"updateTime"`
		Remark          *string     `json:"remark"`
		Memo            *string     `json:"memo"`
		TransHash       *string     `json:"transHash"`
		CoinID          FlexString  `json:"coinId"`
		VcoinID         FlexString  `json:"vcoinId"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.ID == "" || w.Coin == "" || !w.Amount.Valid {
		return errors.New("withdrawal without id, coin or amount")
	}
	*r = WithdrawRecord{ID: string(w.ID), WithdrawOrderID: deref(w.WithdrawOrderID), TxID: deref(w.TxID), Coin: w.Coin,
		Network: deref(w.Network), Address: w.Address, Amount: w.Amount.Decimal, TransferType: int(w.TransferType),
		Status: WithdrawStatus(w.Status), TransactionFee: w.TransactionFee.Decimal, ConfirmNo: int(w.ConfirmNo),
		ApplyTime: w.ApplyTime.Time(), UpdateTime: w.UpdateTime.Time(), Remark: deref(w.Remark), Memo: deref(w.Memo),
		TransHash: deref(w.TransHash), CoinID: string(w.CoinID), VcoinID: string(w.VcoinID)}
	return nil
}

// HistoryRequest filters deposit or withdrawal history. Without Start and
// End the server returns the last 7 days; it reaches back at most 90 days.
type HistoryRequest struct {
	Coin   string
	Status int // 0: any
	Start  time.Time
	End    time.Time
	Limit  int // 0: default 1000; else 1..1000
}

func (s *WalletService) history(ep EndpointID, r HistoryRequest) (*query, error) {
	if err := checkWindow(ep, r.Start, r.End, false); err != nil {
		return nil, err
	}
	now := s.c.clock.Now()
	if !r.Start.IsZero() && now.Sub(r.Start) > historyWindow {
		return nil, invalid(ep, "startTime", "%s is more than 90 days back", r.Start.UTC().Format(time.RFC3339))
	}
	if !r.Start.IsZero() && !r.End.IsZero() && r.End.Sub(r.Start) > historyWindow {
		return nil, invalid(ep, "endTime", "window of %s exceeds 90 days", r.End.Sub(r.Start))
	}
	if r.Limit < 0 || r.Limit > 1000 {
		return nil, invalid(ep, "limit", "%d is outside 1..1000", r.Limit)
	}
	if r.Status < 0 {
		return nil, invalid(ep, "status", "%d is negative", r.Status)
	}
	var q query
	q.str("coin", r.Coin)
	q.optInt("status", int64(r.Status))
	q.time("startTime", r.Start)
	q.time("endTime", r.End)
	q.optInt("limit", int64(r.Limit))
	return &q, nil
}

// DepositHistory lists deposits.
func (s *WalletService) DepositHistory(ctx context.Context, r HistoryRequest) ([]DepositRecord, error) {
	q, err := s.history(EpDepositHistory, r)
	if err != nil {
		return nil, err
	}
	var out []DepositRecord
	if err := s.c.do(ctx, EpDepositHistory, q, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// WithdrawHistory lists withdrawals.
func (s *WalletService) WithdrawHistory(ctx context.Context, r HistoryRequest) ([]WithdrawRecord, error) {
	q, err := s.history(EpWithdrawHistory, r)
	if err != nil {
		return nil, err
	}
	var out []WithdrawRecord
	if err := s.c.do(ctx, EpWithdrawHistory, q, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// historyStep is the window each request of the range helpers covers: the
// server's own default window.
const historyStep = 7 * 24 * time.Hour

// windows splits [from, to) into consecutive windows of at most 7 days.
func historyWindows(from, to time.Time) [][2]time.Time {
	var out [][2]time.Time
	for start := from; start.Before(to); start = start.Add(historyStep) {
		end := start.Add(historyStep)
		if end.After(to) {
			end = to
		}
		out = append(out, [2]time.Time{start, end.Add(-time.Millisecond)})
	}
	return out
}

func (s *WalletService) checkRange(ep EndpointID, from, to time.Time) error {
	if from.IsZero() || to.IsZero() || !to.After(from) {
		return invalid(ep, "endTime", "the range needs from < to")
	}
	if s.c.clock.Now().Sub(from) > historyWindow {
		return invalid(ep, "startTime", "%s is more than 90 days back", from.UTC().Format(time.RFC3339))
	}
	return nil
}

// DepositHistoryRange fetches the deposits of [from, to) (at most 90 days
// back) in windows of 7 days, de-duplicated by transaction and time, oldest
// first.
func (s *WalletService) DepositHistoryRange(ctx context.Context, coin string, from, to time.Time) ([]DepositRecord, error) {
	if err := s.checkRange(EpDepositHistory, from, to); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []DepositRecord
	for _, w := range historyWindows(from, to) {
		recs, err := s.DepositHistory(ctx, HistoryRequest{Coin: coin, Start: w[0], End: w[1], Limit: 1000})
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			k := r.TxID + "/" + r.InsertTime.String() + "/" + r.Amount.String()
			if !seen[k] {
				seen[k] = true
				out = append(out, r)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].InsertTime.Before(out[j].InsertTime) })
	return out, nil
}

// WithdrawHistoryRange fetches the withdrawals of [from, to) (at most 90
// days back) in windows of 7 days, de-duplicated by id, oldest first.
func (s *WalletService) WithdrawHistoryRange(ctx context.Context, coin string, from, to time.Time) ([]WithdrawRecord, error) {
	if err := s.checkRange(EpWithdrawHistory, from, to); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []WithdrawRecord
	for _, w := range historyWindows(from, to) {
		recs, err := s.WithdrawHistory(ctx, HistoryRequest{Coin: coin, Start: w[0], End: w[1], Limit: 1000})
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			if !seen[r.ID] {
				seen[r.ID] = true
				out = append(out, r)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ApplyTime.Before(out[j].ApplyTime) })
	return out, nil
}
