package noproxy

import (
	"strings"
)

// HttpEnvironmentProxy.Unix: http_proxy, then HTTP_PROXY outside CGI, then
// all_proxy; no_proxy ?? NO_PROXY; an https:// proxy URL it does not use.
var _ = register(Family{Client: DotNet, Lists: []List{ListMain}, Rank: 130, Match: plain(dotnetDecide), FromSource: true,
	Reads:        Variables{Proxy: []string{"http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"}, NoProxy: []string{"no_proxy", "NO_PROXY"}, NoProxySetWins: true},
	NoHTTPSProxy: ".NET reads only http:// proxy URLs and goes direct",
	ReadEnv: func(_ Client, env map[string]string, _ target) (string, string, string) {
		proxy, list := dotnetEnv(env)
		if proxy == "" {
			return "", "(no proxy variable this client reads)", ""
		}
		return list, "", ""
	}})

// dotnetDecide models HttpEnvironmentProxy.IsMatchInBypassList of dotnet/runtime
// (.NET 8 to 10): entries are split at commas and trimmed, empty ones dropped;
// an entry that starts with "." matches the name after the dot and every name
// that ends with the entry; any other entry matches only the host exactly,
// without case. The host is Uri.Host: lower case, an IPv6 address in brackets,
// a trailing dot kept; so "[fd00::1]" matches http://[fd00::1]/ and "fd00::1"
// never does, and no entry is read as a CIDR.
func dotnetDecide(noProxy string, t target) (bool, string) {
	host := t.hostname
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	for _, raw := range strings.Split(noProxy, ",") {
		e := strings.TrimSpace(raw)
		if e == "" {
			continue
		}
		s := strings.ToLower(e)
		if s[0] == '.' {
			if s[1:] == host || strings.HasSuffix(host, s) {
				return true, e
			}
		} else if s == host {
			return true, e
		}
	}
	return false, ""
}

// dotnetEnv is the proxy URL and NO_PROXY HttpEnvironmentProxy.TryCreate reads
// on Linux: http_proxy, then HTTP_PROXY unless GATEWAY_INTERFACE says it runs
// under CGI, then all_proxy and ALL_PROXY; a URL with a scheme other than
// http:// is not read (GetUriFromString), so the next one is; no_proxy ?? NO_PROXY.
func dotnetEnv(env map[string]string) (proxy, noProxy string) {
	names := []string{"http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"}
	for _, name := range names {
		if name == "HTTP_PROXY" && env["GATEWAY_INTERFACE"] != "" {
			continue
		}
		v := env[name]
		if v == "" || (strings.Contains(v, "://") && !strings.HasPrefix(strings.ToLower(v), "http://")) {
			continue
		}
		proxy = v
		break
	}
	return proxy, pickFrom(env, []string{"no_proxy", "NO_PROXY"}, true)
}
