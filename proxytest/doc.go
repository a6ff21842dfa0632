// Package proxytest checks, in a chart author's own `go test`, that every
// container a chart renders gets the proxy and that NO_PROXY covers the cluster.
//
// It renders charts in-process with the Helm SDK (no helm binary), the way
// `helm template` does, and judges the result with the rules of Check. A chart
// whose only missing dependency is proxykit renders without `helm dependency
// build`: the library embedded in this module stands in when the chart's
// version constraint accepts it.
//
// A whole test:
//
//	func TestProxy(t *testing.T) {
//		m := proxytest.Render(t, "../chart", proxytest.ValuesFile("../chart/ci/proxy-values.yaml"))
//		c, err := proxytest.ClusterFromValues(m.Values)
//		if err != nil {
//			t.Fatal(err)
//		}
//		proxytest.AssertProxyReady(t, m, c)
//	}
package proxytest
