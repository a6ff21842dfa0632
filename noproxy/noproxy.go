// Package noproxy tells, for one NO_PROXY value, whether a client sends a
// request to a target directly or through the proxy, and which entry decided.
//
// Clients disagree (see the README's NO_PROXY guide), so each is modelled on
// its own code: Go is golang.org/x/net/http/httpproxy itself; curl, wget,
// python-requests and python-urllib are models of the versions Debian stable
// ships (curl 7.88, wget 1.21, requests 2.28, Python 3.11, HTTPX 0.23, Ruby 3.1's
// Net::HTTP, which also looks at the address a host resolves to); java is OpenJDK 17's
// http.nonProxyHosts matching over the library's translation of NO_PROXY (what
// proxy.runtimes java puts in JAVA_TOOL_OPTIONS); node-http and node-fetch are
// Node.js 24's http.request and fetch with NODE_USE_ENV_PROXY=1, and
// node-http@22, node-fetch@22, node-http@26, node-fetch@26 those of the other LTS
// lines. Each is checked against the real program through a real proxy by the
// project's tests.
//
// Only the NO_PROXY decision is modelled, not which variable names a client
// reads (wget reads only no_proxy and http_proxy in lower case, for example).
package noproxy

import (
	"fmt"
	"net/netip"
	"net/url"
	"slices"
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
	// Node.js with NODE_USE_ENV_PROXY=1: http.request and https.request (the http
	// module's own proxy support), and fetch (the bundled undici), on the 24.x line.
	NodeHTTP  Client = "node-http"
	NodeFetch Client = "node-fetch"
	// The same on the 22.x line (22.21 and later) and on 26.x, which read NO_PROXY
	// their own way.
	NodeHTTP22  Client = "node-http@22"
	NodeFetch22 Client = "node-fetch@22"
	NodeHTTP26  Client = "node-http@26"
	NodeFetch26 Client = "node-fetch@26"
)

// Clients lists the clients explain and the check rules judge, in the order
// explain prints them. Node.js's 22.x and 26.x lines are clients of their own
// (NodeClients), named with the line: node-fetch@22.
var Clients = []Client{Go, Curl, Wget, PythonRequests, PythonURLLib, PythonHTTPX, Ruby, Java, NodeHTTP, NodeFetch}

// NodeClients are the Node.js clients of every LTS line the project models and
// tests: 22.x, 24.x (node-http, node-fetch) and 26.x.
var NodeClients = []Client{NodeHTTP22, NodeFetch22, NodeHTTP, NodeFetch, NodeHTTP26, NodeFetch26}

// NodeLine is the Node.js release line a client models (22, 24 or 26), 0 for
// any other client.
func (c Client) NodeLine() int { return int(nodeClients[c].line) }

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

// ParseClient reads a client name; the error lists the known ones. A Node.js
// client may name its line: node-fetch@22, node-http@26 (node-http@24 is node-http).
func ParseClient(name string) (Client, error) {
	for _, c := range append(slices.Clone(Clients), NodeClients...) {
		if string(c) == name {
			return c, nil
		}
	}
	if base, line, ok := strings.Cut(name, "@"); ok && line == "24" && (base == string(NodeHTTP) || base == string(NodeFetch)) {
		return Client(base), nil
	}
	if name == "node" { // the one Node.js client of proxykit 0.5 and before
		return "", fmt.Errorf("client \"node\" is gone: Node.js's http.request and fetch match NO_PROXY differently; name node-http or node-fetch (Node.js 24), or with the line: %s", join(NodeClients))
	}
	return "", fmt.Errorf("unknown client %q (known: %s; Node.js's other lines: node-http@22, node-fetch@22, node-http@26, node-fetch@26)", name, join(Clients))
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
