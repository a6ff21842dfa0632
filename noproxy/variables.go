package noproxy

// Variables are the environment variables a client reads for a plain-HTTP
// request, in the order it prefers them.
type Variables struct {
	Proxy   []string // the proxy URL for http:// targets
	NoProxy []string // nil: the client reads no NO_PROXY at all
	// SetWins: the first variable that is set wins even when empty (JavaScript's
	// ??, as undici reads them); otherwise the first that is not empty.
	SetWins bool
	// NoProxySetWins: the same for NoProxy alone (Deno: an empty NO_PROXY hides no_proxy).
	NoProxySetWins bool
}

// Reads tells which variables a client reads: wget only the lower-case names,
// curl ignores an upper-case HTTP_PROXY (a CGI safety rule) but reads NO_PROXY,
// Go and Deno prefer upper case, Python, Ruby, Node.js, Bun and .NET lower case,
// Guzzle and fabric8 read only upper case, BusyBox's wget only http_proxy and no
// NO_PROXY. The JVM reads none.
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
	case client == Deno:
		return Variables{Proxy: []string{"HTTP_PROXY", "http_proxy"}, NoProxy: []string{"NO_PROXY", "no_proxy"}, NoProxySetWins: true}
	case client == Curl:
		return Variables{Proxy: []string{"http_proxy"}, NoProxy: []string{"no_proxy", "NO_PROXY"}}
	case client == Wget:
		return Variables{Proxy: []string{"http_proxy"}, NoProxy: []string{"no_proxy"}}
	case client == BusyBoxWget:
		return Variables{Proxy: []string{"http_proxy"}}
	case client == PHPGuzzle: // Guzzle's own; curl underneath reads its own (phpDecide)
		return Variables{Proxy: []string{"HTTP_PROXY"}, NoProxy: []string{"NO_PROXY"}}
	case client == PHPGuzzleWeb: // no HTTP_PROXY outside the CLI: curl's own (phpDecide)
		return Variables{Proxy: []string{"http_proxy"}, NoProxy: []string{"no_proxy", "NO_PROXY"}}
	case client == DotNet: // HttpEnvironmentProxy.Unix: http_proxy, then HTTP_PROXY outside CGI; no_proxy ?? NO_PROXY
		return Variables{Proxy: []string{"http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"}, NoProxy: []string{"no_proxy", "NO_PROXY"}, NoProxySetWins: true}
	case client == GRPCCore: // grpcCoreEnv: the first set wins, an http:// URL only
		return Variables{Proxy: []string{"grpc_proxy", "https_proxy", "http_proxy"}, NoProxy: []string{"no_grpc_proxy", "no_proxy"}, SetWins: true}
	case client == GRPCGo || client == GRPCGo170: // Go's reading, for an https:// request
		return Variables{Proxy: []string{"HTTPS_PROXY", "https_proxy"}, NoProxy: []string{"NO_PROXY", "no_proxy"}}
	case client == Fabric8: // Utils.getSystemPropertyOrEnvVar("http.proxy"): the upper-case name
		return Variables{Proxy: []string{"HTTP_PROXY", "ALL_PROXY"}, NoProxy: []string{"NO_PROXY"}}
	default: // Python: urllib's getproxies_environment, which requests uses too; Bun
		return Variables{Proxy: []string{"http_proxy", "HTTP_PROXY"}, NoProxy: []string{"no_proxy", "NO_PROXY"}}
	}
}

// pick is the value of the variable a client takes from names.
func (v Variables) pick(env map[string]string, names []string) string {
	return pickFrom(env, names, v.SetWins)
}

// pickNoProxy is the NO_PROXY list the client takes.
func (v Variables) pickNoProxy(env map[string]string) string {
	return pickFrom(env, v.NoProxy, v.SetWins || v.NoProxySetWins)
}

func pickFrom(env map[string]string, names []string, setWins bool) string {
	for _, name := range names {
		if value, set := env[name]; (set && setWins) || value != "" {
			return value
		}
	}
	return ""
}
