package noproxy

import (
	"net/netip"
	"strings"
)

// Option says what a client is started with, beyond the target.
type Option func(*decideOptions)

type decideOptions struct {
	noProxy string
	env     map[string]string
	addr    netip.Addr
}

// NoProxy decides on this NO_PROXY list, as if the client read it (and a proxy
// URL) from its variables. Without it, and without Env, nothing bypasses the proxy.
func NoProxy(list string) Option { return func(o *decideOptions) { o.noProxy = list } }

// Env decides for a client started with these variables: it reads the ones
// Reads names (the JVM its -D flags in JAVA_TOOL_OPTIONS; Node.js only with
// NODE_USE_ENV_PROXY=1), and a target goes direct when it finds no proxy URL.
func Env(env map[string]string) Option { return func(o *decideOptions) { o.env = env } }

// ResolvedTo is the address the target's host resolves to, for a client that
// looks it up (ruby matches NO_PROXY's IPv4 addresses and CIDRs against it, and
// never proxies loopback). Without it only an IP literal and localhost have one.
func ResolvedTo(addr netip.Addr) Option { return func(o *decideOptions) { o.addr = addr } }

// family decides for one client (or one family of clients, as the Node.js
// lines) on a NO_PROXY list: direct or not, and the entry that decided.
type family func(client Client, noProxy string, t target, addr netip.Addr) (bool, string, error)

// families are the models, one file each (go.go, curl.go, ruby.go, node.go ...).
var families = map[Client]family{
	Go:             plain(goDecide),
	Curl:           plain(curlDecide),
	Wget:           plain(wgetDecide),
	PythonRequests: plain(requestsDecide),
	PythonURLLib: func(_ Client, noProxy string, t target, _ netip.Addr) (bool, string, error) {
		d, e := urllibDecide(noProxy, t.netloc)
		return d, e, nil
	},
	PythonHTTPX: plain(httpxDecide),
	Ruby: func(_ Client, noProxy string, t target, addr netip.Addr) (bool, string, error) {
		d, e := rubyDecide(noProxy, t, t.resolved(addr))
		return d, e, nil
	},
	Java:        javaFamily,
	NodeHTTP22:  nodeFamily,
	NodeFetch22: nodeFamily,
	NodeHTTP:    nodeFamily,
	NodeFetch:   nodeFamily,
	NodeHTTP26:  nodeFamily,
	NodeFetch26: nodeFamily,
	Deno:        plain(denoDecide),
	Bun:         plain(bunDecide),
	DotNet:      plain(dotnetDecide),
	BusyBoxWget: plain(busyboxDecide),
	GRPCCore:    plain(grpcCoreDecide),
	GRPCGo:      grpcGoFamily,
	GRPCGo170:   grpcGoFamily,
	// Guzzle over curl reads both cases of the variables: decided on them (phpDecide)
	PHPGuzzle: func(_ Client, noProxy string, t target, _ netip.Addr) (bool, string, error) {
		d, e := phpDecide(phpEnv(noProxy), t, true)
		return d, e, nil
	},
	PHPGuzzleWeb: func(_ Client, noProxy string, t target, _ netip.Addr) (bool, string, error) {
		d, e := phpDecide(phpEnv(noProxy), t, false)
		return d, e, nil
	},
	Fabric8: func(_ Client, noProxy string, t target, addr netip.Addr) (bool, string, error) {
		d, e, refused := fabric8Decide(noProxy, t, addr)
		if refused != "" {
			return false, "", refusal(refused)
		}
		return d, e, nil
	},
}

func grpcGoFamily(client Client, noProxy string, t target, addr netip.Addr) (bool, string, error) {
	d, e := grpcGoDecide(client, noProxy, t, addr)
	return d, e, nil
}

// refusal is a family's word that the client makes no request at all.
type refusal string

func (r refusal) Error() string { return string(r) }

// plain adapts a model that needs only the list and the target.
func plain(decide func(noProxy string, t target) (bool, string)) family {
	return func(_ Client, noProxy string, t target, _ netip.Addr) (bool, string, error) {
		d, e := decide(noProxy, t)
		return d, e, nil
	}
}

// Decide tells whether client sends target (a URL, or host[:port]) directly or
// through the proxy, and which entry decided: on the NO_PROXY list of NoProxy,
// or on the variables of Env, with the address of ResolvedTo where the client
// looks one up.
func Decide(client Client, targetURL string, opts ...Option) (Decision, error) {
	var o decideOptions
	for _, opt := range opts {
		opt(&o)
	}
	model, ok := families[client]
	if !ok {
		_, err := ParseClient(string(client))
		return Decision{}, err
	}
	t, err := parseTarget(targetURL)
	if err != nil {
		return Decision{}, err
	}
	noProxy := o.noProxy
	if o.env != nil {
		if client == PHPGuzzle || client == PHPGuzzleWeb { // Guzzle and curl underneath, each with its own variables
			direct, entry := phpDecide(o.env, t, client == PHPGuzzle)
			return Decision{Target: t.raw, Client: client, Direct: direct, Entry: entry}, nil
		}
		read, own := envReaders[client]
		if !own {
			read = func(client Client, env map[string]string, _ target) (string, string, string) {
				list, direct := fromEnv(client, env)
				return list, direct, ""
			}
		}
		list, why, refused := read(client, o.env, t)
		switch {
		case refused != "":
			return Decision{Target: t.raw, Client: client, Refused: refused}, nil
		case why != "":
			return Decision{Target: t.raw, Client: client, Direct: true, Entry: why}, nil
		case client == Java: // the JVM's own patterns, not a NO_PROXY list
			direct, entry := javaDecide(compileNonProxyHosts(list), t)
			return Decision{Target: t.raw, Client: client, Direct: direct, Entry: entry}, nil
		}
		noProxy = list
	}
	direct, entry, err := model(client, noProxy, t, o.addr)
	if r, ok := err.(refusal); ok {
		return Decision{Target: t.raw, Client: client, Refused: string(r)}, nil
	}
	if err != nil {
		return Decision{}, err
	}
	return Decision{Target: t.raw, Client: client, Direct: direct, Entry: entry}, nil
}

// envReader reads a client's variables: the NO_PROXY list it matches (for java,
// its http.nonProxyHosts), or why it sends every request directly, or why it
// makes none (refused).
type envReader func(client Client, env map[string]string, t target) (list, direct, refused string)

// envReaders are the clients that read their variables their own way; the
// others read them as Reads says (fromEnv).
var envReaders = map[Client]envReader{
	DotNet: func(_ Client, env map[string]string, _ target) (string, string, string) {
		proxy, list := dotnetEnv(env)
		if proxy == "" {
			return "", "(no proxy variable this client reads)", ""
		}
		return list, "", ""
	},
	GRPCCore: func(_ Client, env map[string]string, _ target) (string, string, string) {
		proxy, list := grpcCoreEnv(env)
		if proxy == "" {
			return "", "(no http:// proxy in grpc_proxy, https_proxy or http_proxy)", ""
		}
		return list, "", ""
	},
	Fabric8: func(_ Client, env map[string]string, t target) (string, string, string) {
		proxy, list, refused := fabric8Env(env, t)
		if refused == "" && proxy == "" {
			return "", "(no proxy variable this client reads)", ""
		}
		return list, "", refused
	},
}

// fromEnv is the list a client started with env matches (for java, its
// http.nonProxyHosts), or why it sends every request directly.
func fromEnv(client Client, env map[string]string) (list, direct string) {
	node, isNode := nodeClients[client]
	switch {
	case client == Java:
		flags := javaFlags(env["JAVA_TOOL_OPTIONS"])
		if flags["http.proxyHost"] == "" {
			return "", "(no -Dhttp.proxyHost in JAVA_TOOL_OPTIONS)"
		}
		return flags["http.nonProxyHosts"], ""
	case isNode && env["NODE_USE_ENV_PROXY"] != "1":
		return "", "(NODE_USE_ENV_PROXY is not 1)"
	case node.fetch && env["http_proxy"] == "" && env["HTTP_PROXY"] == "" && env["https_proxy"] == "" && env["HTTPS_PROXY"] == "":
		return "", "(no proxy variable this client reads)"
	}
	vars := Reads(client)
	proxy := vars.pick(env, vars.Proxy)
	if proxy == "" {
		return "", "(no proxy variable this client reads)"
	}
	if isNode && !node.fetch && !strings.HasPrefix(proxy, "http://") && !strings.HasPrefix(proxy, "https://") {
		return "", "(Node.js ignores a proxy URL that is not http:// or https://)"
	}
	return vars.pickNoProxy(env), ""
}
