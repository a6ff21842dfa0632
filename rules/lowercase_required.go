package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/proxykit/proxykit/noproxy"
)

// RuleLowercaseRequired: the container has the proxy only in upper case
// (proxy.lowercase: false) and evidently runs a client that reads only the
// lower-case names (noproxy.Reads): curl for http://, wget, BusyBox's wget.
const RuleLowercaseRequired = "lowercase-required"

func lowercaseRequired(c *Context) string {
	upper, lower := false, false
	for _, name := range []string{"HTTP_PROXY", "HTTPS_PROXY"} {
		if v, ok := c.Env.Vars[name]; ok && (!v.Known() || v.Value != "") {
			upper = true
		}
		if v, ok := c.Env.Vars[strings.ToLower(name)]; ok && (!v.Known() || v.Value != "") {
			lower = true
		}
	}
	if !upper || lower {
		return ""
	}
	var reads []string
	for _, e := range evidentClients(c) {
		if readsOnlyLowercase(e.client) {
			reads = append(reads, fmt.Sprintf("%s (%s)", e.client, e.where))
		}
	}
	if len(reads) == 0 {
		return ""
	}
	return fmt.Sprintf("the proxy is set in upper case only, and %s read%s only the lower-case http_proxy: %s every http:// request directly%s; set the lower-case twins (proxy.lowercase: true, the default)",
		strings.Join(reads, " and "), verbS(len(reads)), map[bool]string{true: "it sends", false: "they send"}[len(reads) == 1], c.Where)
}

// readsOnlyLowercase tells a client that reads its proxy URL from lower-case
// variables alone, as its family says.
func readsOnlyLowercase(client noproxy.Client) bool {
	proxy := noproxy.Reads(client).Proxy
	return len(proxy) > 0 && !slices.ContainsFunc(proxy, func(name string) bool { return name != strings.ToLower(name) })
}
