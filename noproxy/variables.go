package noproxy

// Variables are the environment variables a client reads for a plain-HTTP
// request, in the order it prefers them.
type Variables struct {
	Proxy   []string // the proxy URL for http:// targets
	NoProxy []string
}

// Reads tells which variables a client reads: wget only the lower-case names,
// curl ignores an upper-case HTTP_PROXY (a CGI safety rule) but reads NO_PROXY,
// Go prefers upper case, Python and Node.js lower case. The JVM reads none.
func Reads(client Client) Variables {
	switch client {
	case Java:
		return Variables{}
	case Node: // undici: http_proxy ?? HTTP_PROXY, no_proxy ?? NO_PROXY
		return Variables{Proxy: []string{"http_proxy", "HTTP_PROXY"}, NoProxy: []string{"no_proxy", "NO_PROXY"}}
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
// the client reads no proxy variable at all. The JVM reads no proxy variable:
// java decides on the -Dhttp.proxyHost and -Dhttp.nonProxyHosts flags in
// JAVA_TOOL_OPTIONS (the last of two wins). Node.js reads the variables only
// with NODE_USE_ENV_PROXY=1.
func DecideEnv(client Client, env map[string]string, targetURL string) (Decision, error) {
	t, err := parseTarget(targetURL)
	if err != nil {
		return Decision{}, err
	}
	switch {
	case client == Java:
		flags := javaFlags(env["JAVA_TOOL_OPTIONS"])
		if flags["http.proxyHost"] == "" {
			return Decision{Target: targetURL, Client: client, Direct: true, Entry: "(no -Dhttp.proxyHost in JAVA_TOOL_OPTIONS)"}, nil
		}
		direct, entry := javaDecide(compileNonProxyHosts(flags["http.nonProxyHosts"]), t)
		return Decision{Target: targetURL, Client: client, Direct: direct, Entry: entry}, nil
	case client == Node && env["NODE_USE_ENV_PROXY"] != "1":
		return Decision{Target: targetURL, Client: client, Direct: true, Entry: "(NODE_USE_ENV_PROXY is not 1)"}, nil
	}
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
		return Decision{Target: targetURL, Client: client, Direct: true, Entry: "(no proxy variable this client reads)"}, nil
	}
	return Decide(client, noProxy, targetURL)
}
