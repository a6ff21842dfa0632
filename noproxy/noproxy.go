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
// lines; deno, bun, php-guzzle and busybox-wget are Deno 2.9, Bun 1.4, Guzzle 7.4
// on php-cli and BusyBox 1.35. Each is checked against the real program through a
// real proxy by the project's tests. dotnet, fabric8 and keycloak (Keycloak's
// own HTTP client) have no runtime the tests can reach: they are modelled from
// their sources and tested on their projects' own test cases (Client.FromSource).
//
// Each client is one Family, registered by the file that holds its matcher
// (family.go); Reads tells which variables a client reads, Decide with Env
// applies them, FamilyOf tells the rest.
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
	// Deno's fetch (2.9, the hyper-util matcher family, as Rust's reqwest), Bun's
	// fetch (1.4), and PHP's Guzzle 7.4 on php-cli with the curl handler (Debian 12).
	Deno      Client = "deno"
	Bun       Client = "bun"
	PHPGuzzle Client = "php-guzzle"
	// Guzzle under any SAPI but the CLI (php-fpm, php-cgi, mod_php): the httpoxy
	// guard keeps it from reading HTTP_PROXY, so curl decides on its own variables.
	// php-fpm passes a container's environment on only with clear_env = no.
	PHPGuzzleWeb Client = "php-guzzle@web"
	// .NET's HttpClient (HttpEnvironmentProxy of dotnet/runtime): modelled from its
	// source, which no reachable registry ships a runtime of.
	DotNet Client = "dotnet"
	// gRPC: C-core (1.51, Debian's python3-grpcio; Ruby's, PHP's and C++'s gRPC
	// share it), grpc-go (1.71 and later) and grpc-go's 1.63 to 1.70 line, which
	// matched NO_PROXY against the address a name resolved to. A target is host:port.
	GRPCCore  Client = "grpc-core"
	GRPCGo    Client = "grpc-go"
	GRPCGo170 Client = "grpc-go@1.70"
	// BusyBox's wget (1.35, Alpine images and init containers): http_proxy for
	// every scheme, and no NO_PROXY at all.
	BusyBoxWget Client = "busybox-wget"
	// The fabric8 Kubernetes client (7.x: Jenkins' Kubernetes cloud, Spark,
	// Flink, Keycloak and Strimzi operators), which calls only its API server:
	// modelled from its source. It refuses a NO_PROXY entry outside
	// [0-9A-Za-z.-/:] that it reaches before a match (Decision.Refused).
	Fabric8 Client = "fabric8"
	// Keycloak's own HTTP client (26.x: identity brokering, user federation):
	// https_proxy first, for every scheme, and NO_PROXY entries matched as
	// regular expressions, untrimmed. Modelled from its source.
	Keycloak Client = "keycloak"
)

// Clients lists the clients explain and the check rules judge, in the order
// explain prints them. Node.js's 22.x and 26.x lines are clients of their own
// (NodeClients), named with the line: node-fetch@22.
// Each family registers itself (family.go); the lists are read off the registry.
var Clients []Client

// OtherClients are clients explain shows that release-service-proxied does not
// judge by NO_PROXY: busybox-wget reads no NO_PROXY, so no list sends anything
// around the proxy (run it with -Y off, or without http_proxy, for in-cluster
// calls); fabric8 calls only its API server, which no-proxy-refused judges;
// grpc-go@1.70 is a past line (upgrade it: no name entry ever matched);
// php-guzzle@web decides as curl does on the variables proxykit writes.
var OtherClients []Client

// FromSource tells a client modelled from its source and its project's own test
// cases, with no runtime the project's tests can run (no reachable registry
// ships one): the README's client table says so.
func (c Client) FromSource() bool { return registry[c].FromSource }

// NodeClients are the Node.js clients of every LTS line the project models and
// tests: 22.x, 24.x (node-http, node-fetch) and 26.x.
var NodeClients []Client

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
	// Refused says why the client makes no request at all (fabric8 throws on a
	// NO_PROXY entry it cannot read); Direct is then false.
	Refused string `json:"refused,omitempty"`
}

// ParseClient reads a client name; the error lists the known ones. A Node.js
// client may name its line: node-fetch@22, node-http@26 (node-http@24 is node-http).
func ParseClient(name string) (Client, error) {
	for _, c := range AllClients() {
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
	return "", fmt.Errorf("unknown client %q (known: %s, %s; Node.js's other lines: node-http@22, node-fetch@22, node-http@26, node-fetch@26)", name, join(Clients), join(OtherClients))
}

// AllClients are every client Decide knows: Clients, Node.js's other lines and OtherClients.
func AllClients() []Client {
	var out []Client
	for _, c := range slices.Concat(Clients, NodeClients, OtherClients) {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
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
