package noproxy

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keycloak decides as ProxyMappingsTest says Keycloak does (its own cases:
// one entry, two entries, an entry with regex characters), and as its source
// reads the variables: https_proxy before http_proxy for every scheme, lower
// case before upper, entries untrimmed and matched as quoted text.
func TestKeycloak(t *testing.T) {
	decide := func(noProxy, target string) bool {
		d, err := Decide(Keycloak, target, NoProxy(noProxy))
		require.NoError(t, err)
		return d.Direct
	}
	// the project's own cases
	assert.False(t, decide("login.facebook.com", "https://login.google.com"))
	assert.False(t, decide("login.facebook.com", "https://facebook.com"))
	assert.True(t, decide("login.facebook.com", "https://login.facebook.com"))
	assert.True(t, decide("login.facebook.com", "https://auth.login.facebook.com"))
	assert.True(t, decide("login.facebook.com,corp.com", "https://myapp.acme.corp.com"))
	assert.False(t, decide("[lj]ogin.facebook.com", "https://login.facebook.com"), "no regular expression in an entry")
	assert.False(t, decide("[lj]ogin.facebook.com", "https://jogin.facebook.com"))
	// what that means for the lists proxykit writes
	assert.False(t, decide(".corp.example", "https://adfs.corp.example"), "a leading dot matches no real host")
	assert.True(t, decide("corp.example", "https://adfs.corp.example"))
	assert.False(t, decide("localhost, corp.example", "https://adfs.corp.example"), "entries are not trimmed")
	assert.False(t, decide("10.0.0.0/8", "http://10.1.2.3"), "no CIDR")
	assert.True(t, decide("10.1.2.3", "http://10.1.2.3:8080"), "an address as text, any port")
	assert.False(t, decide("*", "https://example.com"))

	env := func(e map[string]string, target string) Decision {
		d, err := Decide(Keycloak, target, Env(e))
		require.NoError(t, err)
		return d
	}
	assert.True(t, env(map[string]string{}, "https://x.example").Direct, "no proxy variable")
	assert.False(t, env(map[string]string{"HTTPS_PROXY": "http://p:3128", "no_proxy": "x.example"}, "http://y.example").Direct, "https_proxy serves http:// too")
	assert.True(t, env(map[string]string{"http_proxy": "http://p:3128", "no_proxy": "x.example", "NO_PROXY": "other"}, "http://a.x.example").Direct, "no_proxy before NO_PROXY")
	assert.Equal(t, Variables{Proxy: []string{"https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY"}, NoProxy: []string{"no_proxy", "NO_PROXY"}}, Reads(Keycloak))
	assert.True(t, Keycloak.FromSource())
}

// Every client constant has one family, each list keeps the order explain
// prints, and a client is in the lists its family names.
func TestFamiliesRegistered(t *testing.T) {
	assert.Equal(t, []Client{Go, Curl, Wget, PythonRequests, PythonURLLib, PythonHTTPX, Ruby, Java, NodeHTTP, NodeFetch, Deno, Bun, PHPGuzzle, DotNet, GRPCCore, GRPCGo}, Clients)
	assert.Equal(t, []Client{NodeHTTP22, NodeFetch22, NodeHTTP, NodeFetch, NodeHTTP26, NodeFetch26}, NodeClients)
	assert.Equal(t, []Client{BusyBoxWget, Fabric8, GRPCGo170, PHPGuzzleWeb, Keycloak}, OtherClients)
	assert.Len(t, AllClients(), len(registry), "every registered client is listed once")
	for _, c := range AllClients() {
		f, ok := FamilyOf(c)
		require.True(t, ok, c)
		assert.Equal(t, c, f.Client)
	}
	assert.Panics(t, func() { register(Family{Client: Go, Match: plain(goDecide)}) }, "a client registers once")
}
