package noproxy

import (
	"maps"
	"net/netip"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The models' documented differences, one row each; the real programs confirm
// every model in tests/noproxy_clients_test.go.
func TestClientsDisagree(t *testing.T) {
	nodeAll := []Client{NodeHTTP22, NodeFetch22, NodeHTTP, NodeFetch, NodeHTTP26, NodeFetch26}
	nodeHTTP := []Client{NodeHTTP22, NodeHTTP, NodeHTTP26}
	fetch := []Client{NodeFetch22, NodeFetch, NodeFetch26}
	with := func(base []Client, more ...Client) map[Client]bool {
		m := map[Client]bool{}
		for _, c := range append(slices.Clone(base), more...) {
			m[c] = true
		}
		return m
	}
	cases := []struct {
		noProxy, target string
		direct          map[Client]bool // missing client: goes through the proxy
	}{
		{"*", "http://example.com", with(nodeAll, Go, Curl, PythonRequests, PythonURLLib, PythonHTTPX, Java, Deno, Bun, PHPGuzzle, GRPCGo)}, // Ruby reads "*" as a name
		{"10.0.0.0/8", "http://10.1.2.3", with(nil, Go, Curl, PythonRequests, Ruby, Java, Deno, Bun, PHPGuzzle, GRPCGo)},
		{"fd00::/8", "http://[fd00::1]", with(nil, Go, Deno, Bun, GRPCGo)},
		{"fd00::1", "http://[fd00::1]", with(nodeHTTP, Go, Curl, Wget, PythonRequests, Java, NodeFetch26, Deno, Bun, PHPGuzzle, GRPCCore, GRPCGo)}, // undici 6 and 7 read "fd00:" port 1
		{"[fd00::1]", "http://[fd00::1]", with(fetch, PythonURLLib, Java, Bun, DotNet)},
		{"*.example.com", "http://a.example.com", with(nodeAll, Go, Java, Bun, GRPCGo)},
		{".example.com", "http://a.example.com", with(nodeAll, Go, Curl, Wget, PythonRequests, PythonURLLib, PythonHTTPX, Ruby, Java, Deno, Bun, PHPGuzzle, DotNet, GRPCCore, GRPCGo)},
		{".example.com", "http://example.com", with(nodeHTTP, Curl, PythonRequests, PythonURLLib, NodeFetch, NodeFetch26, Deno, Bun, PHPGuzzle, DotNet)},
		{".example.com", "http://badexample.com", with(nil, NodeHTTP22)}, // 22's http module: any host that ends with the name
		{"example.com", "http://badexample.com", with(nil, PythonRequests, GRPCCore)},
		{"cluster.local", "http://web.svc.cluster.local.", with(nil, Curl, NodeFetch26, Bun, PHPGuzzle)},                                                                                          // hence cluster.local. in NO_PROXY too
		{"example.com", "http://a.example.com", with(nil, Go, Curl, Wget, PythonRequests, PythonURLLib, PythonHTTPX, Ruby, Java, NodeFetch, NodeFetch26, Deno, Bun, PHPGuzzle, GRPCCore, GRPCGo)}, // hence .example.com with node
		{"10.96.0.0/12", "http://10.111.255.255", with(nil, Go, Curl, PythonRequests, Ruby, Java, Deno, Bun, PHPGuzzle, GRPCGo)},
		{"10.96.0.0/12", "http://10.112.0.1", nil}, // the JVM's patterns stop where the CIDR does
		{"10.0.0.1-10.0.0.9", "http://10.0.0.5", with(nodeHTTP)},
		{"registry.local:5000", "http://registry.local:5000", with(nodeAll, Go, PythonRequests, PythonURLLib, PythonHTTPX, Ruby, Bun, GRPCGo)},
		{"registry.local:5000", "http://registry.local:443", nil},
		{"", "http://localhost", with(nil, Go, Ruby, Java, GRPCGo)}, // HTTPX proxies even localhost
	}
	for _, tc := range cases {
		for _, c := range append(slices.Clone(Clients), NodeClients...) {
			d, err := Decide(c, tc.target, NoProxy(tc.noProxy))
			require.NoError(t, err)
			assert.Equal(t, tc.direct[c], d.Direct, "%s: %s with NO_PROXY=%q (entry %q)", c, tc.target, tc.noProxy, d.Entry)
			if d.Direct {
				assert.NotEmpty(t, d.Entry, "a direct decision names its entry")
			} else {
				assert.Empty(t, d.Entry)
			}
		}
	}
}

// Ruby looks the host up: an address in an IPv4 CIDR entry goes direct, a
// host that resolves to loopback always does; no other client resolves.
func TestDecideResolved(t *testing.T) {
	for _, c := range Clients {
		d, err := Decide(c, "http://web.shop.svc:8080", NoProxy("10.96.0.0/12"), ResolvedTo(netip.MustParseAddr("10.96.0.10")))
		require.NoError(t, err)
		assert.Equal(t, c == Ruby, d.Direct, "%s (entry %q)", c, d.Entry)
		d, err = Decide(c, "http://my-host", NoProxy(""), ResolvedTo(netip.MustParseAddr("127.0.1.1")))
		require.NoError(t, err)
		assert.Equal(t, c == Ruby, d.Direct, "%s (entry %q)", c, d.Entry)
	}
	d, err := Decide(Ruby, "http://web.shop.svc:8080", NoProxy("10.96.0.0/12"))
	require.NoError(t, err)
	assert.False(t, d.Direct, "without the address, Ruby's CIDR entries match no name")
}

func TestDecideEnvReadsTheClientsVariables(t *testing.T) {
	upper := map[string]string{"HTTP_PROXY": "http://p:3128", "NO_PROXY": "other.example"}
	for c, direct := range map[Client]bool{Go: false, Curl: true, Wget: true, PythonRequests: false, PythonURLLib: false} {
		d, err := Decide(c, "http://example.com", Env(upper))
		require.NoError(t, err)
		assert.Equal(t, direct, d.Direct, "%s with upper-case variables only", c)
	}
}

// The JVM decides on its flags, Node.js only with NODE_USE_ENV_PROXY=1.
func TestDecideEnvRuntimes(t *testing.T) {
	env := map[string]string{"HTTP_PROXY": "http://p:3128", "NO_PROXY": ".corp.example"}
	for c, want := range map[Client]string{Java: "(no -Dhttp.proxyHost in the JVM's options)", NodeHTTP: "(NODE_USE_ENV_PROXY is not 1)", NodeFetch22: "(NODE_USE_ENV_PROXY is not 1)"} {
		d, err := Decide(c, "http://example.com", Env(env))
		require.NoError(t, err)
		assert.Equal(t, Decision{Target: "http://example.com", Client: c, Direct: true, Entry: want}, d)
	}
	env["NODE_USE_ENV_PROXY"] = "1"
	env["http_proxy"] = "http://p:3128"
	env["JAVA_TOOL_OPTIONS"] = "-Dhttp.proxyHost=p -Dhttp.nonProxyHosts=*.corp.example -Xmx1g -Dhttp.nonProxyHosts=a.example"
	for _, c := range append([]Client{Java}, NodeClients...) {
		d, err := Decide(c, "http://a.corp.example", Env(env))
		require.NoError(t, err)
		assert.Equal(t, c != Java, d.Direct, "%s: the JVM keeps the last -Dhttp.nonProxyHosts (entry %q)", c, d.Entry)
	}
}

// The JVM's flags in the variables after JAVA_TOOL_OPTIONS win over it, each
// over the ones before it; the real JVM agrees in the node suite's
// TestNoProxyModelsMatchRealClients.
func TestDecideJavaOptionVariables(t *testing.T) {
	base := map[string]string{"JAVA_TOOL_OPTIONS": "-Dhttp.proxyHost=p -Dhttp.nonProxyHosts=*.svc"}
	for _, tc := range []struct {
		name, value string
		direct      bool
	}{
		{"JAVA_TOOL_OPTIONS", "", true},
		{"JDK_JAVA_OPTIONS", "-Dhttp.nonProxyHosts=*.corp", false},
		{"JAVA_OPTS", "-Dhttp.nonProxyHosts=*.corp", false},
		{"JAVA_OPTS_APPEND", "-Xmx1g -Dhttp.nonProxyHosts=*.corp|*.svc", true},
		{"_JAVA_OPTIONS", "-Dhttp.nonProxyHosts=localhost", false},
		{"JAVA_OPTS", "-Dhttp.proxyHost=", true}, // an empty host: no proxy at all
	} {
		env := maps.Clone(base)
		if tc.value != "" {
			env[tc.name] = tc.value
		}
		d, err := Decide(Java, "http://web.shop.svc", Env(env))
		require.NoError(t, err)
		assert.Equal(t, tc.direct, d.Direct, "%s=%s (entry %q)", tc.name, tc.value, d.Entry)
	}
	env := maps.Clone(base)
	env["_JAVA_OPTIONS"], env["JAVA_OPTS_APPEND"] = "-Dhttp.nonProxyHosts=*.svc", "-Dhttp.nonProxyHosts=*.corp"
	d, err := Decide(Java, "http://web.shop.svc", Env(env))
	require.NoError(t, err)
	assert.True(t, d.Direct, "_JAVA_OPTIONS comes last")
}

// Node.js's http module takes the first variable that is not empty; undici, for
// fetch, the first that is set (??), and no proxy at all when every proxy
// variable is empty.
func TestDecideEnvNodeVariables(t *testing.T) {
	cases := []struct {
		name      string
		env       map[string]string
		httpProxy bool // http.request goes through the proxy
		fetchProx bool
	}{
		{"lower case wins", map[string]string{"http_proxy": "http://p:3128", "HTTP_PROXY": "http://q:3128", "no_proxy": "example.com", "NO_PROXY": "other"}, false, false},
		{"an empty lower case is skipped by http, taken by fetch", map[string]string{"http_proxy": "", "HTTP_PROXY": "http://q:3128"}, true, false},
		{"an empty no_proxy is skipped by http, taken by fetch", map[string]string{"http_proxy": "http://p:3128", "no_proxy": "", "NO_PROXY": "example.com"}, false, true},
		{"no proxy URL", map[string]string{"NO_PROXY": "other"}, false, false},
		{"a SOCKS URL: http ignores it, fetch fails on it (never direct)", map[string]string{"http_proxy": "socks5://p:1080"}, false, true},
	}
	for _, tc := range cases {
		tc.env["NODE_USE_ENV_PROXY"] = "1"
		for _, c := range NodeClients {
			d, err := Decide(c, "http://example.com", Env(tc.env))
			require.NoError(t, err)
			want := map[bool]bool{false: tc.httpProxy, true: tc.fetchProx}[nodeClients[c].fetch]
			assert.Equal(t, want, !d.Direct, "%s, %s (entry %q)", tc.name, c, d.Entry)
		}
	}
}

func TestBadInput(t *testing.T) {
	_, err := Decide("lynx", "http://a", NoProxy(""))
	assert.ErrorContains(t, err, `unknown client "lynx" (known: go, curl, wget, python-requests, python-urllib, python-httpx, ruby, java, node-http, node-fetch, deno, bun, php-guzzle, dotnet, grpc-core, grpc-go, busybox-wget, fabric8, grpc-go@1.70, php-guzzle@web, keycloak; Node.js's other lines: node-http@22, node-fetch@22, node-http@26, node-fetch@26)`)
	_, err = ParseClient("node")
	assert.ErrorContains(t, err, `client "node" is gone`)
	assert.ErrorContains(t, err, "name node-http or node-fetch")
	for name, want := range map[string]Client{"node-fetch@22": NodeFetch22, "node-http@24": NodeHTTP, "node-fetch": NodeFetch, "node-http@26": NodeHTTP26} {
		c, err := ParseClient(name)
		require.NoError(t, err)
		assert.Equal(t, want, c)
	}
	_, err = ParseClient("node-http@20")
	assert.ErrorContains(t, err, `unknown client "node-http@20"`)
	_, err = Decide(Go, "http://", NoProxy(""))
	assert.ErrorContains(t, err, "is not a URL or host")
}

// Go's deciding entry is found through the host's names, and is the one a scan
// of every entry alone finds: the first in NO_PROXY's order that decides.
func TestGoDecidingEntry(t *testing.T) {
	noProxy := "localhost,10.0.0.0/8,svc.cluster.local,cluster.local.,.corp.example,corp.example:8443,*.shop.svc,fd00::1,web"
	for target, entry := range map[string]string{
		"http://web.shop.svc.cluster.local.:8080": "cluster.local.",
		"http://web.shop.svc.cluster.local:8080":  "svc.cluster.local",
		"http://api.corp.example":                 ".corp.example",
		"https://corp.example:8443":               "corp.example:8443",
		"http://db.shop.svc":                      "*.shop.svc",
		"http://10.1.2.3":                         "10.0.0.0/8",
		"http://[fd00::1]":                        "fd00::1",
		"http://web:80":                           "web",
		"http://WEB.Shop.SVC":                     "*.shop.svc",
	} {
		d, err := Decide(Go, target, NoProxy(noProxy))
		require.NoError(t, err)
		assert.True(t, d.Direct, target)
		assert.Equal(t, entry, d.Entry, target)
	}
	d, err := Decide(Go, "http://example.com", NoProxy(noProxy))
	require.NoError(t, err)
	assert.False(t, d.Direct)
}

// The JVM's own -Dhttp.nonProxyHosts is named where it is: the last variable
// that sets it, or JAVA_TOOL_OPTIONS when an own flag follows the proxy's.
func TestJavaOwnNonProxyHosts(t *testing.T) {
	proxy := "-Dhttp.proxyHost=p -Dhttp.nonProxyHosts=*.svc"
	for want, env := range map[string]map[string]string{
		"":                  {"JAVA_TOOL_OPTIONS": proxy, "JAVA_OPTS": "-Xmx1g"},
		"JAVA_TOOL_OPTIONS": {"JAVA_TOOL_OPTIONS": proxy + " -Dhttp.nonProxyHosts=*.corp"},
		"JAVA_OPTS_APPEND":  {"JAVA_TOOL_OPTIONS": proxy, "JDK_JAVA_OPTIONS": "-Dhttp.nonProxyHosts=a", "JAVA_OPTS_APPEND": "-Dhttp.nonProxyHosts=b"},
		"_JAVA_OPTIONS":     {"_JAVA_OPTIONS": "-Dhttp.nonProxyHosts=c", "JAVA_OPTS": "-Dhttp.nonProxyHosts=d"},
	} {
		assert.Equal(t, want, JavaOwnNonProxyHosts(env), "%v", env)
	}
}
