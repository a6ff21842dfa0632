package noproxy

import (
	"net/netip"
	"strconv"
	"strings"
)

// curl ignores an upper-case HTTP_PROXY (a CGI safety rule) but reads NO_PROXY.
var _ = register(Family{Client: Curl, Lists: []List{ListMain}, Rank: 20, Match: plain(curlDecide),
	Reads: Variables{Proxy: []string{"http_proxy"}, NoProxy: []string{"no_proxy", "NO_PROXY"}}})

// curlDecide models Curl_check_noproxy of curl 7.88 (Debian 12): "*" alone
// bypasses everything; entries are separated by commas or blanks; host names
// match exactly or as a domain suffix, ignoring one leading and trailing dot on
// both sides; IPv4 addresses match only IPv4 entries, exactly or by CIDR; ports
// and brackets in entries never match. curl hands the check an IPv6 host
// without its brackets, so it is compared as a name: "fd00::1" matches only the
// entry "fd00::1", never an IPv6 CIDR (the real curl confirms it).
func curlDecide(noProxy string, t target) (bool, string) {
	if noProxy == "*" {
		return true, "*"
	}
	addr, err := netip.ParseAddr(t.hostname)
	isIP := err == nil && addr.Is4()
	name := strings.TrimSuffix(t.hostname, ".")
	for _, token := range strings.FieldsFunc(noProxy, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		if isIP {
			check, bits := token, -1
			if i := strings.Index(token, "/"); i >= 0 {
				check = token[:i]
				bits, _ = strconv.Atoi(token[i+1:]) // atoi: junk reads as 0, a full-length match
			}
			if cidrMatch(addr, check, bits) {
				return true, token
			}
			continue
		}
		tok := strings.TrimSuffix(token, ".")
		tok = strings.TrimPrefix(tok, ".")
		tok = strings.ToLower(tok)
		if tok == name || (len(tok) < len(name) && strings.HasSuffix(name, "."+tok)) {
			return true, token
		}
	}
	return false, ""
}

// cidrMatch is Curl_cidr4_match and Curl_cidr6_match: bits 0 (or none) means the whole address.
func cidrMatch(addr netip.Addr, check string, bits int) bool {
	network, err := netip.ParseAddr(check)
	if err != nil || network.Is4() != addr.Is4() || network.Zone() != "" {
		return false
	}
	if bits <= 0 || bits > network.BitLen() {
		bits = network.BitLen()
	}
	p, err := network.Prefix(bits)
	return err == nil && p.Contains(addr)
}
