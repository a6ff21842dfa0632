package tests

import (
	"net/url"
	"strings"
	"testing"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/http/httpproxy"
	corev1 "k8s.io/api/core/v1"
)

// helpers decodes the fixture's helpers Secret, which holds each helper's raw output.
func helpers(t testing.TB, r *proxytest.Manifests) map[string]string {
	t.Helper()
	return proxytest.Get[corev1.Secret](t, r, releaseName+"-helpers").StringData
}

func TestNoProxyComposition(t *testing.T) {
	cases := []struct {
		name   string
		values string
		want   string
	}{
		{
			name:   "proxy off: no NO_PROXY",
			values: `cluster: {podCIDRs: [10.244.0.0/16]}`,
			want:   "",
		},
		{
			name:   "fixed order: loopback, domain, svc, pods, services, API server, metadata",
			values: plainProxy,
			want:   noProxyPlain,
		},
		{
			name: "dual stack CIDRs as comma strings, custom domain given with a trailing dot",
			values: `
proxy: {https: "http://proxy:3128"}
cluster:
  domain: k8s.internal.
  podCIDRs: "10.244.0.0/16, fd00:10:244::/56"
  serviceCIDRs: "10.96.0.0/12,fd00:10:96::/112"
  apiServer: "[fd00:10:96::1]"
`,
			want: "localhost,127.0.0.1,::1,[::1],k8s.internal,k8s.internal.,svc,10.244.0.0/16,fd00:10:244::/56,10.96.0.0/12,fd00:10:96::/112,fd00:10:96::1,[fd00:10:96::1],169.254.169.254,metadata.google.internal,168.63.129.16",
		},
		{
			name: "metadata endpoints switched off; API server given as a name",
			values: `
proxy: {http: "http://proxy:3128"}
cluster: {metadataEndpoints: false, apiServer: api.mgmt.example.com, requireNetworks: false}
`,
			want: "localhost,127.0.0.1,::1,[::1],cluster.local,cluster.local.,svc,api.mgmt.example.com",
		},
		{
			name: "installation entries: trimmed, wildcards as leading dots, first occurrence kept",
			values: `
proxy:
  http: http://proxy:3128
  noProxy: " .corp.example , *.corp.example,registry.local,,10.0.0.0/8, registry.local ,svc,localhost"
cluster: {metadataEndpoints: false}
`,
			want: "localhost,127.0.0.1,::1,[::1],cluster.local,cluster.local.,svc,.corp.example,registry.local,10.0.0.0/8",
		},
		{
			name: "installation entries as a list",
			values: `
proxy:
  http: http://proxy:3128
  noProxy: ["*.corp.example", " 192.168.0.0/16 "]
cluster: {metadataEndpoints: false}
`,
			want: "localhost,127.0.0.1,::1,[::1],cluster.local,cluster.local.,svc,.corp.example,192.168.0.0/16",
		},
		{
			name: "node CIDRs after the service CIDRs, before the API server; metadata of AWS, GCP and Azure",
			values: `
proxy: {http: "http://proxy:3128"}
cluster: {podCIDRs: [10.244.0.0/16], serviceCIDRs: [10.96.0.0/12], nodeCIDRs: "192.168.10.0/24, fd00:192::/64", apiServer: 10.96.0.1}
`,
			want: "localhost,127.0.0.1,::1,[::1],cluster.local,cluster.local.,svc,10.244.0.0/16,10.96.0.0/12,192.168.10.0/24,fd00:192::/64,10.96.0.1,169.254.169.254,metadata.google.internal,168.63.129.16",
		},
		{
			name: "IPv6 addresses bare and bracketed, wherever they come from; with a port as written",
			values: `
proxy: {http: "http://proxy:3128", noProxy: ["fd00:1::53", "[FD00:1::54]", "[fd00:1::55]:5000", "::1"]}
cluster: {serviceCIDRs: ["fd00:10:96::/112"], apiServer: "[fd00:10:96::1]", metadataEndpoints: false}
`,
			want: "localhost,127.0.0.1,::1,[::1],cluster.local,cluster.local.,svc,fd00:10:96::/112,fd00:10:96::1,[fd00:10:96::1],fd00:1::53,[fd00:1::53],FD00:1::54,[FD00:1::54],[fd00:1::55]:5000",
		},
		{
			name: "list items holding commas are split like the string form",
			values: `
proxy: {http: "http://proxy:3128", noProxy: ["a.example,b.example", " c.example , *.d.example", "10.0.0.0/8,"]}
cluster: {metadataEndpoints: false}
`,
			want: "localhost,127.0.0.1,::1,[::1],cluster.local,cluster.local.,svc,a.example,b.example,c.example,.d.example,10.0.0.0/8",
		},
		{
			name: "host names with ports, underscores and trailing dots are kept as written",
			values: `
proxy: {http: "http://proxy:3128", noProxy: "registry.local:5000,my_host.corp,svc.corp.example.,10.1.2.3:8443"}
cluster: {serviceCIDRs: [10.96.0.0/12], metadataEndpoints: false}
`,
			want: "localhost,127.0.0.1,::1,[::1],cluster.local,cluster.local.,svc,10.96.0.0/12,registry.local:5000,my_host.corp,svc.corp.example.,10.1.2.3:8443",
		},
		{
			name: "a CIDR listed twice across pods and services appears once",
			values: `
proxy: {http: "http://proxy:3128"}
cluster: {podCIDRs: [10.0.0.0/8], serviceCIDRs: [10.0.0.0/8], metadataEndpoints: false}
`,
			want: "localhost,127.0.0.1,::1,[::1],cluster.local,cluster.local.,svc,10.0.0.0/8",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRenderSDK(t, fixtureChart, tc.values)
			h := helpers(t, r)
			assert.Equal(t, tc.want, h["noProxy"])
			assert.Equal(t, tc.want, proxytest.Get[corev1.ConfigMap](t, r, releaseName+"-no-proxy").Data["NO_PROXY"])
			assert.NotContains(t, h["noProxy"], " ", "NO_PROXY has no spaces")
		})
	}
}

func TestProxyResolutionPrecedence(t *testing.T) {
	cases := []struct {
		name                      string
		values                    string
		http, https, noProxyEntry string
		enabled                   bool
	}{
		{
			name:   "nothing set: off",
			values: ``,
		},
		{
			name:   "global.proxy alone turns it on",
			values: "global: {proxy: {http: \"http://g:1\", https: \"http://g:2\", noProxy: g.example}}\ncluster: {requireNetworks: false}",
			http:   "http://g:1", https: "http://g:2", noProxyEntry: "g.example", enabled: true,
		},
		{
			name: "cluster.proxy beats global.proxy per key",
			values: `
global: {proxy: {http: "http://g:1", https: "http://g:2", noProxy: g.example}}
cluster: {proxy: {https: "http://c:2"}, requireNetworks: false}
`,
			http: "http://g:1", https: "http://c:2", noProxyEntry: "g.example", enabled: true,
		},
		{
			name: "proxy beats cluster.proxy; an empty string counts as unset",
			values: `
global: {proxy: {http: "http://g:1", https: "http://g:2", noProxy: g.example}}
cluster: {proxy: {http: "http://c:1", https: "http://c:2", noProxy: c.example}, requireNetworks: false}
proxy: {http: "", https: "http://p:2", noProxy: p.example}
`,
			http: "http://c:1", https: "http://p:2", noProxyEntry: "p.example", enabled: true,
		},
		{
			name: "an empty noProxy list counts as unset",
			values: `
cluster: {proxy: {http: "http://c:1", noProxy: "c.example"}, requireNetworks: false}
proxy: {noProxy: []}
`,
			http: "http://c:1", noProxyEntry: "c.example", enabled: true,
		},
		{
			name:   "noProxy alone does not turn the proxy on",
			values: `proxy: {noProxy: "a.example"}`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := helpers(t, mustRenderSDK(t, fixtureChart, tc.values))
			var config struct{ HTTP, HTTPS, NoProxy string }
			require.NoError(t, yamlUnmarshal(h["config"], &config))
			assert.Equal(t, tc.http, config.HTTP)
			assert.Equal(t, tc.https, config.HTTPS)
			assert.Equal(t, h["noProxy"], config.NoProxy, "proxy.config carries the full NO_PROXY")
			if tc.enabled {
				assert.Equal(t, "true", h["enabled"])
				assert.Contains(t, strings.Split(config.NoProxy, ","), tc.noProxyEntry)
			} else {
				assert.Equal(t, "", h["enabled"])
				assert.Equal(t, "", config.NoProxy)
				assert.Equal(t, "[]", h["env"], "no proxy variable when the proxy is off")
				assert.Equal(t, "", h["dropIn"])
				assert.Equal(t, "{}", h["certManager"])
			}
		})
	}
}

// TestNoProxyCoverage judges the rendered NO_PROXY with Go's own proxy selection.
func TestNoProxyCoverage(t *testing.T) {
	values := `
proxy:
  http: http://proxy.corp:3128
  https: http://proxy.corp:3128
  noProxy: "*.corp.example,registry.internal:5000"
cluster:
  podCIDRs: [10.244.0.0/16, "fd00:10:244::/56"]
  serviceCIDRs: [10.96.0.0/12]
  apiServer: 10.96.0.1
`
	noProxy := helpers(t, mustRenderSDK(t, fixtureChart, values))["noProxy"]

	bypass := []string{
		"http://x.svc.cluster.local.", // trailing dot, as resolv.conf search paths produce
		"http://prometheus.monitoring.svc.cluster.local:9090",
		"https://kubernetes.default.svc",          // short service name
		"http://10.244.3.7:9100/metrics",          // pod IP, scraped by Prometheus
		"https://10.96.0.1:443",                   // API server ClusterIP
		"http://10.100.5.5",                       // another service IP
		"http://[fd00:10:244::1234]:8080",         // IPv6 pod
		"http://169.254.169.254/latest/meta-data", // cloud metadata
		"http://metadata.google.internal/computeMetadata/v1",
		"http://localhost:8080", "http://127.0.0.1", "http://[::1]:80",
		"https://git.corp.example",           // from *.corp.example
		"https://registry.internal:5000/v2/", // host:port entry, on that port
	}
	proxied := []string{
		"https://api.github.com",
		"http://example.com",
		"http://10.245.0.1",                  // just outside the pod CIDR
		"http://10.112.0.1",                  // just outside the service CIDR
		"http://[fd00:10:245::1]",            // outside the IPv6 pod CIDR
		"https://cluster.local.evil.example", // the cluster domain only as a suffix label
		"https://corp.example.com",
		"https://registry.internal:443", // the bypass names port 5000 only
	}
	assertProxySelection(t, noProxy, bypass, proxied)

}

// assertProxySelection judges a NO_PROXY with Go's own proxy selection: every
// bypass URL must go direct, every proxied URL through the proxy.
func assertProxySelection(t *testing.T, noProxy string, bypass, proxied []string) {
	t.Helper()
	proxyFor := (&httpproxy.Config{HTTPProxy: "http://proxy.test:3128", HTTPSProxy: "http://proxy.test:3128", NoProxy: noProxy}).ProxyFunc()
	for _, raw := range bypass {
		u, err := url.Parse(raw)
		require.NoError(t, err)
		p, err := proxyFor(u)
		require.NoError(t, err)
		assert.Nil(t, p, "%s must bypass the proxy with NO_PROXY=%s", raw, noProxy)
	}
	for _, raw := range proxied {
		u, err := url.Parse(raw)
		require.NoError(t, err)
		p, err := proxyFor(u)
		require.NoError(t, err)
		if assert.NotNil(t, p, "%s must go through the proxy with NO_PROXY=%s", raw, noProxy) {
			assert.Equal(t, "proxy.test:3128", p.Host)
		}
	}
}
