package noproxy

import (
	"net/netip"
	"strconv"
	"strings"
)

var _ = register(Family{Client: Bun, Lists: []List{ListMain}, Rank: 110, Match: plain(bunDecide),
	Reads: Variables{Proxy: []string{"http_proxy", "HTTP_PROXY"}, NoProxy: []string{"no_proxy", "NO_PROXY"}}})

// bunDecide models Bun 1.4's fetch: entries are trimmed and compared without
// case; "*" bypasses everything; an entry may carry a port (registry:5000, or
// [fd00::1]:5000), which must then be the request's; "*." reads as ".", and a
// leading dot matches the name itself and every name under it; trailing dots
// are dropped on both sides; an address or CIDR entry (bracketed or not)
// matches an IP host of its family.
func bunDecide(noProxy string, t target) (bool, string) {
	host := strings.TrimSuffix(t.hostname, ".")
	addr, addrErr := netip.ParseAddr(host)
	port := strconv.Itoa(defaultPort(t))
	for _, raw := range strings.Split(noProxy, ",") {
		entry := strings.TrimSpace(raw)
		e := strings.ToLower(entry)
		if e == "" {
			continue
		}
		if e == "*" {
			return true, entry
		}
		e, entryPort := splitEntryPort(e)
		if entryPort != "" && entryPort != port {
			continue
		}
		if addrErr == nil {
			if p, err := netip.ParsePrefix(e); err == nil && p.Masked().Contains(addr) {
				return true, entry
			}
			if a, err := netip.ParseAddr(e); err == nil && a == addr {
				return true, entry
			}
			continue
		}
		e = strings.TrimSuffix(strings.TrimPrefix(e, "*"), ".")
		if name := strings.TrimPrefix(e, "."); name != "" && (host == name || strings.HasSuffix(host, "."+name)) {
			return true, entry
		}
	}
	return false, ""
}

// splitEntryPort separates an entry's port: "[fd00::1]:5000", "name:5000"; an
// unbracketed IPv6 address has none.
func splitEntryPort(e string) (host, port string) {
	if strings.HasPrefix(e, "[") {
		end := strings.Index(e, "]")
		if end < 0 {
			return e, ""
		}
		host, rest := e[1:end], e[end+1:]
		return host, strings.TrimPrefix(rest, ":")
	}
	if strings.Count(e, ":") == 1 {
		h, p, _ := strings.Cut(e, ":")
		return h, p
	}
	return e, ""
}
