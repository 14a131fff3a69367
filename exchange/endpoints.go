package exchange

import "fmt"

// EndpointID names one endpoint of the interface. The zero value is invalid.
type EndpointID int

// Security says whether an endpoint needs a key and a signature.
type Security uint8

const (
	// Public endpoints carry no key and are weighed against the IP budget.
	Public Security = iota + 1
	// Signed endpoints carry the key header, a timestamp and a signature and
	// are weighed against the UID budget.
	Signed
)

func (s Security) String() string {
	switch s {
	case Public:
		return "public"
	case Signed:
		return "signed"
	}
	return fmt.Sprintf("Security(%d)", uint8(s))
}

// Permission is an API key permission as the interface names it.
type Permission string

// API key permissions (spec 2.9), plus the wallet permissions the wallet
// endpoints require.
const (
	PermSpotAccountRead      Permission = "SPOT_ACCOUNT_READ"
	PermSpotAccountWrite     Permission = "SPOT_ACCOUNT_WRITE"
	PermSpotDealRead         Permission = "SPOT_DEAL_READ"
	PermSpotDealWrite        Permission = "SPOT_DEAL_WRITE"
	PermContractAccountRead  Permission = "CONTRACT_ACCOUNT_READ"
	PermContractAccountWrite Permission = "CONTRACT_ACCOUNT_WRITE"
	PermContractDealRead     Permission = "CONTRACT_DEAL_READ"
	PermContractDealWrite    Permission = "CONTRACT_DEAL_WRITE"
	PermSpotTransferRead     Permission = "SPOT_TRANSFER_READ"
	PermSpotTransferWrite    Permission = "SPOT_TRANSFER_WRITE"
	PermSpotWithdrawRead     Permission = "SPOT_WITHDRAW_READ"
	PermSpotWithdrawWrite    Permission = "SPOT_WITHDRAW_WRITE"
)

// KeyPermissions lists the permissions a sub-account API key may be given
// (spec 2.9), in the spec's order.
func KeyPermissions() []Permission {
	return []Permission{
		PermSpotAccountRead, PermSpotAccountWrite, PermSpotDealRead, PermSpotDealWrite,
		PermContractAccountRead, PermContractAccountWrite, PermContractDealRead, PermContractDealWrite,
		PermSpotTransferRead, PermSpotTransferWrite,
	}
}

// Pool is a rate budget that requests draw from.
type Pool uint8

// The rate pools of the interface (spec section 8).
const (
	// PoolIP is request weight for keyless endpoints: 300 per 10 s per IP.
	PoolIP Pool = iota + 1
	// PoolUID is request weight for keyed endpoints: 500 per 10 s per account.
	PoolUID
	// PoolOrder counts order placement and cancel requests: 12 per second, shared.
	PoolOrder
	// PoolBatch counts batch order requests: 2 per second.
	PoolBatch
	// PoolAccount counts account information requests: 2 per second.
	PoolAccount
	numPools = iota + 1
)

func (p Pool) String() string {
	switch p {
	case PoolIP:
		return "ip"
	case PoolUID:
		return "uid"
	case PoolOrder:
		return "order"
	case PoolBatch:
		return "batch"
	case PoolAccount:
		return "account"
	}
	return fmt.Sprintf("Pool(%d)", uint8(p))
}

// Pools lists every pool in a fixed order.
func Pools() []Pool { return []Pool{PoolIP, PoolUID, PoolOrder, PoolBatch, PoolAccount} }

// Draw is what one request takes from one pool.
type Draw struct {
	Pool   Pool
	Amount int
}

// Endpoint declares one endpoint: everything the client, the simulated server
// and the rate budgets need to know about it.
type Endpoint struct {
	ID         EndpointID
	Name       string // short name, used in errors and metrics
	Area       string // market, sub-account, spot, wallet
	Method     string
	Path       string
	Security   Security
	Permission Permission // empty for public endpoints
	MainOnly   bool       // only a main-account key may call it
	Weight     int        // request weight as the spec states it
	Draws      []Draw     // pools and amounts each request takes
	Deprecated bool       // marked as going offline by the spec
}

// String returns "METHOD /path".
func (e Endpoint) String() string { return e.Method + " " + e.Path }

// The endpoints, in the spec's order.
const (
	EpPing EndpointID = iota + 1
	EpTime
	EpDefaultSymbols
	EpOfflineSymbols
	EpExchangeInfo
	EpDepth
	EpTrades
	EpAggTrades
	EpKlines
	EpAvgPrice
	EpTicker24h
	EpTickerPrice
	EpBookTicker

	EpCreateSubAccount
	EpListSubAccounts
	EpCreateSubAPIKey
	EpListSubAPIKeys
	EpDeleteSubAPIKey
	EpSubUniversalTransfer
	EpSubUniversalTransferHistory
	EpSubAccountAssets

	EpKYCStatus
	EpUID
	EpSelfSymbols
	EpTestOrder
	EpNewOrder
	EpBatchOrders
	EpCancelOrder
	EpCancelOpenOrders
	EpQueryOrder
	EpOpenOrders
	EpAllOrders
	EpAccount
	EpMyTrades
	EpSetTokDeduct
	EpGetTokDeduct
	EpTradeFee
	EpCreateSTPGroup
	EpListSTPGroups
	EpDeleteSTPGroup
	EpAddSTPGroupUID
	EpRemoveSTPGroupUID

	EpCoinConfig
	EpWithdraw
	EpCancelWithdraw
	EpDepositHistory
	EpWithdrawHistory
	EpGenerateDepositAddress
	EpDepositAddresses
	EpWithdrawAddresses
	EpUniversalTransfer
	EpUniversalTransferHistory
	EpUniversalTransferByID
	EpDustCandidates
	EpDustConvert
	EpDustHistory
	EpInternalTransfer
	EpInternalTransferHistory
	EpWithdrawApply

	numEndpoints = iota + 1
)

func pub(name, path string, weight int) Endpoint {
	return Endpoint{Name: name, Area: "market", Method: "GET", Path: path, Security: Public,
		Weight: weight, Draws: []Draw{{PoolIP, weight}}}
}

func signed(area, name, method, path string, perm Permission, weight int, extra ...Pool) Endpoint {
	d := []Draw{{PoolUID, weight}}
	for _, p := range extra {
		d = append(d, Draw{p, 1})
	}
	return Endpoint{Name: name, Area: area, Method: method, Path: path, Security: Signed,
		Permission: perm, Weight: weight, Draws: d}
}

func sub(name, method, path string, perm Permission, weight int) Endpoint {
	e := signed("sub-account", name, method, path, perm, weight)
	e.MainOnly = true
	return e
}

func spot(name, method, path string, perm Permission, weight int, extra ...Pool) Endpoint {
	return signed("spot", name, method, path, perm, weight, extra...)
}

func wallet(name, method, path string, perm Permission, weight int) Endpoint {
	return signed("wallet", name, method, path, perm, weight)
}

// endpointTable is indexed by EndpointID. It is never modified after
// initialisation; Endpoints and Lookup hand out copies.
var endpointTable = [numEndpoints]Endpoint{
	EpPing:           pub("ping", "/api/v3/ping", 1),
	EpTime:           pub("time", "/api/v3/time", 1),
	EpDefaultSymbols: pub("defaultSymbols", "/api/v3/defaultSymbols", 1),
	EpOfflineSymbols: pub("offlineSymbols", "/api/v3/symbol/offline", 10),
	EpExchangeInfo:   pub("exchangeInfo", "/api/v3/exchangeInfo", 25),
	EpDepth:          pub("depth", "/api/v3/depth", 3),
	EpTrades:         pub("trades", "/api/v3/trades", 5),
	EpAggTrades:      pub("aggTrades", "/api/v3/aggTrades", 1),
	EpKlines:         pub("klines", "/api/v3/klines", 1),
	EpAvgPrice:       pub("avgPrice", "/api/v3/avgPrice", 1),
	EpTicker24h:      pub("ticker24hr", "/api/v3/ticker/24hr", 25),
	EpTickerPrice:    pub("tickerPrice", "/api/v3/ticker/price", 10),
	EpBookTicker:     pub("bookTicker", "/api/v3/ticker/bookTicker", 10),

	EpCreateSubAccount:            sub("createSubAccount", "POST", "/api/v3/sub-account/virtualSubAccount", PermSpotAccountRead, 1),
	EpListSubAccounts:             sub("listSubAccounts", "GET", "/api/v3/sub-account/list", PermSpotAccountRead, 1),
	EpCreateSubAPIKey:             sub("createSubAPIKey", "POST", "/api/v3/sub-account/apiKey", PermSpotAccountRead, 1),
	EpListSubAPIKeys:              sub("listSubAPIKeys", "GET", "/api/v3/sub-account/apiKey", PermSpotAccountRead, 1),
	EpDeleteSubAPIKey:             sub("deleteSubAPIKey", "DELETE", "/api/v3/sub-account/apiKey", PermSpotAccountRead, 1),
	EpSubUniversalTransfer:        sub("subUniversalTransfer", "POST", "/api/v3/capital/sub-account/universalTransfer", PermSpotTransferWrite, 50),
	EpSubUniversalTransferHistory: sub("subUniversalTransferHistory", "GET", "/api/v3/capital/sub-account/universalTransfer", PermSpotTransferRead, 1),
	EpSubAccountAssets:            sub("subAccountAssets", "GET", "/api/v3/sub-account/asset", PermSpotTransferRead, 1),

	EpKYCStatus:         spot("kycStatus", "GET", "/api/v3/kyc/status", PermSpotAccountRead, 1),
	EpUID:               spot("uid", "GET", "/api/v3/uid", PermSpotAccountRead, 1),
	EpSelfSymbols:       spot("selfSymbols", "GET", "/api/v3/selfSymbols", PermSpotAccountRead, 1),
	EpTestOrder:         spot("testOrder", "POST", "/api/v3/order/test", PermSpotDealWrite, 1),
	EpNewOrder:          spot("newOrder", "POST", "/api/v3/order", PermSpotDealWrite, 1, PoolOrder),
	EpBatchOrders:       spot("batchOrders", "POST", "/api/v3/batchOrders", PermSpotDealWrite, 1, PoolOrder, PoolBatch),
	EpCancelOrder:       spot("cancelOrder", "DELETE", "/api/v3/order", PermSpotDealWrite, 1, PoolOrder),
	EpCancelOpenOrders:  spot("cancelOpenOrders", "DELETE", "/api/v3/openOrders", PermSpotDealWrite, 1, PoolOrder),
	EpQueryOrder:        spot("queryOrder", "GET", "/api/v3/order", PermSpotDealRead, 2),
	EpOpenOrders:        spot("openOrders", "GET", "/api/v3/openOrders", PermSpotDealRead, 3),
	EpAllOrders:         spot("allOrders", "GET", "/api/v3/allOrders", PermSpotDealRead, 10),
	EpAccount:           spot("account", "GET", "/api/v3/account", PermSpotAccountRead, 10, PoolAccount),
	EpMyTrades:          spot("myTrades", "GET", "/api/v3/myTrades", PermSpotAccountRead, 10),
	EpSetTokDeduct:      spot("setTokDeduct", "POST", "/api/v3/tokDeduct/enable", PermSpotDealWrite, 1),
	EpGetTokDeduct:      spot("getTokDeduct", "GET", "/api/v3/tokDeduct/enable", PermSpotDealRead, 1),
	EpTradeFee:          spot("tradeFee", "GET", "/api/v3/tradeFee", PermSpotAccountRead, 20),
	EpCreateSTPGroup:    spot("createSTPGroup", "POST", "/api/v3/strategy/group", PermSpotAccountWrite, 20),
	EpListSTPGroups:     spot("listSTPGroups", "GET", "/api/v3/strategy/group", PermSpotAccountRead, 20),
	EpDeleteSTPGroup:    spot("deleteSTPGroup", "DELETE", "/api/v3/strategy/group", PermSpotAccountWrite, 20),
	EpAddSTPGroupUID:    spot("addSTPGroupUID", "POST", "/api/v3/strategy/group/uid", PermSpotAccountWrite, 20),
	EpRemoveSTPGroupUID: spot("removeSTPGroupUID", "DELETE", "/api/v3/strategy/group/uid", PermSpotAccountWrite, 20),

	EpCoinConfig:               wallet("coinConfig", "GET", "/api/v3/capital/config/getall", PermSpotWithdrawRead, 10),
	EpWithdraw:                 wallet("withdraw", "POST", "/api/v3/capital/withdraw", PermSpotWithdrawWrite, 1),
	EpCancelWithdraw:           wallet("cancelWithdraw", "DELETE", "/api/v3/capital/withdraw", PermSpotWithdrawWrite, 1),
	EpDepositHistory:           wallet("depositHistory", "GET", "/api/v3/capital/deposit/hisrec", PermSpotWithdrawRead, 10),
	EpWithdrawHistory:          wallet("withdrawHistory", "GET", "/api/v3/capital/withdraw/history", PermSpotWithdrawRead, 1),
	EpGenerateDepositAddress:   wallet("generateDepositAddress", "POST", "/api/v3/capital/deposit/address", PermSpotWithdrawWrite, 1),
	EpDepositAddresses:         wallet("depositAddresses", "GET", "/api/v3/capital/deposit/address", PermSpotWithdrawRead, 10),
	EpWithdrawAddresses:        wallet("withdrawAddresses", "GET", "/api/v3/capital/withdraw/address", PermSpotWithdrawRead, 10),
	EpUniversalTransfer:        wallet("universalTransfer", "POST", "/api/v3/capital/transfer", PermSpotTransferWrite, 50),
	EpUniversalTransferHistory: wallet("universalTransferHistory", "GET", "/api/v3/capital/transfer", PermSpotTransferRead, 1),
	EpUniversalTransferByID:    wallet("universalTransferByID", "GET", "/api/v3/capital/transfer/tranId", PermSpotTransferRead, 1),
	EpDustCandidates:           wallet("dustCandidates", "GET", "/api/v3/capital/convert/list", PermSpotAccountRead, 1),
	EpDustConvert:              wallet("dustConvert", "POST", "/api/v3/capital/convert", PermSpotAccountWrite, 10),
	EpDustHistory:              wallet("dustHistory", "GET", "/api/v3/capital/convert", PermSpotDealRead, 1),
	EpInternalTransfer:         wallet("internalTransfer", "POST", "/api/v3/capital/transfer/internal", PermSpotWithdrawWrite, 1),
	EpInternalTransferHistory:  wallet("internalTransferHistory", "GET", "/api/v3/capital/transfer/internal", PermSpotWithdrawRead, 1),
	EpWithdrawApply: func() Endpoint {
		e := wallet("withdrawApply", "POST", "/api/v3/capital/withdraw/apply", PermSpotWithdrawWrite, 10)
		e.Deprecated = true
		return e
	}(),
}

func init() {
	for id := range endpointTable {
		if id != 0 {
			endpointTable[id].ID = EndpointID(id)
		}
	}
}

// NumEndpoints is the number of endpoints in the interface.
const NumEndpoints = numEndpoints - 1

// Endpoints returns a copy of the endpoint table in the spec's order.
func Endpoints() []Endpoint {
	out := make([]Endpoint, 0, NumEndpoints)
	for _, e := range endpointTable[1:] {
		e.Draws = append([]Draw(nil), e.Draws...)
		out = append(out, e)
	}
	return out
}

// Lookup returns the declaration of id.
func Lookup(id EndpointID) (Endpoint, bool) {
	if id <= 0 || int(id) >= len(endpointTable) {
		return Endpoint{}, false
	}
	e := endpointTable[id]
	e.Draws = append([]Draw(nil), e.Draws...)
	return e, true
}

// endpoint returns the table row without copying; callers must not modify it.
func endpoint(id EndpointID) *Endpoint { return &endpointTable[id] }

func (id EndpointID) String() string {
	if id <= 0 || int(id) >= len(endpointTable) {
		return fmt.Sprintf("EndpointID(%d)", int(id))
	}
	return endpointTable[id].Name
}
