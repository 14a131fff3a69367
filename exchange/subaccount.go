package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"net/netip"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// SubAccount is a virtual sub-account of the master account.
type SubAccount struct {
	Name       string
	Note       string
	IsFreeze   bool
	CreateTime time.Time
	UID        string
}

// UnmarshalJSON decodes a sub-account; isFreeze arrives as a boolean or a
// string.
func (s *SubAccount) UnmarshalJSON(b []byte) error {
	var w struct {
		SubAccount string     `json:"subAccount"`
		Note       string     `json:"note"`
		IsFreeze   FlexBool   `json:"isFreeze"`
		CreateTime Millis     `json:"createTime"`
		UID        FlexString `json:"uid"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.SubAccount == "" {
		return errors.New("sub-account without subAccount")
	}
	*s = SubAccount{Name: w.SubAccount, Note: w.Note, IsFreeze: bool(w.IsFreeze), CreateTime: w.CreateTime.Time(), UID: string(w.UID)}
	return nil
}

// validSubName checks the 8–32 letters-and-digits rule.
func validSubName(ep EndpointID, name string) error {
	if len(name) < 8 || len(name) > 32 {
		return invalid(ep, "subAccount", "%q must be 8-32 letters and digits", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return invalid(ep, "subAccount", "%q must be 8-32 letters and digits", name)
		}
	}
	return nil
}

// CreateSubAccount creates a virtual sub-account.
func (s *SubAccountService) CreateSubAccount(ctx context.Context, name, note string) (SubAccount, error) {
	if err := validSubName(EpCreateSubAccount, name); err != nil {
		return SubAccount{}, err
	}
	if note == "" {
		return SubAccount{}, invalid(EpCreateSubAccount, "note", "required")
	}
	var q query
	q.str("subAccount", name)
	q.str("note", note)
	var out SubAccount
	if err := s.c.do(ctx, EpCreateSubAccount, &q, &out); err != nil {
		return SubAccount{}, err
	}
	return out, nil
}

// SubAccountsRequest filters the sub-account list.
type SubAccountsRequest struct {
	SubAccount string
	IsFreeze   *bool
	Page       int // 0: default 1
	Limit      int // 0: default 10; else 1..200
}

// SubAccounts lists sub-accounts.
func (s *SubAccountService) SubAccounts(ctx context.Context, r SubAccountsRequest) ([]SubAccount, error) {
	if r.Page < 0 {
		return nil, invalid(EpListSubAccounts, "page", "%d is negative", r.Page)
	}
	if r.Limit < 0 || r.Limit > 200 {
		return nil, invalid(EpListSubAccounts, "limit", "%d is outside 1..200", r.Limit)
	}
	var q query
	q.str("subAccount", r.SubAccount)
	if r.IsFreeze != nil {
		q.bool("isFreeze", *r.IsFreeze)
	}
	q.optInt("page", int64(r.Page))
	q.optInt("limit", int64(r.Limit))
	var w struct {
		SubAccounts []SubAccount `json:"subAccounts"`
	}
	if err := s.c.do(ctx, EpListSubAccounts, &q, &w); err != nil {
		return nil, err
	}
	return w.SubAccounts, nil
}

// SubAPIKey is an API key of a sub-account. SecretKey is only set in the
// creation reply and never prints.
type SubAPIKey struct {
	SubAccount  string
	Note        string
	APIKey      string
	SecretKey   Secret
	Permissions []Permission
	IPs         []string
	CreateTime  time.Time
}

// UnmarshalJSON decodes a key; the wire spells the time creatTime.
func (k *SubAPIKey) UnmarshalJSON(b []byte) error {
	var w struct {
		SubAccount  string `json:"subAccount"`
		Note        string `json:"note"`
		APIKey      string `json:"apiKey"`
		SecretKey   string `json:"secretKey"`
		Permissions string `json:"permissions"`
		IP          string `json:"ip"`
		CreatTime   Millis `json:"creatTime"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.APIKey == "" {
		return errors.New("API key record without apiKey")
	}
	*k = SubAPIKey{SubAccount: w.SubAccount, Note: w.Note, APIKey: w.APIKey, CreateTime: w.CreatTime.Time(), IPs: splitList(w.IP)}
	if w.SecretKey != "" {
		k.SecretKey = NewSecret(w.SecretKey)
	}
	for _, p := range splitList(w.Permissions) {
		k.Permissions = append(k.Permissions, Permission(p))
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// SubAPIKeyRequest creates a sub-account API key.
type SubAPIKeyRequest struct {
	SubAccount  string
	Note        string
	Permissions []Permission
	IPs         []string // at most 20
}

// CreateSubAPIKey creates an API key for a sub-account.
func (s *SubAccountService) CreateSubAPIKey(ctx context.Context, r SubAPIKeyRequest) (SubAPIKey, error) {
	ep := EpCreateSubAPIKey
	if err := validSubName(ep, r.SubAccount); err != nil {
		return SubAPIKey{}, err
	}
	if r.Note == "" {
		return SubAPIKey{}, invalid(ep, "note", "required")
	}
	if len(r.Permissions) == 0 {
		return SubAPIKey{}, invalid(ep, "permissions", "at least one is required")
	}
	perms := make([]string, 0, len(r.Permissions))
	for _, p := range r.Permissions {
		known := false
		for _, k := range KeyPermissions() {
			known = known || p == k
		}
		if !known {
			return SubAPIKey{}, invalid(ep, "permissions", "%q is not a key permission", p)
		}
		perms = append(perms, string(p))
	}
	if len(r.IPs) > 20 {
		return SubAPIKey{}, invalid(ep, "ip", "%d addresses; at most 20", len(r.IPs))
	}
	for _, ip := range r.IPs {
		if _, err := netip.ParseAddr(ip); err != nil {
			return SubAPIKey{}, invalid(ep, "ip", "%q is not an IP address", ip)
		}
	}
	var q query
	q.str("subAccount", r.SubAccount)
	q.str("note", r.Note)
	q.str("permissions", strings.Join(perms, ","))
	q.str("ip", strings.Join(r.IPs, ","))
	var k SubAPIKey
	if err := s.c.do(ctx, ep, &q, &k); err != nil {
		return SubAPIKey{}, err
	}
	return k, nil
}

// SubAPIKeys lists a sub-account's API keys.
func (s *SubAccountService) SubAPIKeys(ctx context.Context, subAccount string) ([]SubAPIKey, error) {
	if err := validSubName(EpListSubAPIKeys, subAccount); err != nil {
		return nil, err
	}
	var q query
	q.str("subAccount", subAccount)
	var w struct {
		SubAccount []SubAPIKey `json:"subAccount"`
	}
	if err := s.c.do(ctx, EpListSubAPIKeys, &q, &w); err != nil {
		return nil, err
	}
	return w.SubAccount, nil
}

// DeleteSubAPIKey deletes a sub-account API key and returns the
// sub-account's name.
func (s *SubAccountService) DeleteSubAPIKey(ctx context.Context, subAccount, apiKey string) (string, error) {
	if err := validSubName(EpDeleteSubAPIKey, subAccount); err != nil {
		return "", err
	}
	if apiKey == "" {
		return "", invalid(EpDeleteSubAPIKey, "apiKey", "required")
	}
	var q query
	q.str("subAccount", subAccount)
	q.str("apiKey", apiKey)
	var w struct {
		SubAccount string `json:"subAccount"`
	}
	if err := s.c.do(ctx, EpDeleteSubAPIKey, &q, &w); err != nil {
		return "", err
	}
	if w.SubAccount == "" {
		return "", decodeError(EpDeleteSubAPIKey, nil, errors.New("subAccount missing"))
	}
	return w.SubAccount, nil
}

// AccountType is a wallet of universal transfers.
type AccountType string

// Account types.
const (
	AccountSpot    AccountType = "SPOT"
	AccountFutures AccountType = "FUTURES"
)

func (a AccountType) valid() bool { return a == AccountSpot || a == AccountFutures }

// SubTransferRequest moves assets between the master and sub-accounts.
type SubTransferRequest struct {
	ClientTranID    string // optional, at most 32 letters and digits: makes the transfer idempotent
	FromAccount     string // "" for the master
	ToAccount       string // "" for the master
	FromAccountType AccountType
	ToAccountType   AccountType
	Asset           string
	Amount          decimal.Decimal
}

func validTranID(ep EndpointID, id string) error {
	if len(id) > 32 {
		return invalid(ep, "clientTranId", "%d characters; at most 32", len(id))
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return invalid(ep, "clientTranId", "%q must be letters and digits", id)
		}
	}
	return nil
}

func validAccountTypes(ep EndpointID, from, to AccountType) error {
	if !from.valid() {
		return invalid(ep, "fromAccountType", "%q is not SPOT or FUTURES", from)
	}
	if !to.valid() {
		return invalid(ep, "toAccountType", "%q is not SPOT or FUTURES", to)
	}
	return nil
}

func validAmount(ep EndpointID, asset string, amount decimal.Decimal) error {
	if asset == "" {
		return invalid(ep, "asset", "required")
	}
	if !amount.IsPositive() {
		return invalid(ep, "amount", "%s must be positive", amount)
	}
	return nil
}

// UniversalTransfer moves an asset between accounts and wallets of the
// master and its sub-accounts, and returns the transfer id.
func (s *SubAccountService) UniversalTransfer(ctx context.Context, r SubTransferRequest) (string, error) {
	ep := EpSubUniversalTransfer
	if err := validTranID(ep, r.ClientTranID); err != nil {
		return "", err
	}
	if err := validAccountTypes(ep, r.FromAccountType, r.ToAccountType); err != nil {
		return "", err
	}
	if err := validAmount(ep, r.Asset, r.Amount); err != nil {
		return "", err
	}
	var q query
	q.str("clientTranId", r.ClientTranID)
	q.str("fromAccount", r.FromAccount)
	q.str("toAccount", r.ToAccount)
	q.str("fromAccountType", string(r.FromAccountType))
	q.str("toAccountType", string(r.ToAccountType))
	q.str("asset", r.Asset)
	q.dec("amount", r.Amount)
	return s.c.tranID(ctx, ep, &q)
}

// tranID calls a transfer endpoint whose reply carries tranId as an
// object, a one-element array, or nested one level.
func (c *Client) tranID(ctx context.Context, ep EndpointID, q *query) (string, error) {
	body, err := c.call(ctx, ep, q)
	if err != nil {
		return "", err
	}
	id, err := decodeTranID(body, 0)
	if err != nil {
		return "", decodeError(ep, body, err)
	}
	return id, nil
}

// decodeTranID accepts {"tranId":"1"}, {"tranId":1}, [{"tranId":"1"}],
// {"tranId":[{"tranId":"1"}]}, "1" and 1.
func decodeTranID(b []byte, depth int) (string, error) {
	if depth > 3 {
		return "", errors.New("tranId nested too deep")
	}
	b = trimJSON(b)
	if len(b) == 0 {
		return "", errors.New("empty reply")
	}
	switch b[0] {
	case '[':
		var arr []json.RawMessage
		if err := json.Unmarshal(b, &arr); err != nil {
			return "", err
		}
		if len(arr) != 1 {
			return "", errors.New("tranId array must hold one element")
		}
		return decodeTranID(arr[0], depth+1)
	case '{':
		var obj struct {
			TranID json.RawMessage `json:"tranId"`
		}
		if err := json.Unmarshal(b, &obj); err != nil {
			return "", err
		}
		if len(obj.TranID) == 0 {
			return "", errors.New("tranId missing")
		}
		return decodeTranID(obj.TranID, depth+1)
	}
	var s FlexString
	if err := s.UnmarshalJSON(b); err != nil {
		return "", err
	}
	if s == "" {
		return "", errors.New("tranId empty")
	}
	return string(s), nil
}

func trimJSON(b []byte) []byte { return []byte(strings.TrimSpace(string(b))) }

// TransferRecord is one universal transfer.
type TransferRecord struct {
	TranID          string
	ClientTranID    string
	FromAccount     string
	ToAccount       string
	FromAccountType AccountType
	ToAccountType   AccountType
	FromSymbol      string
	ToSymbol        string
	Symbol          string
	Asset           string
	Amount          decimal.Decimal
	Status          string
	Timestamp       time.Time
}

// UnmarshalJSON decodes a transfer record.
func (t *TransferRecord) UnmarshalJSON(b []byte) error {
	var w struct {
		TranID          FlexString `json:"tranId"`
		ClientTranID    string     `json:"clientTranId"`
		FromAccount     string     `json:"fromAccount"`
		ToAccount       string     `json:"toAccount"`
		FromAccountType string     `json:"fromAccountType"`
		ToAccountType   string     `json:"toAccountType"`
		FromSymbol      string     `json:"fromSymbol"`
		ToSymbol        string     `json:"toSymbol"`
		Symbol          string     `json:"symbol"`
		Asset           string     `json:"asset"`
		Amount          OptDecimal `json:"amount"`
		Status          string     `json:"status"`
		Timestamp       Millis     `json:"timestamp"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.TranID == "" || !w.Amount.Valid {
		return errors.New("transfer record without tranId or amount")
	}
	*t = TransferRecord{TranID: string(w.TranID), ClientTranID: w.ClientTranID, FromAccount: w.FromAccount, ToAccount: w.ToAccount,
		FromAccountType: AccountType(w.FromAccountType), ToAccountType: AccountType(w.ToAccountType), FromSymbol: w.FromSymbol,
		ToSymbol: w.ToSymbol, Symbol: w.Symbol, Asset: w.Asset, Amount: w.Amount.Decimal, Status: w.Status, Timestamp: w.Timestamp.Time()}
	return nil
}

// SubTransferHistoryRequest filters sub-account transfer history.
type SubTransferHistoryRequest struct {
	ClientTranID    string
	FromAccount     string
	ToAccount       string
	FromAccountType AccountType
	ToAccountType   AccountType
	Start           time.Time
	End             time.Time
	Page            int
	Limit           int // 0: default 500; else 1..500
}

// UniversalTransferHistory lists sub-account transfers.
func (s *SubAccountService) UniversalTransferHistory(ctx context.Context, r SubTransferHistoryRequest) ([]TransferRecord, error) {
	ep := EpSubUniversalTransferHistory
	if err := validAccountTypes(ep, r.FromAccountType, r.ToAccountType); err != nil {
		return nil, err
	}
	if err := checkWindow(ep, r.Start, r.End, false); err != nil {
		return nil, err
	}
	if r.Page < 0 {
		return nil, invalid(ep, "page", "%d is negative", r.Page)
	}
	if r.Limit < 0 || r.Limit > 500 {
		return nil, invalid(ep, "limit", "%d is outside 1..500", r.Limit)
	}
	var q query
	q.str("clientTranId", r.ClientTranID)
	q.str("fromAccount", r.FromAccount)
	q.str("toAccount", r.ToAccount)
	q.str("fromAccountType", string(r.FromAccountType))
	q.str("toAccountType", string(r.ToAccountType))
	q.time("startTime", r.Start)
	q.time("endTime", r.End)
	q.optInt("page", int64(r.Page))
	q.optInt("limit", int64(r.Limit))
	body, err := s.c.call(ctx, ep, &q)
	if err != nil {
		return nil, err
	}
	recs, err := decodeTransferRecords(body)
	if err != nil {
		return nil, decodeError(ep, body, err)
	}
	return recs, nil
}

// decodeTransferRecords accepts an array of records, an object with a
// result (or rows) array, or a single record.
func decodeTransferRecords(body []byte) ([]TransferRecord, error) {
	b := trimJSON(body)
	if len(b) > 0 && b[0] == '[' {
		var out []TransferRecord
		return out, json.Unmarshal(b, &out)
	}
	var page struct {
		Result *[]TransferRecord `json:"result"`
		Rows   *[]TransferRecord `json:"rows"`
	}
	if err := json.Unmarshal(b, &page); err != nil {
		return nil, err
	}
	switch {
	case page.Result != nil:
		return *page.Result, nil
	case page.Rows != nil:
		return *page.Rows, nil
	}
	var one TransferRecord
	if err := json.Unmarshal(b, &one); err != nil {
		return nil, err
	}
	return []TransferRecord{one}, nil
}

// Assets returns a sub-account's balances; only the SPOT account type is
// supported now.
func (s *SubAccountService) Assets(ctx context.Context, subAccount string, accountType AccountType) ([]Balance, error) {
	ep := EpSubAccountAssets
	if err := validSubName(ep, subAccount); err != nil {
		return nil, err
	}
	if accountType != AccountSpot {
		return nil, invalid(ep, "accountType", "%q: only SPOT is supported", accountType)
	}
	var q query
	q.str("subAccount", subAccount)
	q.str("accountType", string(accountType))
	var w struct {
		Balances *[]Balance `json:"balances"`
	}
	if err := s.c.do(ctx, ep, &q, &w); err != nil {
		return nil, err
	}
	if w.Balances == nil {
		return nil, decodeError(ep, nil, errors.New("balances missing"))
	}
	return *w.Balances, nil
}
