package noproxy

import (
	"net/netip"
	"strings"
)

// Variables are the environment variables a client reads for a plain-HTTP
// request, in the order it prefers them.
type Variables struct {
	Proxy   []string // the proxy URL for http:// targets
	NoProxy []string
	// SetWins: the first variable that is set wins even when empty (JavaScript's
	// ??, as undici reads them); otherwise the first that is not empty.
	SetWins bool
}

// Reads tells which variables a client reads: wget only the lower-case names,
// curl ignores an upper-case HTTP_PROXY (a CGI safety rule) but reads NO_PROXY,
// Go prefers upper case, Python, Ruby and Node.js lower case. The JVM reads none.
func Reads(client Client) Variables {
	switch node, isNode := nodeClients[client]; {
	case client == Java:
		return Variables{}
	case isNode: // http_proxy || HTTP_PROXY in the http module, ?? in undici
		return Variables{Proxy: []string{"http_proxy", "HTTP_PROXY"}, NoProxy: []string{"no_proxy", "NO_PROXY"}, SetWins: node.fetch}
	case client == Ruby: // env[name] || env[name.upcase]: in Ruby "" is true
		return Variables{Proxy: []string{"http_proxy", "HTTP_PROXY"}, NoProxy: []string{"no_proxy", "NO_PROXY"}, SetWins: true}
	case client == Go:
		return Variables{Proxy: []string{"HTTP_PROXY", "http_proxy"}, NoProxy: []string{"NO_PROXY", "no_proxy"}}
	case client == Curl:
		return Variables{Proxy: []string{"http_proxy"}, NoProxy: []string{"no_proxy", "NO_PROXY"}}
	case client == Wget:
		return Variables{Proxy: []string{"http_proxy"}, NoProxy: []string{"no_proxy"}}
	default: // Python: urllib's getproxies_environment, which requests uses too
		return Variables{Proxy: []string{"http_proxy", "HTTP_PROXY"}, NoProxy: []string{"no_proxy", "NO_PROXY"}}
	}
}

// pick is the value of the variable a client takes from names.
func (v Variables) pick(env map[string]string, names []string) string {
	for _, name := range names {
		if value, set := env[name]; (set && v.SetWins) || value != "" {
			return value
		}
	}
	return ""
}

// DecideEnv is Decide for a client started with env: a target goes direct when
// the client reads no proxy variable at all. The JVM reads no proxy variable:
// java decides on the -Dhttp.proxyHost and -Dhttp.nonProxyHosts flags in
// JAVA_TOOL_OPTIONS (the last of two wins). Node.js reads the variables only
// with NODE_USE_ENV_PROXY=1, and only a proxy URL of http:// or https://.
func DecideEnv(client Client, env map[string]string, targetURL string) (Decision, error) {
	return DecideEnvResolved(client, env, targetURL, netip.Addr{})
}

// DecideEnvResolved is DecideEnv with the address the target's host resolves
// to, as DecideResolved.
func DecideEnvResolved(client Client, env map[string]string, targetURL string, addr netip.Addr) (Decision, error) {
	t, err := parseTarget(targetURL)
	if err != nil {
		return Decision{}, err
	}
	direct := func(why string) (Decision, error) {
		return Decision{Target: targetURL, Client: client, Direct: true, Entry: why}, nil
	}
	node, isNode := nodeClients[client]
	switch {
	case client == Java:
		flags := javaFlags(env["JAVA_TOOL_OPTIONS"])
		if flags["http.proxyHost"] == "" {
			return direct("(no -Dhttp.proxyHost in JAVA_TOOL_OPTIONS)")
		}
		isDirect, entry := javaDecide(compileNonProxyHosts(flags["http.nonProxyHosts"]), t)
		return Decision{Target: targetURL, Client: client, Direct: isDirect, Entry: entry}, nil
	case isNode && env["NODE_USE_ENV_PROXY"] != "1":
		return direct("(NODE_USE_ENV_PROXY is not 1)")
	case node.fetch && env["http_proxy"] == "" && env["HTTP_PROXY"] == "" && env["https_proxy"] == "" && env["HTTPS_PROXY"] == "":
		return direct("(no proxy variable this client reads)")
	}
	vars := Reads(client)
	proxy, noProxy := vars.pick(env, vars.Proxy), vars.pick(env, vars.NoProxy)
	if proxy == "" {
		return direct("(no proxy variable this client reads)")
	}
	if isNode && !node.fetch && !strings.HasPrefix(proxy, "http://") && !strings.HasPrefix(proxy, "https://") {
		return direct("(Node.js ignores a proxy URL that is not http:// or https://)")
	}
	return decide(client, noProxy, t, addr)
}
