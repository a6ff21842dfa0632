package noproxy

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
