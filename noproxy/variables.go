package noproxy

// Variables are the environment variables a client reads for a plain-HTTP
// request, in the order it prefers them.
type Variables struct {
	Proxy   []string // the proxy URL for http:// targets
	NoProxy []string
}

// Reads tells which variables a client reads: wget only the lower-case names,
// curl ignores an upper-case HTTP_PROXY (a CGI safety rule) but reads NO_PROXY,
// Go prefers upper case, Python lower case.
func Reads(client Client) Variables {
	switch client {
	case Go:
		return Variables{Proxy: []string{"HTTP_PROXY", "http_proxy"}, NoProxy: []string{"NO_PROXY", "no_proxy"}}
	case Curl:
		return Variables{Proxy: []string{"http_proxy"}, NoProxy: []string{"no_proxy", "NO_PROXY"}}
	case Wget:
		return Variables{Proxy: []string{"http_proxy"}, NoProxy: []string{"no_proxy"}}
	default: // Python: urllib's getproxies_environment, which requests uses too
		return Variables{Proxy: []string{"http_proxy", "HTTP_PROXY"}, NoProxy: []string{"no_proxy", "NO_PROXY"}}
	}
}

// DecideEnv is Decide for a client started with env: a target goes direct when
// the client reads no proxy variable at all.
func DecideEnv(client Client, env map[string]string, targetURL string) (Decision, error) {
	vars := Reads(client)
	proxy, noProxy := "", ""
	for _, name := range vars.Proxy {
		if v := env[name]; v != "" {
			proxy = v
			break
		}
	}
	for _, name := range vars.NoProxy {
		if v := env[name]; v != "" {
			noProxy = v
			break
		}
	}
	if proxy == "" {
		if _, err := parseTarget(targetURL); err != nil {
			return Decision{}, err
		}
		return Decision{Target: targetURL, Client: client, Direct: true, Entry: "(no proxy variable this client reads)"}, nil
	}
	return Decide(client, noProxy, targetURL)
}
