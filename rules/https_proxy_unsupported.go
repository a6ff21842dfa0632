package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/proxykit/proxykit/noproxy"
)

// RuleHTTPSProxyUnsupported: the container's proxy URL is https:// (TLS to the
// proxy) and it evidently runs a client that cannot use one, as its family
// says (noproxy.Family.NoHTTPSProxy): .NET and gRPC's C-core read only http://
// proxy URLs and go direct; BusyBox's wget speaks plain HTTP to it.
const RuleHTTPSProxyUnsupported = "https-proxy-unsupported"

func httpsProxyUnsupported(c *Context) string {
	var names []string
	for _, name := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"} {
		if v, ok := c.Env.Vars[name]; ok && v.Known() && strings.HasPrefix(strings.ToLower(v.Value), "https://") {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	var cannot, why []string
	for _, e := range evidentClients(c) {
		if f, _ := noproxy.FamilyOf(e.client); f.NoHTTPSProxy != "" {
			cannot = append(cannot, fmt.Sprintf("%s (%s)", e.client, e.where))
			if !slices.Contains(why, f.NoHTTPSProxy) {
				why = append(why, f.NoHTTPSProxy)
			}
		}
	}
	if len(cannot) == 0 {
		return ""
	}
	return fmt.Sprintf("%s %s an https:// proxy URL, which %s cannot use (%s)%s; give these containers the proxy's http:// address",
		strings.Join(names, ", "), map[bool]string{true: "is", false: "are"}[len(names) == 1], strings.Join(cannot, " and "), strings.Join(why, "; "), c.Where)
}
