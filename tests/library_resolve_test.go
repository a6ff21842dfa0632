package tests

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

func TestProxyNeedsAPodOrServiceNetwork(t *testing.T) {
	const on = `proxy: {http: "http://proxy:3128"}` + "\n"
	cases := []struct {
		name, values string
		ok           bool
	}{
		{"proxy off", `cluster: {}`, true},
		{"no network known", on, false},
		{"only the node network known", on + `cluster: {nodeCIDRs: [192.168.0.0/24]}`, false},
		{"only the API server known", on + `cluster: {apiServer: 10.96.0.1}`, false},
		{"pod CIDRs and the API server", on + `cluster: {podCIDRs: [10.244.0.0/16], apiServer: 10.96.0.1}`, true},
		{"service CIDRs", on + `cluster: {serviceCIDRs: "10.96.0.0/12"}`, true},
		{"a CIDR among noProxy entries", `proxy: {http: "http://proxy:3128", noProxy: "a.example,10.0.0.0/8"}`, true},
		{"a CIDR in cluster.proxy.noProxy, as a cluster-values Secret carries it", `cluster: {proxy: {https: "http://p:1", noProxy: "10.0.0.0/8"}}`, true},
		{"the explicit opt-out", on + `cluster: {requireNetworks: false}`, true},
		{"existingSecret alone: NO_PROXY comes from that Secret", `proxy: {existingSecret: corp-proxy}`, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.ok {
				fixture.Render(t, fixture.Fixture, tc.values)
				return
			}
			fixture.AssertFailsNaming(t, fixture.Fixture, tc.values, "cluster.podCIDRs", "cluster.serviceCIDRs", "cluster.requireNetworks: false", "proxy.http")
		})
	}
	// pod CIDRs alone leave the API server's ClusterIP to the proxy
	t.Run("pod CIDRs without the service network or the API server", func(t *testing.T) {
		values := on + `cluster: {podCIDRs: [10.244.0.0/16]}`
		fixture.AssertFailsNaming(t, fixture.Fixture, values, "would not cover the API server", "cluster.serviceCIDRs", "cluster.apiServer", "cluster.requireNetworks: false")
		fixture.Render(t, fixture.Fixture, values+"\ncluster: {podCIDRs: [10.244.0.0/16], requireNetworks: false}")
	})
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
			h := fixture.Helpers(t, fixture.Render(t, fixture.Fixture, tc.values))
			var config struct{ HTTP, HTTPS, NoProxy string }
			require.NoError(t, fixture.YAMLUnmarshal(h["config"], &config))
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

// A context built with Helm's merge idiom after the root has rendered renders its
// own values, and the root keeps its own: the resolved settings (and generateEnv's
// cached tiers) are kept per Values, not once per render.
func TestMergeIdiomRendersItsOwnValues(t *testing.T) {
	m := fixture.Render(t, fixture.Fixture, fixture.PlainProxy+`
mergeIdiom:
  proxy: {http: "http://other.corp:8080"}
  cluster: {podCIDRs: [10.1.0.0/16], serviceCIDRs: [10.2.0.0/16], metadataEndpoints: false}
`)
	cm := proxytest.Get[corev1.ConfigMap](t, m, fixture.Release+"-merge-idiom")
	assert.Equal(t, fixture.NoProxyPlain, cm.Data["root"])
	assert.Equal(t, fixture.NoProxyPlain, cm.Data["rootAgain"])
	// the merge idiom copies the root's values under the new ones: the new CIDRs replace the root's lists
	assert.Equal(t, "localhost,127.0.0.1,::1,[::1],cluster.local,cluster.local.,svc,10.1.0.0/16,10.2.0.0/16,10.96.0.1", cm.Data["other"])
	assert.Contains(t, cm.Data["otherEnv"], `"http://other.corp:8080"`)
	assert.NotContains(t, cm.Data["otherEnv"], "proxy.corp:3128")
	assert.Contains(t, cm.Data["rootEnv"], `"http://proxy.corp:3128"`)
	assert.False(t, strings.Contains(cm.Data["rootEnv"], "other.corp"))
}
