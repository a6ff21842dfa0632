package tests

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/noproxy"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// javaTranslation renders proxykit.java.nonProxyHosts (_java.tpl) for one NO_PROXY.
func javaTranslation(t *testing.T, noProxy string) (string, []map[string]string) {
	t.Helper()
	values := fixture.ValuesYAML(t, map[string]any{"javaNonProxyHosts": noProxy})
	var got struct {
		NonProxyHosts string              `json:"nonProxyHosts"`
		Skipped       []map[string]string `json:"skipped"`
	}
	require.NoError(t, json.Unmarshal([]byte(fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(values)))["javaNonProxyHosts"]), &got))
	return got.NonProxyHosts, got.Skipped
}

// TestJavaNonProxyHosts: each kind of NO_PROXY entry, written out by hand in the
// JVM's syntax. Loopback always leads: Go never proxies it.
func TestJavaNonProxyHosts(t *testing.T) {
	// loopback leads; the bracketed IPv6 form comes last, as in NO_PROXY
	const loopback, v6 = "localhost|127.*", "|[::1]"
	cases := []struct {
		noProxy, want string
		skipped       []string
	}{
		{"example.com", loopback + "|example.com|*.example.com" + v6, nil},
		{".corp.example,*.other.example", loopback + "|*.corp.example|*.other.example" + v6, nil},
		{"cluster.local,cluster.local.,svc", loopback + "|cluster.local|*.cluster.local|cluster.local.|*.cluster.local.|svc|*.svc" + v6, nil},
		{"10.0.0.1,169.254.169.254", loopback + "|10.0.0.1|169.254.169.254" + v6, nil},
		{"fd00::1,[fd00::1],[fd00::2]", loopback + v6 + "|[fd00::1]|[fd00::2]", nil},
		{"10.0.0.0/8,172.16.0.0/16,192.168.1.0/24,10.1.2.3/32", loopback + "|10.*|172.16.*|192.168.1.*|10.1.2.3" + v6, nil},
		{"10.96.0.0/12", loopback + "|10.96.*|10.97.*|10.98.*|10.99.*|10.100.*|10.101.*|10.102.*|10.103.*|10.104.*|10.105.*|10.106.*|10.107.*|10.108.*|10.109.*|10.110.*|10.111.*" + v6, nil},
		{"192.168.1.64/30", loopback + "|192.168.1.64|192.168.1.65|192.168.1.66|192.168.1.67" + v6, nil},
		{"100.64.0.0/10", loopback + "|" + seq("100.%d.*", 64, 127) + v6, nil},
		{"127.0.0.1,localhost", loopback + "|127.0.0.1|*.localhost" + v6, nil},
		{"fd00:10:96::/112,registry.local:5000,[fd00::1]:5000", loopback + v6, []string{"fd00:10:96::/112", "registry.local:5000", "[fd00::1]:5000"}},
		{"*", loopback + "|*" + v6, nil},
	}
	for _, tc := range cases {
		t.Run(tc.noProxy, func(t *testing.T) {
			hosts, skipped := javaTranslation(t, tc.noProxy)
			assert.Equal(t, tc.want, hosts)
			var entries []string
			for _, s := range skipped {
				entries = append(entries, s["entry"])
				assert.NotEmpty(t, s["reason"])
			}
			assert.Equal(t, tc.skipped, entries)
		})
	}
}

func seq(format string, from, to int) string {
	var parts []string
	for i := from; i <= to; i++ {
		parts = append(parts, fmt.Sprintf(format, i))
	}
	return strings.Join(parts, "|")
}

// TestJavaDecidesAsGo: over the NO_PROXY the library composes, the JVM (the
// library's translation, matched as OpenJDK matches http.nonProxyHosts) decides
// every target as Go's httpproxy does, except for the entries the translation
// reports it cannot express, where the JVM goes through the proxy.
func TestJavaDecidesAsGo(t *testing.T) {
	values := fixture.PlainProxy + `
  nodeCIDRs: [192.168.10.0/26, "fd00:10:96::/112"]
proxy:
  http: http://proxy.corp:3128
  noProxy: [.corp.example, example.org, 203.0.113.7, "fd00::7", "registry.local:5000"]
`
	values = strings.Replace(values, "proxy:\n  http: http://proxy.corp:3128\n  https: http://proxy.corp:3129\n", "", 1)
	noProxy := fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(values)))["noProxy"]
	require.Contains(t, noProxy, "192.168.10.0/26")
	targets := []string{
		"localhost", "a.localhost", "127.0.0.2", "[::1]", "10.0.0.1",
		"kubernetes.default.svc", "web.ns.svc.cluster.local", "web.ns.svc.cluster.local.", "cluster.local", "svcx",
		"10.244.0.1", "10.244.255.255", "10.245.0.1", "10.243.255.255",
		"10.95.255.255", "10.96.0.1", "10.111.255.254", "10.112.0.0", "10.960.1.1",
		"192.168.10.0", "192.168.10.63", "192.168.10.64", "192.168.11.1",
		"169.254.169.254", "metadata.google.internal", "168.63.129.16", "169.254.170.23", "[fd00:ec2::254]", "[fd00:ec2::23]",
		"a.corp.example", "corp.example", "example.org", "www.example.org", "badexample.org",
		"203.0.113.7", "203.0.113.8", "[fd00::7]", "[fd00::8]",
		"registry.local:5000", "registry.local:5001",
		"[fd00:10:96::1]", "[fd00:10:97::1]", "example.com",
	}
	notExpressed := map[string]bool{"[fd00:10:96::1]": true, "registry.local:5000": true}
	skipped, err := noproxy.JavaNotExpressed(noProxy)
	require.NoError(t, err)
	require.Len(t, skipped, 2, "the IPv6 node CIDR and the entry with a port: %v", skipped)
	for _, target := range targets {
		goes, err := noproxy.Decide(noproxy.Go, "http://"+target, noproxy.NoProxy(noProxy))
		require.NoError(t, err)
		java, err := noproxy.Decide(noproxy.Java, "http://"+target, noproxy.NoProxy(noProxy))
		require.NoError(t, err)
		if notExpressed[target] {
			assert.True(t, goes.Direct, "%s: Go goes direct", target)
			assert.False(t, java.Direct, "%s: the JVM cannot express the entry and goes through the proxy", target)
			continue
		}
		assert.Equal(t, goes.Direct, java.Direct, "%s: Go (entry %q) and the JVM (pattern %q) decide alike", target, goes.Entry, java.Entry)
	}
}

// javaEnv is the JAVA_TOOL_OPTIONS the proxy tier renders, or "" without one.
func javaEnv(t *testing.T, env []corev1.EnvVar) string {
	t.Helper()
	for _, e := range env {
		if e.Name == "JAVA_TOOL_OPTIONS" {
			assert.Nil(t, e.ValueFrom, "JAVA_TOOL_OPTIONS is a plain value: it never holds a credential")
			return e.Value
		}
	}
	return ""
}

// plainWith is fixture.PlainProxy with one more line under proxy.
func plainWith(line string) string {
	return strings.Replace(fixture.PlainProxy, "proxy:\n", "proxy:\n  "+line+"\n", 1)
}

// TestRuntimes: proxy.runtimes resolved like the other proxy keys; java adds
// JAVA_TOOL_OPTIONS (host and port only, never a credential), node adds
// NODE_USE_ENV_PROXY and the ".name" forms Node.js needs in NO_PROXY.
func TestRuntimes(t *testing.T) {
	t.Run("java: flags for both proxies and the translated NO_PROXY", func(t *testing.T) {
		r := fixture.Render(t, fixture.Fixture, proxytest.Values(plainWith("runtimes: [java]")+"javaOptions: true\n"))
		env := r.Container(t, "Deployment/"+fixture.Release+"-app", "app").Env
		hosts, _ := javaTranslation(t, fixture.NoProxyPlain)
		assert.Equal(t, "-Dhttp.proxyHost=proxy.corp -Dhttp.proxyPort=3128 -Dhttps.proxyHost=proxy.corp -Dhttps.proxyPort=3129 -Dhttp.nonProxyHosts="+hosts, javaEnv(t, env))
		assert.Equal(t, fixture.ProxyEnvPlain, env[:6], "the proxy variables come first, unchanged")
		assert.Equal(t, javaEnv(t, env), fixture.Helpers(t, r)["javaOptions"], "proxykit.java.options gives the same flags")
	})
	t.Run("java without an HTTPS proxy: https:// goes direct, as in Go", func(t *testing.T) {
		values := strings.Replace(plainWith("runtimes: java"), "  https: http://proxy.corp:3129\n", "", 1)
		opts := javaEnv(t, fixture.Render(t, fixture.Fixture, proxytest.Values(values)).Container(t, "Deployment/"+fixture.Release+"-app", "app").Env)
		assert.True(t, strings.HasPrefix(opts, "-Dhttp.proxyHost=proxy.corp -Dhttp.proxyPort=3128 -Dhttp.nonProxyHosts="), opts)
		assert.NotContains(t, opts, "https.proxy")
	})
	t.Run("java behind an authenticated proxy: host and port, never the credentials", func(t *testing.T) {
		values := fixture.CredentialValues(t, map[string]any{"proxy": map[string]any{
			"http": fixture.CredHTTP, "https": strings.Replace(fixture.CredHTTPS, "https://", "http://", 1), "runtimes": []string{"java"}}})
		r := fixture.Render(t, fixture.Fixture, proxytest.Values(values))
		env := r.Container(t, "Deployment/"+fixture.Release+"-app", "app").Env
		opts := javaEnv(t, env)
		assert.True(t, strings.HasPrefix(opts, "-Dhttp.proxyHost=proxy.corp -Dhttp.proxyPort=3128 -Dhttps.proxyHost=proxy.corp -Dhttps.proxyPort=3129 "), opts)
		assert.NotContains(t, opts, fixture.LeakMarker)
		assert.NotContains(t, opts, "svc-user")
		assert.Equal(t, fixture.SecretEnv(fixture.Release+"-proxy-credentials", true), env[:6], "the URLs stay in the Secret")
	})
	t.Run("resolved like the other keys: global.proxy.runtimes reaches every chart", func(t *testing.T) {
		values := fixture.PlainProxy + "global: {proxy: {runtimes: [node]}}\n"
		r := fixture.Render(t, fixture.Fixture, proxytest.Values(values))
		env := r.Container(t, "Deployment/"+fixture.Release+"-app", "app").Env
		assert.Equal(t, fixture.Val("NODE_USE_ENV_PROXY", "1"), env[len(env)-1])
		assert.Empty(t, javaEnv(t, env))
		noProxy := fixture.Helpers(t, r)["noProxy"]
		assert.Equal(t, "localhost,.localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,.kubernetes,kubernetes.default,.kubernetes.default,kubernetes.default.svc,.kubernetes.default.svc,10.244.0.0/16,10.244.0.0-10.244.255.255,10.96.0.0/12,10.96.0.0-10.111.255.255,10.96.0.1,169.254.169.254,metadata.google.internal,.metadata.google.internal,168.63.129.16,169.254.170.23,fd00:ec2::254,fd00:ec2::23,[::1],[fd00:ec2::254],[fd00:ec2::23]", noProxy)
		for _, target := range []string{"http://web.ns.svc.cluster.local", "http://web.ns.svc", "http://a.localhost", "http://10.244.3.7:8080", "http://10.96.0.10"} {
			for _, c := range noproxy.NodeClients {
				d, err := noproxy.Decide(c, target, noproxy.NoProxy(noProxy))
				require.NoError(t, err)
				// fetch matches no CIDR and no range: pod and Service addresses go through the proxy
				assert.Equal(t, !strings.HasPrefix(target, "http://10.") || strings.HasPrefix(string(c), "node-http"), d.Direct, "%s to %s (entry %q)", c, target, d.Entry)
			}
		}
	})
	t.Run("proxy.runtimes wins over global.proxy.runtimes", func(t *testing.T) {
		r := fixture.Render(t, fixture.Fixture, proxytest.Values(plainWith("runtimes: [java]")+"global: {proxy: {runtimes: [node]}}\n"))
		env := r.Container(t, "Deployment/"+fixture.Release+"-app", "app").Env
		assert.NotEmpty(t, javaEnv(t, env))
		assert.NotContains(t, fixture.Helpers(t, r)["noProxy"], "10.244.0.0-10.244.255.255", "no range: the node runtime is not resolved")
	})
	t.Run("the proxy off: no runtime variable", func(t *testing.T) {
		r := fixture.Render(t, fixture.Fixture, proxytest.Values("proxy: {runtimes: [java, node]}\njavaOptions: true\n"))
		assert.Nil(t, r.Container(t, "Deployment/"+fixture.Release+"-app", "app").Env)
		assert.Empty(t, fixture.Helpers(t, r)["javaOptions"])
	})
	t.Run("proxykit.java.options without java among the runtimes", func(t *testing.T) {
		r := fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.PlainProxy+"javaOptions: true\n"))
		assert.True(t, strings.HasPrefix(fixture.Helpers(t, r)["javaOptions"], "-Dhttp.proxyHost=proxy.corp -Dhttp.proxyPort=3128 "))
		assert.Empty(t, javaEnv(t, r.Container(t, "Deployment/"+fixture.Release+"-app", "app").Env))
	})
}

// TestRuntimesBadInput: each failure names the key; none shows a credential.
func TestRuntimesBadInput(t *testing.T) {
	fixture.AssertFailsNaming(t, fixture.Fixture, plainWith("runtimes: [jvm]"),
		`proxy.runtimes: unknown runtime "jvm"; the known runtimes are: java, node`)
	fixture.AssertFailsNaming(t, fixture.Fixture, fixture.PlainProxy+"global: {proxy: {runtimes: {java: true}}}\n",
		"global.proxy.runtimes must be a list or a comma-separated string, got map")
	fixture.AssertFailsNaming(t, fixture.Fixture, "proxy: {existingSecret: corp-proxy, runtimes: [java]}\ncluster: {podCIDRs: [10.244.0.0/16], serviceCIDRs: [10.96.0.0/12]}\n",
		"proxy.runtimes has java", "only in proxy.existingSecret")
	err := fixture.RenderError(t, fixture.Fixture, proxytest.Values(fixture.CredentialValues(t, map[string]any{"proxy": map[string]any{
		"http": fixture.CredHTTP, "https": fixture.CredHTTPS, "runtimes": "java"}})))

	assert.Contains(t, err, "proxy.runtimes has java, but proxy.https is an https:// URL")
	assert.NotContains(t, err, fixture.LeakMarker)
	// proxykit.java.options called without java among the runtimes names itself
	fixture.AssertFailsNaming(t, fixture.Fixture, fixture.CredentialValues(t, map[string]any{"javaOptions": true}),
		"proxykit.java.options was called, but proxy.https is an https:// URL", "or do not call proxykit.java.options")
}
