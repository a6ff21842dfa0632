package rules

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/proxykit/proxykit/cluster"
	"github.com/proxykit/proxykit/noproxy"
)

// RuleProxyBypassedForPublicHosts: NO_PROXY bypasses everything or a public host
// (was proxied-cluster-wide).
const RuleProxyBypassedForPublicHosts = "proxy-bypassed-for-public-hosts"

const publicHostsAreNotCovered = "https://example.com,https://api.github.com,http://93.184.216.34,http://[2606:2800:220:1::1]"

func proxyBypassedForPublicHosts(c *Context) string {
	value, ok := c.noProxy()
	if !ok {
		return ""
	}
	wide := once(c.shared.wide, value, func() string { return bypassesPublicHosts(value) })
	if wide == "" {
		return ""
	}
	return fmt.Sprintf("NO_PROXY bypasses the proxy for %s, so public traffic goes direct%s; remove that entry from NO_PROXY", wide, c.Where)
}

// bypassesPublicHosts names what NO_PROXY sends around the proxy that is
// public: the first entry cluster.Public judges so ("*", a public suffix such
// as .io or co.uk, a network such as 128.0.0.0/1), else the first sample
// public host Go's own matcher sends direct.
func bypassesPublicHosts(noProxy string) string {
	for _, entry := range strings.Split(noProxy, ",") {
		if why, public := cluster.Public(entry); public {
			return why
		}
	}
	hosts := strings.Split(publicHostsAreNotCovered, ",")
	sort.Strings(hosts)
	proxied := noproxy.GoProxied(noProxy)
	for _, target := range hosts {
		if u, err := url.Parse(target); err == nil && !proxied(u) {
			return target
		}
	}
	return ""
}
