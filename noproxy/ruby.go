package noproxy

import (
	"net/netip"
	"regexp"
	"strconv"
	"strings"
)

// Ruby: env[name] || env[name.upcase], where "" is true.
var _ = register(Family{Client: Ruby, Lists: []List{ListMain}, Rank: 70,
	Reads: Variables{Proxy: []string{"http_proxy", "HTTP_PROXY"}, NoProxy: []string{"no_proxy", "NO_PROXY"}, SetWins: true},
	Match: func(_ Client, noProxy string, t target, addr netip.Addr) (bool, string, error) {
		d, e := rubyDecide(noProxy, t, t.resolved(addr))
		return d, e, nil
	}})

// rubyEntry is the pattern URI::Generic.use_proxy? scans NO_PROXY with: runs of
// characters that are no colon, comma or blank, each with an optional ":port".
// An IPv6 entry falls apart at its colons, so none ever matches.
var rubyEntry = regexp.MustCompile(`([^:,\s]+)(?::(\d+))?`)

// rubyEntries keeps each NO_PROXY's entries as rubyEntry reads them.
var rubyEntries memo[[][]string]

// rubyDecide models Net::HTTP of Ruby 3.1 (Debian 12), which asks
// URI::Generic#find_proxy: a host that resolves to 127.x or ::1 never goes
// through the proxy; then each entry with no port or the request's port
// matches when it starts with "." and the host ends with it, or when the host
// is the entry or under it; and, when the host's address is known, when the
// entry is an IPv4 address or CIDR holding that address. addr is the address
// the host resolves to (Ruby looks it up), or the zero Addr when unknown.
func rubyDecide(noProxy string, t target, addr netip.Addr) (bool, string) {
	if addr.IsValid() && ((addr.Is4() && addr.As4()[0] == 127) || addr == netip.IPv6Loopback()) {
		return true, "(loopback: Ruby never proxies it)"
	}
	host := t.hostname
	port := defaultPort(t)
	for _, m := range rubyEntries.get(noProxy, func() [][]string { return rubyEntry.FindAllStringSubmatch(noProxy, -1) }) {
		entry, entryHost, entryPort := m[0], strings.ToLower(m[1]), m[2]
		if entryPort != "" {
			if p, err := strconv.Atoi(entryPort); err != nil || p != port {
				continue
			}
		}
		if strings.HasPrefix(entryHost, ".") {
			if strings.HasSuffix(host, entryHost) {
				return true, entry
			}
		} else if strings.HasSuffix("."+host, "."+entryHost) {
			return true, entry
		}
		if addr.IsValid() && rubyIPAddr(entryHost, addr) {
			return true, entry
		}
	}
	return false, ""
}

// rubyIPAddr is IPAddr.new(entry).include?(addr) for the entries that reach it:
// an address or address/prefix (colons never do).
func rubyIPAddr(entry string, addr netip.Addr) bool {
	if p, err := netip.ParsePrefix(entry); err == nil {
		return p.Masked().Contains(addr)
	}
	a, err := netip.ParseAddr(entry)
	return err == nil && a == addr
}
