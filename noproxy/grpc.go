package noproxy

import (
	"net"
	"net/netip"
	"net/url"
	"strings"
)

var (
	// grpcCoreEnv: the first set wins, an http:// URL only
	_ = register(Family{Client: GRPCCore, Lists: []List{ListMain}, Rank: 140, Match: plain(grpcCoreDecide),
		Reads:        Variables{Proxy: []string{"grpc_proxy", "https_proxy", "http_proxy"}, NoProxy: []string{"no_grpc_proxy", "no_proxy"}, SetWins: true},
		NoHTTPSProxy: "gRPC's C-core reads only http:// proxy URLs and goes direct",
		ReadEnv: func(_ Client, env map[string]string, _ target) (string, string, string) {
			proxy, list := grpcCoreEnv(env)
			if proxy == "" {
				return "", "(no http:// proxy in grpc_proxy, https_proxy or http_proxy)", ""
			}
			return list, "", ""
		}})
	// Go's reading, for an https:// request
	grpcGoReads = Variables{Proxy: []string{"HTTPS_PROXY", "https_proxy"}, NoProxy: []string{"NO_PROXY", "no_proxy"}}
	_           = register(Family{Client: GRPCGo, Lists: []List{ListMain}, Rank: 150, Reads: grpcGoReads, Match: grpcGoFamily})
	_           = register(Family{Client: GRPCGo170, Lists: []List{ListOther}, Rank: 220, Reads: grpcGoReads, Match: grpcGoFamily})
)

// grpcCoreDecide models gRPC C-core 1.51 (Debian 12's python3-grpcio; the same
// core runs Ruby's, PHP's and C++'s gRPC): each entry, trimmed, matches a target
// host that ends with it, without case and without a dot boundary ("example.com"
// also covers "badexample.com"); the host is compared without brackets; no "*",
// no CIDR, no loopback exception.
func grpcCoreDecide(noProxy string, t target) (bool, string) {
	host := t.hostname
	for _, raw := range strings.Split(noProxy, ",") {
		e := strings.TrimSpace(raw)
		if e != "" && strings.HasSuffix(host, strings.ToLower(e)) {
			return true, e
		}
	}
	return false, ""
}

// grpcCoreEnv is what C-core reads: grpc_proxy, https_proxy, http_proxy (lower
// case only; the first set wins even when empty, which then means no proxy),
// an http:// URL only; no_grpc_proxy, then no_proxy.
func grpcCoreEnv(env map[string]string) (proxy, noProxy string) {
	proxy = pickFrom(env, []string{"grpc_proxy", "https_proxy", "http_proxy"}, true)
	if !strings.HasPrefix(strings.ToLower(proxy), "http://") {
		proxy = ""
	}
	return proxy, pickFrom(env, []string{"no_grpc_proxy", "no_proxy"}, true)
}

// grpcGoDecide models grpc-go (1.71 and later): Go's own selection
// (http.ProxyFromEnvironment) for an https:// request to the target as written,
// so HTTPS_PROXY (or https_proxy) and NO_PROXY as Go reads them, loopback never
// proxied. The 1.63 to 1.70 line (GRPCGo170) asked for the address the name
// resolved to instead: a name entry then never matches, a CIDR does.
func grpcGoDecide(client Client, noProxy string, t target, addr netip.Addr) (bool, string) {
	host := t.hostname
	if client == GRPCGo170 {
		if a := t.resolved(addr); a.IsValid() {
			host = a.String()
		}
	}
	port := t.port
	if port == "" {
		port = "443" // what Go's selection assumes for an https:// URL without one
	}
	u := &url.URL{Scheme: "https", Host: net.JoinHostPort(host, port)}
	return goDecide(noProxy, target{raw: t.raw, url: u, hostname: host, port: port, netloc: u.Host})
}
