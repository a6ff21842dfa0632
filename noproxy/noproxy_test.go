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
		{"*", "http://example.com", map[Client]bool{Go: true, Curl: true, PythonRequests: true, PythonURLLib: true}},
		{"10.0.0.0/8", "http://10.1.2.3", map[Client]bool{Go: true, Curl: true, PythonRequests: true}},
		{"fd00::/8", "http://[fd00::1]", map[Client]bool{Go: true}},
		{"fd00::1", "http://[fd00::1]", map[Client]bool{Go: true, Curl: true, Wget: true, PythonRequests: true}},
		{"[fd00::1]", "http://[fd00::1]", map[Client]bool{PythonURLLib: true}},
		{"*.example.com", "http://a.example.com", map[Client]bool{Go: true}},
		{".example.com", "http://a.example.com", map[Client]bool{Go: true, Curl: true, Wget: true, PythonRequests: true, PythonURLLib: true}},
		{".example.com", "http://example.com", map[Client]bool{Curl: true, PythonRequests: true, PythonURLLib: true}},
		{"example.com", "http://badexample.com", map[Client]bool{PythonRequests: true}},
		{"cluster.local", "http://web.svc.cluster.local.", map[Client]bool{Curl: true}}, // hence cluster.local. in NO_PROXY too
		{"registry.local:5000", "http://registry.local:5000", map[Client]bool{Go: true, PythonRequests: true, PythonURLLib: true}},
		{"registry.local:5000", "http://registry.local:443", nil},
		{"", "http://localhost", map[Client]bool{Go: true}},
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

func TestBadInput(t *testing.T) {
	_, err := Decide("lynx", "", "http://a")
	assert.ErrorContains(t, err, `unknown client "lynx" (known: go, curl, wget, python-requests, python-urllib)`)
	_, err = Decide(Go, "", "http://")
	assert.ErrorContains(t, err, "is not a URL or host")
}
