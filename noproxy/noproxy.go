// Package noproxy tells, for one NO_PROXY value, whether a client sends a
// request to a target directly or through the proxy, and which entry decided.
//
// Clients disagree (see the README's NO_PROXY guide), so each is modelled on
// its own code: Go is golang.org/x/net/http/httpproxy itself; curl, wget,
// python-requests and python-urllib are models of the versions Debian stable
// ships (curl 7.88, wget 1.21, requests 2.28, Python 3.11); java is OpenJDK 17's
// http.nonProxyHosts matching over the library's translation of NO_PROXY (what
// proxy.runtimes java puts in JAVA_TOOL_OPTIONS); node is undici 6's
// EnvHttpProxyAgent, what Node.js uses with NODE_USE_ENV_PROXY=1. Each is checked
// against the real program through a real proxy by the project's tests.
//
// Only the NO_PROXY decision is modelled, not which variable names a client
// reads (wget reads only no_proxy and http_proxy in lower case, for example).
package noproxy

import (
	"fmt"
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
	Java           Client = "java"
	Node           Client = "node"
)

// Clients lists every client, in the order explain prints them.
var Clients = []Client{Go, Curl, Wget, PythonRequests, PythonURLLib, Java, Node}

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
	var names []string
	for _, c := range Clients {
		names = append(names, string(c))
	}
	return "", fmt.Errorf("unknown client %q (known: %s)", name, strings.Join(names, ", "))
}

// target is a request's destination as the clients see it.
type target struct {
	raw      string
	url      *url.URL
	hostname string // lower case, without brackets
	port     string // explicit port, or ""
	netloc   string // host[:port] as written in the URL, brackets kept, lower case
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
// through the proxy under noProxy.
func Decide(client Client, noProxy, targetURL string) (Decision, error) {
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
	case Java:
		tr, err := translateForJava(noProxy)
		if err != nil {
			return Decision{}, err
		}
		direct, entry = javaDecide(tr.patterns, t)
	case Node:
		direct, entry = nodeDecide(noProxy, t)
	default:
		_, err := ParseClient(string(client))
		return Decision{}, err
	}
	return Decision{Target: targetURL, Client: client, Direct: direct, Entry: entry}, nil
}
