package noproxy

import (
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// The Node.js clients: http.request (the http module's own proxy support,
// http_proxy || HTTP_PROXY) and fetch (the bundled undici, ??), each line's.
var (
	_ = register(nodeFamily(NodeHTTP22, 88))
	_ = register(nodeFamily(NodeFetch22, 89))
	_ = register(nodeFamily(NodeHTTP, 90))
	_ = register(nodeFamily(NodeFetch, 91))
	_ = register(nodeFamily(NodeHTTP26, 92))
	_ = register(nodeFamily(NodeFetch26, 93))
)

// Node.js reads the proxy variables only with NODE_USE_ENV_PROXY=1, and then
// two ways: http.request and https.request through the http module's own
// ProxyConfig (lib/internal/http.js), fetch through the undici release bundled
// with the line (its EnvHttpProxyAgent). The two disagree, and both changed
// between the LTS lines, so each line and API is a client of its own. The
// models follow the sources of the pinned releases the tests run: Node 22.23
// (undici 6.28), 24.21 (undici 7.29) and 26.10 (undici 8.10).

// nodeLine is a Node.js release line with NODE_USE_ENV_PROXY (22.21 and later).
type nodeLine int

// nodeClients maps each Node.js client to its line and API.
var nodeClients = map[Client]struct {
	line  nodeLine
	fetch bool
}{
	NodeHTTP22: {22, false}, NodeFetch22: {22, true},
	NodeHTTP: {24, false}, NodeFetch: {24, true},
	NodeHTTP26: {26, false}, NodeFetch26: {26, true},
}

// defaultPort is the port of a URL without one, as both APIs fill it in.
func defaultPort(t target) int {
	if t.port != "" {
		p, _ := strconv.Atoi(t.port)
		return p
	}
	if t.url.Scheme == "https" {
		return 443
	}
	return 80
}

// nodeHTTPDecide models ProxyConfig.shouldUseProxy: NO_PROXY is split at commas
// only, each entry trimmed and lower-cased; "*" anywhere bypasses everything;
// an entry matches the host (IPv6 without brackets) or host:port exactly (the
// port filled in from the scheme); a ".name" entry matches name and, from 24 on,
// its subdomains at a dot (22: any host that ends with name); a "*.name" entry
// any host that ends with ".name"; "a-b" an IPv4 range. No CIDR, no bare-name
// subdomains, no bracketed IPv6.
func nodeHTTPDecide(line nodeLine, noProxy string, t target) (bool, string) {
	if noProxy == "" {
		return false, ""
	}
	host := t.hostname
	hostWithPort := host + ":" + strconv.Itoa(defaultPort(t))
	for _, raw := range strings.Split(noProxy, ",") {
		entry := strings.ToLower(strings.TrimFunc(raw, isJSSpace))
		switch {
		case entry == "*", entry == host, entry == hostWithPort:
			return true, entry
		case strings.HasPrefix(entry, "."):
			suffix := entry[1:]
			if host == suffix || (strings.HasSuffix(host, suffix) && (line == 22 || strings.HasSuffix(host, "."+suffix))) {
				return true, entry
			}
		}
		if strings.HasPrefix(entry, "*.") && strings.HasSuffix(host, entry[1:]) {
			return true, entry
		}
		if from, to, ok := strings.Cut(entry, "-"); ok && isIPv4(host) {
			to, _, _ = strings.Cut(to, "-")
			start, end := strings.TrimFunc(from, isJSSpace), strings.TrimFunc(to, isJSSpace)
			if isIPv4(start) && isIPv4(end) {
				h, s, e := netip.MustParseAddr(host), netip.MustParseAddr(start), netip.MustParseAddr(end)
				if h.Compare(s) >= 0 && h.Compare(e) <= 0 {
					return true, entry
				}
			}
		}
	}
	return false, ""
}

// isIPv4 is net.isIPv4: four decimal parts, no leading zeros.
func isIPv4(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is4()
}

var (
	fetchEntryPort   = regexp.MustCompile(`^(.+):(\d+)$`)
	fetchIPv6Port    = regexp.MustCompile(`^\[(.+)\]:(\d+)$`)
	fetchBracketed   = regexp.MustCompile(`^\[(.+)\]$`)
	fetchWildcard    = regexp.MustCompile(`^\*?\.`)
	fetchTrailingDot = regexp.MustCompile(`^(.+)\.$`)
)

// nodeFetchDecide models undici's EnvHttpProxyAgent, which NODE_USE_ENV_PROXY
// installs for fetch: NO_PROXY is split at commas and blanks; the value "*"
// bypasses everything; an entry with ":port" applies to that port only. The
// host keeps its IPv6 brackets before 26.
//   - 22 (undici 6): a ".name" or "*name" entry matches any host ending with
//     what follows the "*"; any other entry only the exact host.
//   - 24 (undici 7): a leading "." or "*." is dropped, and every entry matches
//     the host and its subdomains at a dot.
//   - 26 (undici 8): as 24, and brackets and one trailing dot are dropped from
//     entries and host alike; an entry with more than one colon has no port.
//
// No CIDR.
func nodeFetchDecide(line nodeLine, noProxy string, t target) (bool, string) {
	if noProxy == "*" {
		return true, "*"
	}
	host := strings.ToLower(t.netloc)
	if t.port != "" || strings.HasSuffix(host, ":") {
		host = host[:strings.LastIndex(host, ":")]
	}
	if line >= 26 {
		host = fetchBracketed.ReplaceAllString(host, "$1")
		if len(host) > 1 {
			host = strings.TrimSuffix(host, ".")
		}
	}
	port := defaultPort(t)
	for _, entry := range strings.FieldsFunc(noProxy, func(r rune) bool { return r == ',' || isJSSpace(r) }) {
		name, entryPort := nodeFetchEntry(line, entry)
		if entryPort != 0 && entryPort != port {
			continue
		}
		if line == 22 {
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "*") {
				if strings.HasSuffix(host, strings.TrimPrefix(name, "*")) {
					return true, entry
				}
			} else if host == name {
				return true, entry
			}
			continue
		}
		if host == name || strings.HasSuffix(host, "."+name) {
			return true, entry
		}
	}
	return false, ""
}

// nodeFetchEntry is the host name and port undici reads from one entry.
func nodeFetchEntry(line nodeLine, entry string) (string, int) {
	name, port := entry, 0
	switch m := fetchIPv6Port.FindStringSubmatch(entry); {
	case line >= 26 && m != nil:
		name, port = m[1], atoi(m[2])
	case line >= 26:
		name = fetchBracketed.ReplaceAllString(entry, "$1")
		if m := fetchEntryPort.FindStringSubmatch(name); m != nil && strings.Count(name, ":") == 1 {
			name, port = m[1], atoi(m[2])
		}
	default:
		if m := fetchEntryPort.FindStringSubmatch(entry); m != nil {
			name, port = m[1], atoi(m[2])
		}
	}
	if line >= 24 {
		name = fetchWildcard.ReplaceAllString(name, "")
	}
	if line >= 26 {
		name = fetchTrailingDot.ReplaceAllString(name, "$1")
	}
	return strings.ToLower(name), port
}

// atoi is Number.parseInt of a string of digits (0 past the int range, which no port reaches).
func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// isJSSpace is JavaScript's \s and String.prototype.trim's white space.
func isJSSpace(r rune) bool { return unicode.IsSpace(r) || r == '\ufeff' }

// nodeFamily is Node.js: the http module or fetch, of the client's line.
func nodeMatch(client Client, noProxy string, t target, _ netip.Addr) (bool, string, error) {
	node := nodeClients[client]
	if node.fetch {
		d, e := nodeFetchDecide(node.line, noProxy, t)
		return d, e, nil
	}
	d, e := nodeHTTPDecide(node.line, noProxy, t)
	return d, e, nil
}

// nodeFamily is the model of one Node.js client: Node.js 24's are among the
// clients the rules judge, every line's among NodeClients.
func nodeFamily(client Client, rank int) Family {
	lists := []List{ListNode}
	if nodeClients[client].line == 24 {
		lists = append(lists, ListMain)
	}
	return Family{Client: client, Lists: lists, Rank: rank, Match: nodeMatch, ReadEnv: nodeReadEnv,
		Reads: Variables{Proxy: []string{"http_proxy", "HTTP_PROXY"}, NoProxy: []string{"no_proxy", "NO_PROXY"}, SetWins: nodeClients[client].fetch}}
}

// nodeReadEnv reads Node.js's variables: none without NODE_USE_ENV_PROXY=1;
// fetch needs a proxy variable of either scheme; http.request ignores a proxy
// URL that is not http:// or https://.
func nodeReadEnv(client Client, env map[string]string, _ target) (string, string, string) {
	node := nodeClients[client]
	switch {
	case env["NODE_USE_ENV_PROXY"] != "1":
		return "", "(NODE_USE_ENV_PROXY is not 1)", ""
	case node.fetch && env["http_proxy"] == "" && env["HTTP_PROXY"] == "" && env["https_proxy"] == "" && env["HTTPS_PROXY"] == "":
		return "", "(no proxy variable this client reads)", ""
	}
	vars := Reads(client)
	proxy := vars.pick(env, vars.Proxy)
	switch {
	case proxy == "":
		return "", "(no proxy variable this client reads)", ""
	case !node.fetch && !strings.HasPrefix(proxy, "http://") && !strings.HasPrefix(proxy, "https://"):
		return "", "(Node.js ignores a proxy URL that is not http:// or https://)", ""
	}
	return vars.pickNoProxy(env), "", ""
}
