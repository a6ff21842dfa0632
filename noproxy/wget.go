package noproxy

import "strings"

// wget reads only the lower-case names.
var _ = register(Family{Client: Wget, Lists: []List{ListMain}, Rank: 30, Match: plain(wgetDecide),
	Reads: Variables{Proxy: []string{"http_proxy"}, NoProxy: []string{"no_proxy"}}})

// wgetDecide models sufmatch of wget 1.21: each comma-separated entry matches
// the host exactly or as a suffix at a dot; no CIDR, no "*", no ports; IPv6
// hosts are compared without brackets.
func wgetDecide(noProxy string, t target) (bool, string) {
	host := t.hostname
	for _, entry := range strings.Split(noProxy, ",") {
		e := strings.ToLower(strings.TrimSpace(entry))
		if e == "" || len(host) < len(e) || !strings.HasSuffix(host, e) {
			continue
		}
		k := len(host) - len(e) - 1
		if k == -1 || host[k] == '.' || e[0] == '.' {
			return true, strings.TrimSpace(entry)
		}
	}
	return false, ""
}
