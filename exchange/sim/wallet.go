package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// defaultPrecision is the decimal places a coin's amounts may have when its
// config gives none.
const defaultPrecision = 8

// Coin is a coin the wallet knows: its networks with their fees, limits
// and enable flags (the coin config endpoint's record, plus the rules the
// simulator enforces that the wire record does not carry).
type Coin struct {
	Coin string
	Name string
	// Precision is the most decimal places an amount of the coin may have
	// in a transfer or withdrawal; 0 means 8.
	Precision int32
	Networks  []Network
}

// Network is one network of a coin. The embedded record is what the coin
// config endpoint reports; WithdrawMax zero means no maximum, and
// WithdrawIntegerMultiple zero means any amount within the precision.
type Network struct {
	exchange.Network
	// MemoRequired says a withdrawal on this network needs a memo, and
	// deposit addresses on it carry one.
	MemoRequired bool
}

func (c *Coin) precision() int32 {
	if c.Precision <= 0 {
		return defaultPrecision
	}
	return c.Precision
}

// network finds a network by its new name (netWork) or, for the previous
// withdrawal endpoint, by its old name too.
func (c *Coin) network(name string, old bool) *Network {
	for i := range c.Networks {
		n := &c.Networks[i]
		if n.NetWork == name || old && n.Network.Network == name {
			return n
		}
	}
	return nil
}

// walletState is the wallet, transfer and sub-account side of the
// exchange. It lives behind x.mu like everything else.
type walletState struct {
	coins     map[string]*Coin
	coinNames []string // sorted
	users     map[string]*walletUser
	subs      map[string]string // sub-account name → UID
	subNames  []string          // in creation order

	deposits    []*depositRec
	withdrawals []*withdrawal
	transfers   []*transferRec // universal transfers, own and sub-account
	internal    []*internalRec
	clientTran  map[string]*transferRec // sub-account transfers by clientTranId

	seq    int64 // deposits, withdrawals and transfers share one id sequence
	keySeq int64
}

// walletUser is the per-account wallet data.
type walletUser struct {
	email    string
	mobile   string
	areaCode string
	futures  map[string]decimal.Decimal
	addrs    []exchange.DepositAddress
	book     []exchange.WithdrawAddress
	// savedOnly refuses withdrawals to addresses not in the book (10212).
	savedOnly bool
	sub       *subAccount // set for sub-accounts created by CreateSubAccount
}

// wal returns the wallet state, created on first use so that New needs no
// wallet options: without SetCoins, the coins are the assets of the
// configured symbols, each on one network named SIM.
func (x *Exchange) wal() *walletState {
	if x.wallet == nil {
		w := &walletState{coins: map[string]*Coin{}, users: map[string]*walletUser{}, subs: map[string]string{},
			clientTran: map[string]*transferRec{}}
		assets := map[string]bool{x.opts.Token: true, dustQuote: true}
		for _, m := range x.markets {
			assets[m.info.BaseAsset] = true
			assets[m.info.QuoteAsset] = true
		}
		for a := range assets {
			w.addCoin(DefaultCoin(a))
		}
		x.wallet = w
	}
	return x.wallet
}

// DefaultCoin is the config a coin gets when none is set: one network SIM,
// deposits and withdrawals enabled, no fee, no minimum or maximum, one
// confirmation.
func DefaultCoin(coin string) Coin {
	return Coin{Coin: coin, Name: coin, Networks: []Network{{Network: exchange.Network{Coin: coin, Name: coin, Network: "SIM",
		NetWork: "SIM", DepositEnable: true, WithdrawEnable: true, MinConfirm: 1, WithdrawFee: decimal.Zero,
		WithdrawIntegerMultiple: decimal.Zero, WithdrawMax: decimal.Zero, WithdrawMin: decimal.Zero}}}}
}

func (w *walletState) addCoin(c Coin) {
	w.coins[c.Coin] = &c
	w.coinNames = w.coinNames[:0]
	for k := range w.coins {
		w.coinNames = append(w.coinNames, k)
	}
	sort.Strings(w.coinNames)
}

func (w *walletState) user(uid string) *walletUser {
	u, ok := w.users[uid]
	if !ok {
		u = &walletUser{futures: map[string]decimal.Decimal{}}
		w.users[uid] = u
	}
	return u
}

func (w *walletState) nextID() string {
	w.seq++
	return strconv.FormatInt(w.seq, 10)
}

// SetCoins replaces the coin config. Each coin needs a name and at least
// one network with a unique netWork name; fees, minimums, maximums and
// multiples must not be negative, and a maximum, when set, must not be
// below the minimum. The old network name defaults to the new one.
func (x *Exchange) SetCoins(coins []Coin) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	seen := map[string]bool{}
	for i := range coins {
		c := &coins[i]
		if c.Coin == "" {
			return fmt.Errorf("sim: coin %d has no name", i)
		}
		if seen[c.Coin] {
			return fmt.Errorf("sim: coin %s listed twice", c.Coin)
		}
		seen[c.Coin] = true
		if c.Precision < 0 || c.Precision > 18 {
			return fmt.Errorf("sim: coin %s: precision %d outside 0..18", c.Coin, c.Precision)
		}
		if len(c.Networks) == 0 {
			return fmt.Errorf("sim: coin %s has no network", c.Coin)
		}
		nets := map[string]bool{}
		for j := range c.Networks {
			n := &c.Networks[j]
			if n.NetWork == "" {
				return fmt.Errorf("sim: coin %s network %d has no netWork name", c.Coin, j)
			}
			if nets[n.NetWork] {
				return fmt.Errorf("sim: coin %s network %s listed twice", c.Coin, n.NetWork)
			}
			nets[n.NetWork] = true
			for name, d := range map[string]decimal.Decimal{"withdrawFee": n.WithdrawFee, "withdrawMin": n.WithdrawMin,
				"withdrawMax": n.WithdrawMax, "withdrawIntegerMultiple": n.WithdrawIntegerMultiple} {
				if d.IsNegative() {
					return fmt.Errorf("sim: coin %s network %s: %s %s is negative", c.Coin, n.NetWork, name, d)
				}
			}
			if n.WithdrawMax.IsPositive() && n.WithdrawMax.LessThan(n.WithdrawMin) {
				return fmt.Errorf("sim: coin %s network %s: withdrawMax %s below withdrawMin %s", c.Coin, n.NetWork, n.WithdrawMax, n.WithdrawMin)
			}
			if n.MinConfirm < 0 {
				return fmt.Errorf("sim: coin %s network %s: minConfirm %d is negative", c.Coin, n.NetWork, n.MinConfirm)
			}
		}
	}
	w := x.wal()
	w.coins = map[string]*Coin{}
	w.coinNames = nil
	for _, c := range coins {
		c.Networks = append([]Network(nil), c.Networks...) // the caller's slice stays as given
		for j := range c.Networks {
			n := &c.Networks[j]
			n.Coin = c.Coin
			if n.Network.Network == "" {
				n.Network.Network = n.NetWork
			}
			if n.Name == "" {
				n.Name = c.Name
			}
		}
		w.addCoin(c)
	}
	return nil
}

// coin looks a coin up: 10222 when empty, 10232 when unknown.
func (w *walletState) coin(name string) (*Coin, error) {
	if name == "" {
		return nil, apiErr(exchange.CodeCurrencyNull, "currency cannot be null")
	}
	c, ok := w.coins[name]
	if !ok {
		return nil, apiErr(exchange.CodeCurrencyNotExist, "currency %s does not exist", name)
	}
	return c, nil
}

// checkAmount applies the amount rules shared by transfers and
// withdrawals: 10102 when zero or negative, 10096 beyond the coin's
// precision.
func checkAmount(c *Coin, amount decimal.Decimal) error {
	if !amount.IsPositive() {
		return apiErr(exchange.CodeAmountNotPositive, "amount %s is zero or negative", amount)
	}
	if p := c.precision(); !amount.Truncate(p).Equal(amount) {
		return apiErr(exchange.CodeAmountTooManyDecimals, "amount %s has more than %d decimal places for %s", amount, p, c.Coin)
	}
	return nil
}

// CoinConfig returns every coin's networks, sorted by coin.
func (p *Port) CoinConfig() ([]exchange.CoinConfig, error) {
	if _, err := p.enter(exchange.EpCoinConfig); err != nil {
		return nil, err
	}
	defer p.leave()
	w := p.x.wal()
	out := make([]exchange.CoinConfig, 0, len(w.coinNames))
	for _, name := range w.coinNames {
		c := w.coins[name]
		cc := exchange.CoinConfig{Coin: c.Coin, Name: c.Name}
		for _, n := range c.Networks {
			cc.Networks = append(cc.Networks, n.Network)
		}
		out = append(out, cc)
	}
	return out, nil
}

// SetContact gives an account the email and mobile number internal
// transfers may address it by (areaCode is the telephone area code).
func (x *Exchange) SetContact(uid, email, mobile, areaCode string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.accounts[uid]; !ok {
		return apiErr(exchange.CodeUserNotExist, "user %s does not exist", uid)
	}
	w := x.wal()
	others := make([]string, 0, len(w.users))
	for other := range w.users {
		others = append(others, other)
	}
	sort.Strings(others) // the same clash always names the same user
	for _, other := range others {
		u := w.users[other]
		if other != uid && (email != "" && u.email == email || mobile != "" && u.mobile == mobile && u.areaCode == areaCode) {
			return fmt.Errorf("sim: contact %q/%q already belongs to user %s", email, mobile, other)
		}
	}
	u := w.user(uid)
	u.email, u.mobile, u.areaCode = email, mobile, areaCode
	return nil
}

// FuturesBalance returns an account's FUTURES wallet balance of an asset.
func (x *Exchange) FuturesBalance(uid, asset string) decimal.Decimal {
	x.mu.Lock()
	defer x.mu.Unlock()
	if u, ok := x.wal().users[uid]; ok {
		return u.futures[asset]
	}
	return decimal.Zero
}

// walletDigest derives deterministic identifiers (addresses, transaction hashes)
// from their inputs.
func walletDigest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
