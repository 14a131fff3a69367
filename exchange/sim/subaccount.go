package sim

import (
	"fmt"
	"net/http"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

// Sub-account limits (spec section 8).
const (
	subListDefault = 10
	subListMax     = 200
	maxKeyIPs      = 20
	maxSubKeys     = 30
)

// subAccount is a virtual sub-account of the master.
type subAccount struct {
	name    string
	note    string
	uid     string
	frozen  bool
	created time.Time
	keys    []SubKey
}

func (s *subAccount) info() exchange.SubAccount {
	return exchange.SubAccount{Name: s.name, Note: s.note, IsFreeze: s.frozen, CreateTime: s.created, UID: s.uid}
}

// SubKey is a sub-account API key as the simulator keeps it. The secret is
// not kept: CreateSubAPIKey hands it out once, as the live service does.
type SubKey struct {
	SubAccount  string
	UID         string // the sub-account's UID: the account the key acts for
	Note        string
	APIKey      string
	Permissions []exchange.Permission
	IPs         []string
	CreateTime  time.Time
}

// mainOnly refuses a port that is not the master's: sub-account
// operations take a main-account key.
func (p *Port) mainOnly() error {
	if p.uid != p.x.master {
		return &exchange.APIError{Status: http.StatusUnauthorized, Code: exchange.CodeNoAuthority,
			Msg: "sub-account operations need the main account"}
	}
	return nil
}

// validSubName applies the 8-32 letters-and-digits rule.
func validSubName(name string) bool {
	if len(name) < 8 || len(name) > 32 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// sub finds a sub-account by name: 730600 when empty, 140001 when unknown.
func (x *Exchange) sub(name string) (*subAccount, error) {
	if name == "" {
		return nil, apiErr(exchange.CodeSubAccountNameNull, "sub-account name cannot be null")
	}
	w := x.wal()
	uid, ok := w.subs[name]
	if !ok {
		return nil, apiErr(exchange.CodeSubAccountNotExist, "sub-account %s does not exist", name)
	}
	return w.users[uid].sub, nil
}

// CreateSubAccount creates a virtual sub-account with its own UID. The name
// is 8-32 letters and digits (730600 empty, 730601 otherwise) and unique
// (730101); the note is required (730602).
func (p *Port) CreateSubAccount(name, note string) (exchange.SubAccount, error) {
	if _, err := p.enter(exchange.EpCreateSubAccount); err != nil {
		return exchange.SubAccount{}, err
	}
	defer p.leave()
	if err := p.mainOnly(); err != nil {
		return exchange.SubAccount{}, err
	}
	switch {
	case name == "":
		return exchange.SubAccount{}, apiErr(exchange.CodeSubAccountNameNull, "sub-account name cannot be null")
	case !validSubName(name):
		return exchange.SubAccount{}, apiErr(exchange.CodeSubAccountNameFormat, "sub-account name %q must be 8-32 letters and digits", name)
	case note == "":
		return exchange.SubAccount{}, apiErr(exchange.CodeSubAccountRemarksNull, "sub-account remarks cannot be null")
	}
	w := p.x.wal()
	if _, dup := w.subs[name]; dup {
		return exchange.SubAccount{}, apiErr(exchange.CodeUserNameExists, "user name %s already exists", name)
	}
	for _, a := range p.x.accounts {
		if a.name == name {
			return exchange.SubAccount{}, apiErr(exchange.CodeUserNameExists, "user name %s already exists", name)
		}
	}
	// The same UID scheme as CreateAccount, so both kinds of account share
	// one UID sequence.
	p.x.nextUID++
	uid := fmt.Sprint(mustInt(p.x.master) + p.x.nextUID - 1)
	p.x.accounts[uid] = newAccount(uid, name)
	s := &subAccount{name: name, note: note, uid: uid, created: p.x.now}
	w.user(uid).sub = s
	w.subs[name] = uid
	w.subNames = append(w.subNames, name)
	return s.info(), nil
}

// SubAccounts lists sub-accounts in creation order, filtered by name and
// freeze state; page defaults to 1, limit to 10 (at most 200).
func (p *Port) SubAccounts(r exchange.SubAccountsRequest) ([]exchange.SubAccount, error) {
	if _, err := p.enter(exchange.EpListSubAccounts); err != nil {
		return nil, err
	}
	defer p.leave()
	if err := p.mainOnly(); err != nil {
		return nil, err
	}
	page, limit, err := paging(r.Page, r.Limit, subListDefault, subListMax)
	if err != nil {
		return nil, err
	}
	w := p.x.wal()
	var all []exchange.SubAccount
	for _, name := range w.subNames {
		s := w.users[w.subs[name]].sub
		if (r.SubAccount == "" || r.SubAccount == name) && (r.IsFreeze == nil || *r.IsFreeze == s.frozen) {
			all = append(all, s.info())
		}
	}
	lo, hi, _ := pageBounds(len(all), page, limit)
	return append([]exchange.SubAccount{}, all[lo:hi]...), nil
}

// FreezeSubAccount freezes or unfreezes a sub-account: a frozen one takes
// part in no transfer (140002).
func (x *Exchange) FreezeSubAccount(name string, frozen bool) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	s, err := x.sub(name)
	if err != nil {
		return err
	}
	s.frozen = frozen
	return nil
}

// SubAccountUID returns the UID of a sub-account.
func (x *Exchange) SubAccountUID(name string) (string, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	s, err := x.sub(name)
	if err != nil {
		return "", err
	}
	return s.uid, nil
}

// SubAssets returns a sub-account's SPOT balances (the only account type
// supported: FUTURES answers 730003).
func (p *Port) SubAssets(name string, t exchange.AccountType) ([]exchange.Balance, error) {
	if _, err := p.enter(exchange.EpSubAccountAssets); err != nil {
		return nil, err
	}
	defer p.leave()
	if err := p.mainOnly(); err != nil {
		return nil, err
	}
	s, err := p.x.sub(name)
	if err != nil {
		return nil, err
	}
	switch t {
	case exchange.AccountSpot:
	case "":
		return nil, apiErr(exchange.CodeParameterNull, "parameter accountType cannot be null")
	case exchange.AccountFutures:
		return nil, apiErr(exchange.CodeUnsupportedOperation, "only the SPOT account type is supported")
	default:
		return nil, apiErr(exchange.CodeParameterError, "accountType %q is not SPOT", t)
	}
	out := p.x.accounts[s.uid].snapshot()
	if out == nil {
		out = []exchange.Balance{}
	}
	return out, nil
}
