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
//		proxytest.AssertProxyReady(t, m)
//	}
//
// AssertProxyReady judges against the cluster facts the library read in that
// render (m.Cluster); WithCluster judges against others. The rules themselves
// are package rules', the manifest model package manifest's: proxytest is the
// test helper beside them, as net/http/httptest is beside net/http.
package proxytest
