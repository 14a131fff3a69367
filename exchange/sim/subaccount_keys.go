package sim

import (
	"net/netip"
	"strconv"

	"github.com/spotbot/spotbot/exchange"
)

// CreateSubAPIKey creates an API key for a sub-account and returns it with
// its secret, which is not kept. Keys and secrets are derived from the key
// sequence, so a simulation is reproducible; they are test credentials,
// not secrets. Refusals: 730600/140001 sub-account, 730700 note, 730701 no
// permission, 730702 unknown permission, 730703 more than 20 addresses,
// 730704 a malformed address, 730705 more than 30 keys.
func (p *Port) CreateSubAPIKey(name, note string, perms []exchange.Permission, ips []string) (SubKey, string, error) {
	if _, err := p.enter(exchange.EpCreateSubAPIKey); err != nil {
		return SubKey{}, "", err
	}
	defer p.leave()
	if err := p.mainOnly(); err != nil {
		return SubKey{}, "", err
	}
	s, err := p.x.sub(name)
	if err != nil {
		return SubKey{}, "", err
	}
	if note == "" {
		return SubKey{}, "", apiErr(exchange.CodeAPIKeyRemarksNull, "API key remarks cannot be null")
	}
	if len(perms) == 0 {
		return SubKey{}, "", apiErr(exchange.CodeAPIKeyPermissionNull, "API key permission cannot be null")
	}
	var kept []exchange.Permission
	for _, pm := range perms {
		if !knownPermission(pm) {
			return SubKey{}, "", apiErr(exchange.CodeAPIKeyPermissionUnknown, "API key permission %q does not exist", pm)
		}
		dup := false
		for _, k := range kept {
			dup = dup || k == pm
		}
		if !dup {
			kept = append(kept, pm)
		}
	}
	if len(ips) > maxKeyIPs {
		return SubKey{}, "", apiErr(exchange.CodeIPInfoIncorrect, "%d IP addresses; at most %d may be bound", len(ips), maxKeyIPs)
	}
	for _, ip := range ips {
		if _, err := netip.ParseAddr(ip); err != nil {
			return SubKey{}, "", apiErr(exchange.CodeBoundIPFormat, "bound IP %q is not an IP address", ip)
		}
	}
	if len(s.keys) >= maxSubKeys {
		return SubKey{}, "", apiErr(exchange.CodeTooManyAPIKeys, "at most %d API keys per sub-account", maxSubKeys)
	}
	w := p.x.wal()
	w.keySeq++
	seq := strconv.FormatInt(w.keySeq, 10)
	k := SubKey{SubAccount: s.name, UID: s.uid, Note: note, APIKey: "mx0" + walletDigest("apikey", p.x.master, seq)[:29],
		Permissions: kept, IPs: append([]string(nil), ips...), CreateTime: p.x.now}
	s.keys = append(s.keys, k)
	return k, walletDigest("secret", p.x.master, seq)[:32], nil
}

func knownPermission(p exchange.Permission) bool {
	for _, k := range exchange.KeyPermissions() {
		if k == p {
			return true
		}
	}
	return false
}

// SubAPIKeys lists a sub-account's API keys in creation order.
func (p *Port) SubAPIKeys(name string) ([]SubKey, error) {
	if _, err := p.enter(exchange.EpListSubAPIKeys); err != nil {
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
	return append([]SubKey{}, s.keys...), nil
}

// DeleteSubAPIKey deletes a sub-account's API key: 730707 without a key,
// 730706 for a key the sub-account does not have.
func (p *Port) DeleteSubAPIKey(name, apiKey string) error {
	if _, err := p.enter(exchange.EpDeleteSubAPIKey); err != nil {
		return err
	}
	defer p.leave()
	if err := p.mainOnly(); err != nil {
		return err
	}
	s, err := p.x.sub(name)
	if err != nil {
		return err
	}
	if apiKey == "" {
		return apiErr(exchange.CodeAccessKeyNull, "accessKey cannot be null")
	}
	for i, k := range s.keys {
		if k.APIKey == apiKey {
			s.keys = append(s.keys[:i], s.keys[i+1:]...)
			return nil
		}
	}
	return apiErr(exchange.CodeAPIKeyNotExist, "API key %s does not exist for %s", apiKey, name)
}
