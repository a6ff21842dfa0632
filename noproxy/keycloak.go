package noproxy

import (
	"regexp"
	"strings"
)

// Keycloak's own HTTP client (DefaultHttpClientFactory and
// ProxyMappings.withFixedProxyMapping, Keycloak 26), which its identity
// brokering, user federation and admin events call out through: the proxy
// from https_proxy, else http_proxy, for every scheme (each the lower-case
// name, else the upper-case one); NO_PROXY from no_proxy, else NO_PROXY.
// Modelled from its source and its ProxyMappingsTest.
var _ = register(Family{Client: Keycloak, Lists: []List{ListOther}, Rank: 240, Match: plain(keycloakDecide), FromSource: true, JudgedWhereSeen: true,
	Reads: Variables{Proxy: []string{"https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY"}, NoProxy: []string{"no_proxy", "NO_PROXY"}}})

// keycloakPatterns are the patterns one NO_PROXY value compiles to.
var keycloakPatterns memo[[]*regexp.Regexp]

// keycloakDecide splits NO_PROXY on "," without trimming, and matches each
// entry as the regular expression (?:.+\.)? followed by the entry quoted,
// against the whole host name as the URL writes it: "corp.example" matches
// it and every name under it; ".corp.example" no real host (it would need
// "x..corp.example"); " corp.example", "*", a CIDR or host:port nothing but
// that very text.
func keycloakDecide(noProxy string, t target) (bool, string) {
	if noProxy == "" {
		return false, ""
	}
	entries := strings.Split(noProxy, ",")
	patterns := keycloakPatterns.get(noProxy, func() []*regexp.Regexp {
		out := make([]*regexp.Regexp, len(entries))
		for i, e := range entries {
			out[i] = regexp.MustCompile(`^(?:.+\.)?` + regexp.QuoteMeta(e) + `$`)
		}
		return out
	})
	host := t.url.Hostname()
	for i, p := range patterns {
		if p.MatchString(host) {
			return true, entries[i]
		}
	}
	return false, ""
}
