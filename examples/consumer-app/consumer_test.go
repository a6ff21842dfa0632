// A chart author's whole proxy test: render the chart with the values of each
// cluster it ships to, and check every container with proxytest.
package consumerapp

import (
	"path/filepath"
	"testing"

	"github.com/proxykit/proxykit/proxytest"
)

func TestEveryContainerGetsTheProxy(t *testing.T) {
	providers, _ := filepath.Glob("../providers/*.yaml")
	if len(providers) == 0 {
		t.Fatal("no provider values found")
	}
	for _, values := range providers {
		t.Run(filepath.Base(values), func(t *testing.T) {
			m := proxytest.Render(t, ".", proxytest.ValuesFile(values))
			cluster, err := proxytest.ClusterFromValues(m.Values)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Containers()) != 5 {
				t.Fatalf("want 5 containers, got %d", len(m.Containers()))
			}
			for _, f := range proxytest.Check(m, cluster) {
				if f.Container == "metrics" && f.Rule == proxytest.RuleMissingProxyEnv {
					continue // the metrics sidecar only scrapes the pod: it opts out of the proxy
				}
				t.Error(f)
			}
		})
	}
}
