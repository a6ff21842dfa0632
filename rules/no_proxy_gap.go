package rules

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/proxykit/proxykit/noproxy"
)

// RuleNoProxyGap: NO_PROXY sends a cluster destination to the proxy.
const RuleNoProxyGap = "no-proxy-gap"

func noProxyGap(c *Context) string {
	value, ok := c.noProxy()
	if !ok {
		return ""
	}
	gaps := once(c.shared.gaps, value, func() []string { return noProxyGaps(value, c.shared.targets) })
	if len(gaps) == 0 {
		return ""
	}
	return fmt.Sprintf("NO_PROXY sends %s through the proxy%s; set cluster.podCIDRs, serviceCIDRs, nodeCIDRs, apiServer and domain to the cluster's (or add the entries to proxy.noProxy)",
		strings.Join(gaps, ", "), c.Where)
}

// noProxyGaps lists the targets that Go's proxy selection sends to the proxy.
func noProxyGaps(noProxy string, targets []string) []string {
	proxied := noproxy.GoProxied(noProxy)
	var gaps []string
	for _, target := range targets {
		if u, err := url.Parse(target); err == nil && proxied(u) {
			gaps = append(gaps, target)
		}
	}
	return gaps
}
