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

// Reads tells which variables a client reads (its Family's): wget only the
// lower-case names, curl ignores an upper-case HTTP_PROXY (a CGI safety rule)
// but reads NO_PROXY, Go and Deno prefer upper case, Python, Ruby, Node.js, Bun
// and .NET lower case, Guzzle and fabric8 read only upper case, BusyBox's wget
// only http_proxy and no NO_PROXY. The JVM reads none.
func Reads(client Client) Variables { return registry[client].Reads }

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
