package noproxy

import (
	"net/netip"
	"strings"
)

// Deno prefers upper case, and an empty NO_PROXY hides no_proxy.
var _ = register(Family{Client: Deno, Lists: []List{ListMain}, Rank: 100, Match: plain(denoDecide),
	Reads: Variables{Proxy: []string{"HTTP_PROXY", "http_proxy"}, NoProxy: []string{"NO_PROXY", "no_proxy"}, NoProxySetWins: true}})

// denoDecide models Deno 2.9's fetch (the matcher Rust's reqwest and hyper-util
// share): an IP host (brackets dropped) matches only entries that parse as an
// address or CIDR, of either family, and never "*" nor a bracketed entry; a
// name matches an entry equal to it, "." and the entry, or an entry it ends
// with at a dot; "*" matches every name. Entries are compared as written (case
// and trailing dots kept); a port in an entry never matches.
func denoDecide(noProxy string, t target) (bool, string) {
	host := t.hostname
	addr, err := netip.ParseAddr(host)
	for _, raw := range strings.Split(noProxy, ",") {
		e := strings.TrimSpace(raw)
		if e == "" {
			continue
		}
		if err == nil {
			if p, perr := netip.ParsePrefix(e); perr == nil && p.Masked().Contains(addr) {
				return true, e
			}
			if a, aerr := netip.ParseAddr(e); aerr == nil && a == addr {
				return true, e
			}
			continue
		}
		if isAddrOrPrefix(e) {
			continue
		}
		if e == "*" || e == host || strings.TrimPrefix(e, ".") == host && strings.HasPrefix(e, ".") {
			return true, e
		}
		if strings.HasSuffix(host, e) && (strings.HasPrefix(e, ".") || host[len(host)-len(e)-1] == '.') {
			return true, e
		}
	}
	return false, ""
}

// isAddrOrPrefix tells an entry that parses as an IP address or CIDR.
func isAddrOrPrefix(e string) bool {
	if _, err := netip.ParsePrefix(e); err == nil {
		return true
	}
	_, err := netip.ParseAddr(e)
	return err == nil
}
