// Package noproxy tells, for one NO_PROXY value, whether a client sends a
// request to a target directly or through the proxy, and which entry decided.
//
// Clients disagree (see the README's NO_PROXY guide), so each is modelled on
// its own code: Go is golang.org/x/net/http/httpproxy itself; curl, wget,
// python-requests and python-urllib are models of the versions Debian stable
// ships (curl 7.88, wget 1.21, requests 2.28, Python 3.11, HTTPX 0.23, Ruby 3.1's
// Net::HTTP, which also looks at the address a host resolves to); java is OpenJDK 17's
// http.nonProxyHosts matching over the library's translation of NO_PROXY (what
// proxy.runtimes java puts in JAVA_TOOL_OPTIONS); node22-http, node22-fetch,
// node24-http, node24-fetch, node26-http and node26-fetch are Node.js's
// http.request and fetch with NODE_USE_ENV_PROXY=1 on each LTS line. Each is
// checked against the real program through a real proxy by the project's tests.
//
// Only the NO_PROXY decision is modelled, not which variable names a client
// reads (wget reads only no_proxy and http_proxy in lower case, for example).
package noproxy

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// Client names a client whose NO_PROXY matching is modelled.
type Client string

// The clients Decide knows.
const (
	Go             Client = "go"
	Curl           Client = "curl"
	Wget           Client = "wget"
	PythonRequests Client = "python-requests"
	PythonURLLib   Client = "python-urllib"
	PythonHTTPX    Client = "python-httpx"
	Ruby           Client = "ruby"
	Java           Client = "java"
	// Node.js 22.21 and later 22.x: http.request and https.request, and fetch.
	Node22HTTP  Client = "node22-http"
	Node22Fetch Client = "node22-fetch"
	// Node.js 24.x.
	Node24HTTP  Client = "node24-http"
	Node24Fetch Client = "node24-fetch"
	// Node.js 26.x.
	Node26HTTP  Client = "node26-http"
	Node26Fetch Client = "node26-fetch"
)

// Clients lists every client, in the order explain prints them.
var Clients = []Client{Go, Curl, Wget, PythonRequests, PythonURLLib, PythonHTTPX, Ruby, Java, Node22HTTP, Node22Fetch, Node24HTTP, Node24Fetch, Node26HTTP, Node26Fetch}

// NodeClients are the Node.js clients, which read the variables only with NODE_USE_ENV_PROXY=1.
var NodeClients = []Client{Node22HTTP, Node22Fetch, Node24HTTP, Node24Fetch, Node26HTTP, Node26Fetch}

// Decision is one client's choice for one target.
type Decision struct {
	Target string `json:"target"`
	Client Client `json:"client"`
	Direct bool   `json:"direct"`
	// Entry is the NO_PROXY entry that sent the target around the proxy (for
	// java, the http.nonProxyHosts pattern), or a note in parentheses when no
	// entry did (Go never proxies loopback). Empty when the target goes through
	// the proxy.
	Entry string `json:"entry"`
}

// ParseClient reads a client name; the error lists the known ones.
func ParseClient(name string) (Client, error) {
	for _, c := range Clients {
		if string(c) == name {
			return c, nil
		}
	}
	if name == "node" { // the one Node.js client of proxykit 0.5 and before
		return "", fmt.Errorf("client \"node\" is gone: Node.js's http.request and fetch match NO_PROXY differently, and each LTS line its own way; name one of %s", join(NodeClients))
	}
	return "", fmt.Errorf("unknown client %q (known: %s)", name, join(Clients))
}

func join(clients []Client) string {
	names := make([]string, len(clients))
	for i, c := range clients {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// target is a request's destination as the clients see it.
type target struct {
	raw      string
	url      *url.URL
	hostname string // lower case, without brackets
	port     string // explicit port, or ""
	netloc   string // host[:port] as written in the URL, brackets kept, lower case
}

// resolved is addr, or the address the host is without a lookup: an IP
// literal's own, 127.0.0.1 for localhost (every /etc/hosts has it).
func (t target) resolved(addr netip.Addr) netip.Addr {
	if addr.IsValid() {
		return addr
	}
	if a, err := netip.ParseAddr(t.hostname); err == nil {
		return a
	}
	if t.hostname == "localhost" {
		return netip.MustParseAddr("127.0.0.1")
	}
	return netip.Addr{}
}

// parseTarget reads a URL, or a host[:port] taken as http://host[:port].
func parseTarget(raw string) (target, error) {
	s := raw
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return target{}, fmt.Errorf("target %q is not a URL or host", raw)
	}
	return target{raw: raw, url: u, hostname: strings.ToLower(u.Hostname()), port: u.Port(), netloc: strings.ToLower(u.Host)}, nil
}

// Decide tells whether client sends target (a URL, or host[:port]) directly or
// through the proxy under noProxy. For ruby, which also matches the address a
// host resolves to, only an IP literal and localhost (127.0.0.1) have one: see
// DecideResolved.
func Decide(client Client, noProxy, targetURL string) (Decision, error) {
	return DecideResolved(client, noProxy, targetURL, netip.Addr{})
}

// DecideResolved is Decide with the address the target's host resolves to, for
// a client that looks it up (ruby matches NO_PROXY's IPv4 addresses and CIDRs
// against it, and never proxies loopback); the zero Addr when unknown, then as
// Decide. Other clients ignore it.
func DecideResolved(client Client, noProxy, targetURL string, addr netip.Addr) (Decision, error) {
	t, err := parseTarget(targetURL)
	if err != nil {
		return Decision{}, err
	}
	var entry string
	var direct bool
	switch client {
	case Go:
		direct, entry = goDecide(noProxy, t)
	case Curl:
		direct, entry = curlDecide(noProxy, t)
	case Wget:
		direct, entry = wgetDecide(noProxy, t)
	case PythonRequests:
		direct, entry = requestsDecide(noProxy, t)
	case PythonURLLib:
		direct, entry = urllibDecide(noProxy, t.netloc)
	case PythonHTTPX:
		direct, entry = httpxDecide(noProxy, t)
	case Ruby:
		direct, entry = rubyDecide(noProxy, t, t.resolved(addr))
	case Java:
		tr, err := translateForJava(noProxy)
		if err != nil {
			return Decision{}, err
		}
		direct, entry = javaDecide(tr.patterns, t)
	default:
		node, ok := nodeClients[client]
		switch {
		case !ok:
			_, err := ParseClient(string(client))
			return Decision{}, err
		case node.fetch:
			direct, entry = nodeFetchDecide(node.line, noProxy, t)
		default:
			direct, entry = nodeHTTPDecide(node.line, noProxy, t)
		}
	}
	return Decision{Target: targetURL, Client: client, Direct: direct, Entry: entry}, nil
}
