// A chart author's proxy test: render the chart and check every container with
// proxytest. The cluster facts come from the render itself (m.Cluster), so the
// networks in this chart's values.yaml are the ones judged.
package consumerapp

import (
	"path/filepath"
	"testing"

	"github.com/proxykit/proxykit/proxytest"
)

func TestEveryContainerGetsTheProxy(t *testing.T) {
	m := proxytest.Render(t, ".", proxytest.Values(`proxy: {http: http://proxy.corp.example:3128, https: http://proxy.corp.example:3128}`))
	proxytest.AssertProxyReady(t, m)
}

// Every values file the chart's CI installs with (chart-testing's ci/*-values.yaml).
func TestEveryCIValuesFile(t *testing.T) {
	files, _ := filepath.Glob("ci/*-values.yaml")
	if len(files) == 0 {
		t.Fatal("no ci/*-values.yaml")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			m := proxytest.Render(t, ".", proxytest.ValuesFile(file))
			proxytest.AssertProxyReady(t, m)
		})
	}
}

// m.Cluster is what the chart's own values say, so the tests above judge the chart
// against itself. To judge it against a cluster it ships to, pass that cluster's
// facts, read on their own (`proxykit discover` writes them as a values file).
func TestAgainstTheProductionCluster(t *testing.T) {
	production := proxytest.Cluster{Domain: "cluster.local", PodCIDRs: []string{"10.244.0.0/16"},
		ServiceCIDRs: []string{"10.96.0.0/12"}, APIServer: "10.96.0.1", Metadata: true}
	m := proxytest.Render(t, ".", proxytest.Values(`proxy: {http: http://proxy.corp.example:3128, https: http://proxy.corp.example:3128}`))
	proxytest.AssertProxyReady(t, m, proxytest.WithCluster(production))
}

// The same test with the values of every cluster the chart ships to.
func TestEveryProvider(t *testing.T) {
	providers, err := filepath.Glob("../providers/*.yaml")
	if err != nil || len(providers) == 0 {
		t.Fatalf("no provider values in ../providers: %v", err)
	}
	for _, values := range providers {
		t.Run(filepath.Base(values), func(t *testing.T) {
			m := proxytest.Render(t, ".", proxytest.ValuesFile(values))
			proxytest.AssertProxyReady(t, m)
		})
	}
}

// Typed access for the chart's own assertions: the migrate init container gets
// the proxy, and the chart's literal LISTEN_PORT wins over values.
func TestAPIContainers(t *testing.T) {
	m := proxytest.Render(t, ".", proxytest.Values(`{proxy: {http: http://proxy.corp.example:3128}, api: {env: [{name: LISTEN_PORT, value: "9090"}]}}`))
	migrate := m.Container(t, "Deployment/release-name-api", "migrate")
	if env := m.Environment(migrate); env["HTTP_PROXY"] != "http://proxy.corp.example:3128" {
		t.Errorf("migrate: HTTP_PROXY = %q", env["HTTP_PROXY"])
	}
	api := m.Container(t, "Deployment/release-name-api", "api")
	if env := m.Environment(api); env["LISTEN_PORT"] != "8080" {
		t.Errorf("api: LISTEN_PORT = %q, want the chart's 8080", env["LISTEN_PORT"])
	}
}
