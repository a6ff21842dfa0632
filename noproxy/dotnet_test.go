package noproxy

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// .NET has no runtime this project can reach: the model is held to the cases
// of dotnet/runtime's own HttpEnvironmentProxyTest (facts, not its code).
func TestDotNetFromItsProjectsCases(t *testing.T) {
	decide := func(env map[string]string, target string) Decision {
		t.Helper()
		d, err := Decide(DotNet, target, Env(env))
		require.NoError(t, err)
		return d
	}
	// HttpProxy_Exceptions_Match: an empty entry and blanks are dropped; ".x" covers x itself
	env := map[string]string{"no_proxy": ".test.com,, foo.com", "all_proxy": "http://foo:bar@1.1.1.1:3000"}
	for target, direct := range map[string]bool{"http://foo.com": true, "https://foo.com": true, "http://test.com": true, "http://1test.com": false, "http://www.test.com": true} {
		assert.Equal(t, direct, decide(env, target).Direct, target)
	}
	// HttpProxy_TryCreate_CaseInsensitiveVariables: either case of either variable
	for _, proxyVar := range []string{"http_proxy", "HTTP_PROXY"} {
		for _, noProxyVar := range []string{"no_proxy", "NO_PROXY"} {
			env := map[string]string{proxyVar: "http://foo:bar@1.1.1.1:3000", noProxyVar: ".test.com, foo.com"}
			assert.True(t, decide(env, "http://test.com").Direct, "%s, %s", proxyVar, noProxyVar)
			assert.False(t, decide(env, "http://atest.com").Direct, "%s, %s", proxyVar, noProxyVar)
		}
	}
	// HttpProxy_TryCreateAndPossibleCgi: under CGI HTTP_PROXY is not read, http_proxy is
	cgi := map[string]string{"GATEWAY_INTERFACE": "CGI/1.1"}
	assert.True(t, decide(merge(cgi, map[string]string{"HTTP_PROXY": "http://foo:bar@1.1.1.1:3000"}), "http://test.com").Direct)
	assert.False(t, decide(merge(cgi, map[string]string{"http_proxy": "http://foo:bar@1.1.1.1:3000"}), "http://test.com").Direct)
	// HttpProxy_EnvironmentProxy_Loaded: a URL of another scheme is not read ("socks5://")
	assert.True(t, decide(map[string]string{"http_proxy": "socks5://1.1.1.4:3004"}, "http://test.com").Direct)
	assert.False(t, decide(map[string]string{"http_proxy": "socks5://1.1.1.4:3004", "all_proxy": "http://1.1.1.1:3000"}, "http://test.com").Direct)

	// what the source says beyond its tests: a bare entry is exact, no CIDR, IPv6 in brackets
	for _, c := range []struct {
		noProxy, target string
		direct          bool
	}{
		{"svc", "http://web.shop.svc", false},
		{".svc", "http://web.shop.svc", true},
		{"10.96.0.0/12", "http://10.96.0.1", false},
		{"10.96.0.1", "http://10.96.0.1", true},
		{"fd00::1", "http://[fd00::1]", false},
		{"[fd00::1]", "http://[fd00::1]", true},
		{".cluster.local", "http://web.shop.svc.cluster.local.", false},
		{".cluster.local.", "http://web.shop.svc.cluster.local.", true},
		{"Kubernetes.Default", "https://kubernetes.default", true},
	} {
		assert.Equal(t, c.direct, decide(map[string]string{"http_proxy": "http://p:3128", "https_proxy": "http://p:3128", "no_proxy": c.noProxy}, c.target).Direct, "%s with %s", c.target, c.noProxy)
	}
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
