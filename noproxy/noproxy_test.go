package noproxy

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The models' documented differences, one row each; the real programs confirm
// every model in tests/noproxy_clients_test.go.
func TestClientsDisagree(t *testing.T) {
	cases := []struct {
		noProxy, target string
		direct          map[Client]bool // missing client: goes through the proxy
	}{
		{"*", "http://example.com", map[Client]bool{Go: true, Curl: true, PythonRequests: true, PythonURLLib: true, Java: true, Node: true}},
		{"10.0.0.0/8", "http://10.1.2.3", map[Client]bool{Go: true, Curl: true, PythonRequests: true, Java: true}},
		{"fd00::/8", "http://[fd00::1]", map[Client]bool{Go: true}},
		{"fd00::1", "http://[fd00::1]", map[Client]bool{Go: true, Curl: true, Wget: true, PythonRequests: true, Java: true}},
		{"[fd00::1]", "http://[fd00::1]", map[Client]bool{PythonURLLib: true, Java: true, Node: true}},
		{"*.example.com", "http://a.example.com", map[Client]bool{Go: true, Java: true, Node: true}},
		{".example.com", "http://a.example.com", map[Client]bool{Go: true, Curl: true, Wget: true, PythonRequests: true, PythonURLLib: true, Java: true, Node: true}},
		{".example.com", "http://example.com", map[Client]bool{Curl: true, PythonRequests: true, PythonURLLib: true}},
		{"example.com", "http://badexample.com", map[Client]bool{PythonRequests: true}},
		{"cluster.local", "http://web.svc.cluster.local.", map[Client]bool{Curl: true}},                                                                  // hence cluster.local. in NO_PROXY too
		{"example.com", "http://a.example.com", map[Client]bool{Go: true, Curl: true, Wget: true, PythonRequests: true, PythonURLLib: true, Java: true}}, // hence .example.com with node
		{"10.96.0.0/12", "http://10.111.255.255", map[Client]bool{Go: true, Curl: true, PythonRequests: true, Java: true}},
		{"10.96.0.0/12", "http://10.112.0.1", nil}, // the JVM's patterns stop where the CIDR does
		{"registry.local:5000", "http://registry.local:5000", map[Client]bool{Go: true, PythonRequests: true, PythonURLLib: true, Node: true}},
		{"registry.local:5000", "http://registry.local:443", nil},
		{"", "http://localhost", map[Client]bool{Go: true, Java: true}},
	}
	for _, tc := range cases {
		for _, c := range Clients {
			d, err := Decide(c, tc.noProxy, tc.target)
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

func TestDecideEnvReadsTheClientsVariables(t *testing.T) {
	upper := map[string]string{"HTTP_PROXY": "http://p:3128", "NO_PROXY": "other.example"}
	for c, direct := range map[Client]bool{Go: false, Curl: true, Wget: true, PythonRequests: false, PythonURLLib: false} {
		d, err := DecideEnv(c, upper, "http://example.com")
		require.NoError(t, err)
		assert.Equal(t, direct, d.Direct, "%s with upper-case variables only", c)
	}
}

// The JVM decides on its flags, Node.js only with NODE_USE_ENV_PROXY=1.
func TestDecideEnvRuntimes(t *testing.T) {
	env := map[string]string{"HTTP_PROXY": "http://p:3128", "NO_PROXY": ".corp.example"}
	for c, want := range map[Client]string{Java: "(no -Dhttp.proxyHost in JAVA_TOOL_OPTIONS)", Node: "(NODE_USE_ENV_PROXY is not 1)"} {
		d, err := DecideEnv(c, env, "http://example.com")
		require.NoError(t, err)
		assert.Equal(t, Decision{Target: "http://example.com", Client: c, Direct: true, Entry: want}, d)
	}
	env["NODE_USE_ENV_PROXY"] = "1"
	env["http_proxy"] = "http://p:3128"
	env["JAVA_TOOL_OPTIONS"] = "-Dhttp.proxyHost=p -Dhttp.nonProxyHosts=*.corp.example -Xmx1g -Dhttp.nonProxyHosts=a.example"
	for _, c := range []Client{Java, Node} {
		d, err := DecideEnv(c, env, "http://a.corp.example")
		require.NoError(t, err)
		assert.Equal(t, c == Node, d.Direct, "%s: the JVM keeps the last -Dhttp.nonProxyHosts (entry %q)", c, d.Entry)
	}
}

func TestBadInput(t *testing.T) {
	_, err := Decide("lynx", "", "http://a")
	assert.ErrorContains(t, err, `unknown client "lynx" (known: go, curl, wget, python-requests, python-urllib, java, node)`)
	_, err = Decide(Go, "", "http://")
	assert.ErrorContains(t, err, "is not a URL or host")
}
