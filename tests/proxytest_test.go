package tests

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// TestEveryChartIsProxyReady is proxytest on this repository: every chart with
// every provider's values, checked by the same rules chart authors run.
func TestEveryChartIsProxyReady(t *testing.T) {
	charts := []string{fixture.ConsumerApp, fixture.ChartOperator, fixture.ProxyPolicies, fixture.ClusterProxy, fixture.Fixture}
	for _, p := range fixture.Providers {
		values, err := os.ReadFile(fixture.Path("examples", "providers", p.File))
		require.NoError(t, err)
		for _, chart := range charts {
			t.Run(p.File+"/"+filepath.Base(chart), func(t *testing.T) {
				m := proxytest.Render(t, chart, proxytest.Values(string(values)), proxytest.Values("native: {enabled: true, secretNamespaces: [apps]}"), proxytest.Release(fixture.Release, fixture.Namespace), proxytest.EmbeddedLibrary())
				require.NotEmpty(t, m.Objects)
				// the containers that leave the proxy out on purpose say so with proxykit.io/skip-containers
				var opts []proxytest.CheckOption
				if chart == fixture.ProxyPolicies || chart == fixture.ClusterProxy {
					opts = append(opts, proxytest.NoWorkloads()) // policies and per-cluster Secrets
				}
				proxytest.AssertProxyReady(t, m, opts...)
			})
		}
	}
}

// TestProxytestFindsWhatTheLibraryPrevents: the same renders, broken on
// purpose, give the findings chart authors would see.
func TestProxytestFindsWhatTheLibraryPrevents(t *testing.T) {
	values := `
proxy: {http: "http://proxy.corp:3128", https: "http://proxy.corp:3128"}
cluster: {podCIDRs: [10.244.0.0/16], serviceCIDRs: [10.96.0.0/12], apiServer: 10.96.0.1}
`
	m := proxytest.Render(t, fixture.ConsumerApp, proxytest.Values(values), proxytest.EmbeddedLibrary())
	// a cluster bigger than the values said: a node network the chart never heard of
	cluster := m.Cluster
	cluster.NodeCIDRs = []string{"192.168.0.0/24"}
	gaps := 0
	for _, f := range proxytest.Check(m, proxytest.WithCluster(cluster)) {
		if f.Rule == proxytest.RuleNoProxyGap {
			gaps++
			assert.Contains(t, f.Message, "http://192.168.0.0:8080, http://192.168.0.128:8080, http://192.168.0.255:8080 through the proxy",
				"first, middle and last node address")
		}
	}
	assert.Equal(t, 4, gaps, "one finding in each of the 4 proxied containers")
}
