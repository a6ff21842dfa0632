package tests

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

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
				fixture.Render(t, fixture.Fixture, proxytest.Values(tc.values))
				return
			}
			fixture.AssertFailsNaming(t, fixture.Fixture, tc.values, "cluster.podCIDRs", "cluster.serviceCIDRs", "cluster.requireNetworks: false", "proxy.http")
		})
	}
	// pod CIDRs alone leave the API server's ClusterIP to the proxy
	t.Run("pod CIDRs without the service network or the API server", func(t *testing.T) {
		values := on + `cluster: {podCIDRs: [10.244.0.0/16]}`
		fixture.AssertFailsNaming(t, fixture.Fixture, values, "would not cover the API server", "cluster.serviceCIDRs", "cluster.apiServer", "cluster.requireNetworks: false")
		fixture.Render(t, fixture.Fixture, proxytest.Values(values+"\ncluster: {podCIDRs: [10.244.0.0/16], requireNetworks: false}"))
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
			h := fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(tc.values)))
			var config struct{ HTTP, HTTPS, NoProxy string }
			require.NoError(t, yaml.Unmarshal([]byte(h["config"]), &config))
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
	m := fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.PlainProxy+`
mergeIdiom:
  proxy: {http: "http://other.corp:8080"}
  cluster: {podCIDRs: [10.1.0.0/16], serviceCIDRs: [10.2.0.0/16], metadataEndpoints: false}
`))

	cm := proxytest.Get[corev1.ConfigMap](t, m, fixture.Release+"-merge-idiom")
	assert.Equal(t, fixture.NoProxyPlain, cm.Data["root"])
	assert.Equal(t, fixture.NoProxyPlain, cm.Data["rootAgain"])
	// the merge idiom copies the root's values under the new ones: the new CIDRs replace the root's lists
	assert.Equal(t, "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,10.1.0.0/16,10.2.0.0/16,10.96.0.1,[::1]", cm.Data["other"])
	assert.Contains(t, cm.Data["otherEnv"], `"http://other.corp:8080"`)
	assert.NotContains(t, cm.Data["otherEnv"], "proxy.corp:3128")
	assert.Contains(t, cm.Data["rootEnv"], `"http://proxy.corp:3128"`)
	assert.False(t, strings.Contains(cm.Data["rootEnv"], "other.corp"))
}

// The kernel refuses to start a process when one "NAME=value" environment string
// is 128 KiB or longer with its NUL (MAX_ARG_STRLEN, execve's E2BIG): the
// container, or containerd and the kubelet under the drop-in, would not start.
// The library refuses such a render naming the keys; what it renders starts
// (issue 37).
func TestEnvFitsTheKernelsLimit(t *testing.T) {
	const limit = 131072
	on := "proxy: {http: http://proxy:3128, https: http://proxy:3128, runtimes: %s, noProxy: %q}\ncluster: {serviceCIDRs: [10.96.0.0/12]}\n"
	cidrs := make([]string, 130)
	for i := range cidrs {
		cidrs[i] = fmt.Sprintf("%d.0.0.0/9", i+1)
	}
	for _, c := range []struct {
		name, runtimes, noProxy string
		wants                   []string
	}{
		{"7,000 names", "[]", fixture.NoProxyEntries(7000), []string{"proxy.noProxy: NO_PROXY would be"}},
		{"3,600 names with java", "[java]", fixture.NoProxyEntries(3600), []string{"proxy.noProxy and proxy.runtimes: JAVA_TOOL_OPTIONS would be", "http.nonProxyHosts"}},
		{"130 /9 CIDRs with java", "[java]", strings.Join(cidrs, ","), []string{"proxy.noProxy and proxy.runtimes: JAVA_TOOL_OPTIONS would be"}},
		{"3,500 names with node", "[node]", fixture.NoProxyEntries(3500), []string{"proxy.noProxy and proxy.runtimes: NO_PROXY would be", "as name and .name"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fixture.AssertFailsNaming(t, fixture.Fixture, fmt.Sprintf(on, c.runtimes, c.noProxy), append(c.wants, "MAX_ARG_STRLEN", fmt.Sprint(limit))...)
		})
	}

	// every path that writes the variables: the policies, the nodes' drop-in
	for _, chart := range []struct{ dir, extra string }{
		{fixture.Path("charts", "proxy-policies"), "kyverno: {policyKind: ClusterPolicy}\n"},
		{fixture.Path("charts", "cluster-proxy"), "clusterName: wc1\n"},
	} {
		t.Run("7,000 names in "+filepath.Base(chart.dir), func(t *testing.T) {
			fixture.AssertFailsNaming(t, chart.dir, chart.extra+fmt.Sprintf(on, "[]", fixture.NoProxyEntries(7000)), "proxy.noProxy: NO_PROXY would be", "MAX_ARG_STRLEN")
		})
	}

	t.Run("a NO_PROXY just under the limit renders, and a process starts with it", func(t *testing.T) {
		m := fixture.Render(t, fixture.Fixture, proxytest.Values(fmt.Sprintf(on, "[]", fixture.NoProxyEntries(6500))))
		var noProxy string
		for _, c := range m.Containers() {
			if v := m.Environment(c)["NO_PROXY"]; len(v) > len(noProxy) {
				noProxy = v
			}
		}
		require.Greater(t, len(noProxy), 100_000)
		require.NoError(t, exec.Command("/bin/true").Run())
		start := func(value string) error {
			cmd := exec.Command("/bin/true")
			cmd.Env = []string{"NO_PROXY=" + value}
			return cmd.Run()
		}
		assert.NoError(t, start(noProxy), "the rendered NO_PROXY")
		// the limit is the kernel's: a string of limit bytes with its NUL starts, one more fails
		assert.NoError(t, start(strings.Repeat("a", limit-len("NO_PROXY=")-1)))
		assert.ErrorIs(t, start(strings.Repeat("a", limit-len("NO_PROXY="))), syscall.E2BIG)
	})
}
