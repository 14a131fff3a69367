package sim

import (
	"strconv"
	"strings"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

// maxSTPGroups is the most groups a master account may have.
const maxSTPGroups = 10

// stpGroup is a self-trade prevention group: orders of member UIDs that
// would match each other are subject to the taker's stpMode.
type stpGroup struct {
	id      string
	name    string
	members []string
	created time.Time
	updated time.Time
}

func (g *stpGroup) info() exchange.STPGroup {
	return exchange.STPGroup{Name: g.name, ID: g.id, UIDs: append([]string(nil), g.members...), CreateTime: g.created, UpdateTime: g.updated}
}

// groupOf returns the group uid belongs to, or nil.
func (x *Exchange) groupOf(uid string) *stpGroup {
	for _, g := range x.groups {
		for _, m := range g.members {
			if m == uid {
				return g
			}
		}
	}
	return nil
}

// related reports whether two UIDs trading with each other is a self-trade:
// the same account, or members of one STP group.
func (x *Exchange) related(a, b string) bool {
	if a == b {
		return true
	}
	g := x.groupOf(a)
	return g != nil && g == x.groupOf(b)
}

// CreateSTPGroup creates a group; at most 10, names unique.
func (x *Exchange) CreateSTPGroup(name string) (exchange.STPGroup, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if name == "" {
		return exchange.STPGroup{}, apiErr(exchange.CodeParameterNull, "tradeGroupName cannot be null")
	}
	for _, g := range x.groups {
		if g.name == name {
			return exchange.STPGroup{}, apiErr(exchange.CodeUserNameExists, "group name %q already exists", name)
		}
	}
	if len(x.groups) >= maxSTPGroups {
		return exchange.STPGroup{}, apiErr(exchange.CodeMaxOrderLimit, "at most %d STP groups", maxSTPGroups)
	}
	x.groupSeq++
	g := &stpGroup{id: strconv.FormatInt(x.groupSeq, 10), name: name, created: x.now, updated: x.now}
	x.groups = append(x.groups, g)
	return g.info(), nil
}

// STPGroups returns the groups of that name.
func (x *Exchange) STPGroups(name string) []exchange.STPGroup {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []exchange.STPGroup
	for _, g := range x.groups {
		if g.name == name {
			out = append(out, g.info())
		}
	}
	return out
}

func (x *Exchange) group(id string) (*stpGroup, int, error) {
	for i, g := range x.groups {
		if g.id == id {
			return g, i, nil
		}
	}
	return nil, 0, apiErr(exchange.CodeRecordNotExist, "STP group %s does not exist", id)
}

// DeleteSTPGroup deletes a group.
func (x *Exchange) DeleteSTPGroup(id string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	_, i, err := x.group(id)
	if err != nil {
		return err
	}
	x.groups = append(x.groups[:i], x.groups[i+1:]...)
	return nil
}

// AddSTPGroupUIDs adds member UIDs (accounts of this exchange) to a group.
func (x *Exchange) AddSTPGroupUIDs(id string, uids []string) (exchange.STPGroup, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	g, _, err := x.group(id)
	if err != nil {
		return exchange.STPGroup{}, err
	}
	for _, u := range uids {
		if _, ok := x.accounts[u]; !ok {
			return exchange.STPGroup{}, apiErr(exchange.CodeUserNotExist, "user %s does not exist", u)
		}
		if other := x.groupOf(u); other != nil && other != g {
			return exchange.STPGroup{}, apiErr(exchange.CodeOperationNotAllowed, "user %s is already in group %s", u, other.id)
		}
	}
	for _, u := range uids {
		if x.groupOf(u) == nil {
			g.members = append(g.members, u)
		}
	}
	g.updated = x.now
	return exchange.STPGroup{Name: g.name, ID: g.id, UIDs: uids, CreateTime: g.created, UpdateTime: g.updated}, nil
}

// RemoveSTPGroupUIDs removes members from a group.
func (x *Exchange) RemoveSTPGroupUIDs(id string, uids []string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	g, _, err := x.group(id)
	if err != nil {
		return err
	}
	drop := map[string]bool{}
	for _, u := range uids {
		drop[u] = true
	}
	kept := g.members[:0]
	for _, m := range g.members {
		if !drop[m] {
			kept = append(kept, m)
		}
	}
	g.members = kept
	g.updated = x.now
	return nil
}

// groupNames lists group ids, for state dumps.
func (x *Exchange) groupNames() string {
	var b strings.Builder
	for _, g := range x.groups {
		b.WriteString(g.id + ":" + g.name + "=" + strings.Join(g.members, ",") + ";")
	}
	return b.String()
}
