package simserver

import (
	"strconv"
	"strings"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/sim"
)

// The reply shapes of the wallet and sub-account endpoints (spec 2.9–2.11
// and 4.2, 4.4), with the wire's names; amounts are decimal strings and
// times milliseconds.

type networkWire struct {
	Coin                    string `json:"coin"`
	Name                    string `json:"name"`
	Network                 string `json:"network"`
	NetWork                 string `json:"netWork"`
	DepositEnable           bool   `json:"depositEnable"`
	WithdrawEnable          bool   `json:"withdrawEnable"`
	DepositDesc             string `json:"depositDesc"`
	DepositTips             string `json:"depositTips"`
	WithdrawTips            string `json:"withdrawTips"`
	MinConfirm              int    `json:"minConfirm"`
	WithdrawFee             string `json:"withdrawFee"`
	WithdrawIntegerMultiple string `json:"withdrawIntegerMultiple"`
	WithdrawMax             string `json:"withdrawMax"`
	WithdrawMin             string `json:"withdrawMin"`
	SameAddress             bool   `json:"sameAddress"`
	Contract                string `json:"contract"`
}

type coinWire struct {
	Coin        string        `json:"coin"`
	Name        string        `json:"name"`
	NetworkList []networkWire `json:"networkList"`
}

func toCoinWire(c exchange.CoinConfig) coinWire {
	w := coinWire{Coin: c.Coin, Name: c.Name, NetworkList: make([]networkWire, 0, len(c.Networks))}
	for _, n := range c.Networks {
		w.NetworkList = append(w.NetworkList, networkWire{Coin: n.Coin, Name: n.Name, Network: n.Network, NetWork: n.NetWork,
			DepositEnable: n.DepositEnable, WithdrawEnable: n.WithdrawEnable, DepositDesc: n.DepositDesc, DepositTips: n.DepositTips,
			WithdrawTips: n.WithdrawTips, MinConfirm: n.MinConfirm, WithdrawFee: n.WithdrawFee.String(),
			WithdrawIntegerMultiple: n.WithdrawIntegerMultiple.String(), WithdrawMax: n.WithdrawMax.String(),
			WithdrawMin: n.WithdrawMin.String(), SameAddress: n.SameAddress, Contract: n.Contract})
	}
	return w
}

type depositWire struct {
	Amount        string  `json:"amount"`
	Coin          string  `json:"coin"`
	Network       string  `json:"network"`
	Status        int     `json:"status"`
	Address       string  `json:"address"`
	AddressTag    *string `json:"addressTag"`
	TxID          string  `json:"txId"`
	InsertTime    int64   `json:"insertTime"`
	UnlockConfirm string  `json:"unlockConfirm"`
	ConfirmTimes  string  `json:"confirmTimes"`
	Memo          *string `json:"memo"`
}

// orNull writes an empty string as null, as the live service does for
// absent tags and memos.
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toDepositWire(d exchange.DepositRecord) depositWire {
	return depositWire{Amount: d.Amount.String(), Coin: d.Coin, Network: d.Network, Status: int(d.Status), Address: d.Address,
		AddressTag: orNull(d.AddressTag), TxID: d.TxID, InsertTime: ms(d.InsertTime), UnlockConfirm: d.UnlockConfirm,
		ConfirmTimes: d.ConfirmTimes, Memo: orNull(d.Memo)}
}

type withdrawWire struct {
	ID              string  `json:"id"`
	WithdrawOrderID *string `json:"withdrawOrderId,omitempty"` // absent when not set
	TxID            *string `json:"txId"`
	Coin            string  `json:"coin"`
	Network         string  `json:"network"`
	Address         string  `json:"address"`
	Amount          string  `json:"amount"`
	TransferType    int     `json:"transferType"`
	Status          int     `json:"status"`
	TransactionFee  string  `json:"transactionFee"`
	ConfirmNo       int     `json:"confirmNo"`
	ApplyTime       int64   `json:"applyTime"`
	UpdateTime      int64   `json:"updateTime"`
	Remark          string  `json:"remark"`
	Memo            *string `json:"memo"`
	TransHash       *string `json:"transHash"`
	CoinID          string  `json:"coinId"`
	VcoinID         string  `json:"vcoinId"`
}

func toWithdrawWire(r exchange.WithdrawRecord) withdrawWire {
	return withdrawWire{ID: r.ID, WithdrawOrderID: orNull(r.WithdrawOrderID), TxID: orNull(r.TxID), Coin: r.Coin, Network: r.Network,
		Address: r.Address, Amount: r.Amount.String(), TransferType: r.TransferType, Status: int(r.Status),
		TransactionFee: r.TransactionFee.String(), ConfirmNo: r.ConfirmNo, ApplyTime: ms(r.ApplyTime), UpdateTime: ms(r.UpdateTime),
		Remark: r.Remark, Memo: orNull(r.Memo), TransHash: orNull(r.TransHash), CoinID: r.CoinID, VcoinID: r.VcoinID}
}

// addressWire is a deposit address; it carries the network under both
// names, network and netWork, as the live service does (facts file).
type addressWire struct {
	Coin    string  `json:"coin"`
	Network string  `json:"network"`
	NetWork string  `json:"netWork"`
	Address string  `json:"address"`
	Memo    *string `json:"memo"`
}

func toAddressWire(a exchange.DepositAddress) addressWire {
	return addressWire{Coin: a.Coin, Network: a.Network, NetWork: a.Network, Address: a.Address, Memo: orNull(a.Memo)}
}

// transferWire is a universal transfer record (spec 2.10); which optional
// fields appear depends on the endpoint.
type transferWire struct {
	TranID          string  `json:"tranId"`
	ClientTranID    *string `json:"clientTranId,omitempty"`
	FromAccount     *string `json:"fromAccount,omitempty"`
	ToAccount       *string `json:"toAccount,omitempty"`
	Asset           string  `json:"asset"`
	Amount          string  `json:"amount"`
	FromAccountType string  `json:"fromAccountType"`
	ToAccountType   string  `json:"toAccountType"`
	FromSymbol      *string `json:"fromSymbol,omitempty"`
	ToSymbol        *string `json:"toSymbol,omitempty"`
	Symbol          *string `json:"symbol,omitempty"`
	Status          string  `json:"status"`
	Timestamp       int64   `json:"timestamp"`
}

// transferShape selects the optional fields of a transfer record.
type transferShape uint8

const (
	userHistory transferShape = iota // fromSymbol, toSymbol
	byID                             // symbol
	subHistory                       // accounts, clientTranId, fromSymbol, toSymbol
)

func toTransferWire(t exchange.TransferRecord, shape transferShape) transferWire {
	w := transferWire{TranID: t.TranID, Asset: t.Asset, Amount: t.Amount.String(), FromAccountType: string(t.FromAccountType),
		ToAccountType: string(t.ToAccountType), Status: t.Status, Timestamp: ms(t.Timestamp)}
	switch shape {
	case byID:
		w.Symbol = &t.Symbol
	case subHistory:
		w.ClientTranID, w.FromAccount, w.ToAccount = &t.ClientTranID, &t.FromAccount, &t.ToAccount
		fallthrough
	case userHistory:
		w.FromSymbol, w.ToSymbol = &t.FromSymbol, &t.ToSymbol
	}
	return w
}

type internalWire struct {
	TranID        string `json:"tranId"`
	Asset         string `json:"asset"`
	Amount        string `json:"amount"`
	FromAccount   string `json:"fromAccount"`
	ToAccountType string `json:"toAccountType"`
	ToAccount     string `json:"toAccount"`
	Status        string `json:"status"`
	Timestamp     int64  `json:"timestamp"`
}

func toInternalWire(t exchange.InternalTransferRecord) internalWire {
	return internalWire{TranID: t.TranID, Asset: t.Asset, Amount: t.Amount.String(), FromAccount: t.FromAccount,
		ToAccountType: t.ToAccountType, ToAccount: t.ToAccount, Status: t.Status, Timestamp: ms(t.Timestamp)}
}

type dustCandidateWire struct {
	ConvertTok  string  `json:"convertTok"`
	ConvertUsdt string  `json:"convertUsdt"`
	Balance     string  `json:"balance"`
	Asset       string  `json:"asset"`
	Code        *string `json:"code"`
	Message     *string `json:"message"`
}

type dustFailureWire struct {
	Asset   string `json:"asset"`
	Message string `json:"message"`
	Code    string `json:"code"`
}

type dustResultWire struct {
	SuccessList  []string          `json:"successList"`
	FailedList   []dustFailureWire `json:"failedList"`
	TotalConvert string            `json:"totalConvert"`
	ConvertFee   string            `json:"convertFee"`
}

type dustDetailWire struct {
	ID      string `json:"id"`
	Convert string `json:"convert"`
	Fee     string `json:"fee"`
	Amount  string `json:"amount"`
	Time    int64  `json:"time"`
	Asset   string `json:"asset"`
}

type dustConversionWire struct {
	TotalConvert   string           `json:"totalConvert"`
	TotalFee       string           `json:"totalFee"`
	ConvertTime    int64            `json:"convertTime"`
	ConvertDetails []dustDetailWire `json:"convertDetails"`
}

// pageWire is the {data, totalRecords, page, totalPageNum} page of the
// address book, dust and internal transfer histories.
type pageWire[T any] struct {
	Page         int `json:"page"`
	TotalRecords int `json:"totalRecords"`
	TotalPageNum int `json:"totalPageNum"`
	Data         []T `json:"data"`
}

type subAccountWire struct {
	SubAccount string `json:"subAccount"`
	Note       string `json:"note"`
	IsFreeze   bool   `json:"isFreeze"`
	CreateTime int64  `json:"createTime"`
	UID        string `json:"uid"`
}

type subKeyWire struct {
	SubAccount  string `json:"subAccount,omitempty"`
	Note        string `json:"note"`
	APIKey      string `json:"apiKey"`
	SecretKey   string `json:"secretKey,omitempty"` // only in the creation reply
	Permissions string `json:"permissions"`
	IP          string `json:"ip"`
	CreatTime   int64  `json:"creatTime"` // spelling as given
}

func toSubKeyWire(k sim.SubKey, withSub bool) subKeyWire {
	perms := make([]string, len(k.Permissions))
	for i, p := range k.Permissions {
		perms[i] = string(p)
	}
	w := subKeyWire{Note: k.Note, APIKey: k.APIKey, Permissions: strings.Join(perms, ","), IP: strings.Join(k.IPs, ","), CreatTime: ms(k.CreateTime)}
	if withSub {
		w.SubAccount = k.SubAccount
	}
	return w
}

// commaList splits a comma-separated parameter, dropping empty items.
func commaList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// intParam parses an optional integer parameter as an int.
func intParam(p *params, k string) (int, *apiError) {
	n, err := p.int64(k, 0)
	if err != nil {
		return 0, err
	}
	if n < -1<<31 || n > 1<<31-1 {
		return 0, badParam(exchange.CodeParameterError, "parameter %s: %s is out of range", k, strconv.FormatInt(n, 10))
	}
	return int(n), nil
}
