package noproxy

import (
	"net"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/net/http/httpproxy"
)

var _ = register(Family{Client: Go, Lists: []List{ListMain}, Rank: 10, Match: plain(goDecide),
	Reads: Variables{Proxy: []string{"HTTP_PROXY", "http_proxy"}, NoProxy: []string{"NO_PROXY", "no_proxy"}}})

// GoProxied is Go's own proxy selection (golang.org/x/net/http/httpproxy, what
// net/http's ProxyFromEnvironment runs) for one NO_PROXY, with a proxy set for
// both schemes: the function tells whether a URL goes through the proxy. It is
// the one place the project builds that decision; build it once per NO_PROXY.
func GoProxied(noProxy string) func(*url.URL) bool {
	return goProxied.get(noProxy, func() func(*url.URL) bool {
		proxyFor := (&httpproxy.Config{HTTPProxy: "http://proxy.invalid:3128", HTTPSProxy: "http://proxy.invalid:3128", NoProxy: noProxy}).ProxyFunc()
		return func(u *url.URL) bool {
			p, err := proxyFor(u)
			return err == nil && p != nil
		}
	})
}

// goProxied keeps GoProxied's selection by NO_PROXY value (and by single
// entry, which goDecide asks for the entry that decided).
var goProxied memo[func(*url.URL) bool]

// goDecide is Go's own selection; the entry is the first that decides alone.
// Only the entries that can name the host are asked (goIndex), each by
// httpproxy itself: finding it costs the host's labels, not NO_PROXY's length.
func goDecide(noProxy string, t target) (bool, string) {
	if GoProxied(noProxy)(t.url) {
		return false, ""
	}
	idx := goIndexes.get(noProxy, func() goIndex { return newGoIndex(noProxy) })
	for _, e := range idx.candidates(t.hostname) {
		if !GoProxied(e)(t.url) {
			return true, e
		}
	}
	return true, "(loopback: Go never proxies it)"
}

// goIndex is a NO_PROXY's entries by the name they can match: an entry's
// host, without "*", a leading "." and a port, lower case. Entries that are
// addresses, networks or "*" are asked of every target.
type goIndex struct {
	byName map[string][]int
	always []int
	list   []string
}

var goIndexes memo[goIndex]

func newGoIndex(noProxy string) goIndex {
	idx := goIndex{byName: map[string][]int{}}
	for _, entry := range strings.Split(noProxy, ",") {
		e := strings.TrimSpace(entry)
		if e == "" {
			continue
		}
		at := len(idx.list)
		idx.list = append(idx.list, e)
		name := strings.ToLower(strings.TrimLeft(e, "*."))
		if h, _, err := net.SplitHostPort(name); err == nil {
			name = h
		}
		if name == "" || strings.ContainsAny(name, ":/[") || net.ParseIP(name) != nil {
			idx.always = append(idx.always, at)
			continue
		}
		idx.byName[name] = append(idx.byName[name], at)
	}
	return idx
}

// candidates are the entries, in NO_PROXY's order, that can decide for host:
// those named as the host or one of its parent domains (with and without a
// trailing dot: cluster.local. is an entry of its own), and the rest.
func (idx goIndex) candidates(host string) []string {
	at := append([]int(nil), idx.always...)
	for _, name := range []string{host, strings.TrimSuffix(host, ".")} {
		for name != "" {
			at = append(at, idx.byName[name]...)
			_, parent, ok := strings.Cut(name, ".")
			if !ok {
				break
			}
			name = parent
		}
		if !strings.HasSuffix(host, ".") {
			break // the two are one
		}
	}
	slices.Sort(at)
	at = slices.Compact(at)
	out := make([]string, 0, len(at))
	for _, i := range at {
		out = append(out, idx.list[i])
	}
	return out
}
