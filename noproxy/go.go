package noproxy

import (
	"net/url"
	"strings"

	"golang.org/x/net/http/httpproxy"
)

// GoProxied is Go's own proxy selection (golang.org/x/net/http/httpproxy, what
// net/http's ProxyFromEnvironment runs) for one NO_PROXY, with a proxy set for
// both schemes: the function tells whether a URL goes through the proxy. It is
// the one place the project builds that decision; build it once per NO_PROXY.
func GoProxied(noProxy string) func(*url.URL) bool {
	proxyFor := (&httpproxy.Config{HTTPProxy: "http://proxy.invalid:3128", HTTPSProxy: "http://proxy.invalid:3128", NoProxy: noProxy}).ProxyFunc()
	return func(u *url.URL) bool {
		p, err := proxyFor(u)
		return err == nil && p != nil
	}
}

// goDecide is Go's own selection; the entry is the first that decides alone.
func goDecide(noProxy string, t target) (bool, string) {
	decide := func(np string) bool { return !GoProxied(np)(t.url) }
	if !decide(noProxy) {
		return false, ""
	}
	for _, entry := range strings.Split(noProxy, ",") {
		if e := strings.TrimSpace(entry); e != "" && decide(e) {
			return true, e
		}
	}
	return true, "(loopback: Go never proxies it)"
}
