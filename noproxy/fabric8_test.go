package noproxy

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fabric8 has no runtime this project's tests run: the model is held to the
// cases of fabric8's own HttpClientUtilsTest (facts, not its code), each
// NO_PROXY array written as the comma-separated variable.
func TestFabric8FromItsProjectsCases(t *testing.T) {
	decide := func(noProxy []string, master string) Decision {
		t.Helper()
		env := map[string]string{"HTTP_PROXY": "http://proxy.url:8080", "HTTPS_PROXY": "http://proxy.url:8080"}
		if noProxy != nil {
			env["NO_PROXY"] = strings.Join(noProxy, ",")
		}
		d, err := Decide(Fabric8, master, Env(env))
		require.NoError(t, err)
		return d
	}
	// masterUrlMatchesNoProxy (a master URL without a scheme is https://, as Config completes it)
	for _, c := range []struct {
		master  string
		noProxy []string
	}{
		{"http://192.168.1.100:6443", []string{"192.168.1.0/24"}},
		{"https://master.example.com", []string{"master.example.com"}},
		{"https://master.example.com", []string{".example.com"}},
		{"https://master.example.com", []string{"one.com", "other.com", ".com"}},
		{"https://192.168.1.110", []string{"192.168.1.110"}},
		{"https://192.168.1.110", []string{"http://192.168.1.110"}},
		{"https://192.168.1.110", []string{"https://192.168.1.110"}},
		{"https://192.168.1.110", []string{"192.168.1.0/24"}},
		{"https://192.168.1.110", []string{"http://192.168.1.0/24"}},
	} {
		d := decide(c.noProxy, c.master)
		assert.True(t, d.Direct, "%s with %v", c.master, c.noProxy)
		assert.Empty(t, d.Refused)
	}
	// masterUrlDoesNotMatchNoProxy
	for _, c := range []struct {
		master  string
		noProxy []string
	}{
		{"http://192.168.2.100:6443", []string{"192.168.1.0/24"}},
		{"https://master.example.com", nil},
		{"https://master.example.com", []string{}},
		{"https://master.example.com", []string{"master1.example.com"}},
		{"https://master.example.com", []string{".example1.com"}},
		{"https://master.example.com", []string{"one.com", "other.com", "master.example.", ".co"}},
		{"https://192.168.1.110", []string{"192.168.1.111"}},
		{"https://192.168.1.110", []string{"http://192.168.1.111"}},
		{"https://192.168.1.110", []string{"https://192.168.1.111"}},
		{"https://192.168.1.110", []string{"192.168.10.0/24"}},
		{"https://192.168.1.110", []string{"http://192.168.1.0/32"}},
	} {
		d := decide(c.noProxy, c.master)
		assert.False(t, d.Direct, "%s with %v", c.master, c.noProxy)
		assert.Empty(t, d.Refused)
	}
	// invalidNoProxyUrlThrowsException
	for _, entry := range []string{"*.my.domain.com", "!!!.com", "()-?¿?", "http://proxy url"} {
		d := decide([]string{entry}, "https://master.url")
		assert.Contains(t, d.Refused, "fabric8 throws MalformedURLException", entry)
		assert.False(t, d.Direct)
	}
	// whenHttpsProxyUrlWithNoPort_shouldThrowException
	d, err := Decide(Fabric8, "http://localhost", Env(map[string]string{"HTTP_PROXY": "http://192.168.0.1"}))
	require.NoError(t, err)
	assert.Contains(t, d.Refused, "Proxy port is required!")

	// what the source says beyond its tests: an entry it refuses after a match is never read;
	// names are a plain suffix; an address entry matches the address a name resolves to
	list := "localhost,127.0.0.1,::1,svc,10.96.0.0/12,[::1]"
	assert.True(t, decide([]string{list}, "https://kubernetes.default.svc").Direct, "svc matches before [::1] is read")
	assert.NotEmpty(t, decide([]string{list}, "https://api.corp.example").Refused, "no match before [::1]: refused")
	assert.True(t, decide([]string{"example.com"}, "https://badexample.com").Direct, "no dot boundary")
	resolved, err := Decide(Fabric8, "https://kubernetes.default:443", NoProxy("10.96.0.0/12"), ResolvedTo(netip.MustParseAddr("10.96.0.1")))
	require.NoError(t, err)
	assert.True(t, resolved.Direct, "Java looks the name up")
	assert.True(t, decide([]string{"a", "", "b"}, "https://anything.example").Direct, "an inner empty entry matches every host")
}
