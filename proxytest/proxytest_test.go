package proxytest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/internal/testfs"
)

// copyChart copies a chart directory without its charts/ folder.
func copyChart(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), filepath.Base(from))
	testfs.CopyTree(t, from, to, "charts")
	return to
}

func TestRenderUsesTheEmbeddedLibrary(t *testing.T) {
	chart := copyChart(t, "../examples/consumer-app")
	m := Render(t, chart, ValuesFile("../examples/providers/gke.yaml"))
	c, err := ClusterFromValues(m.Values)
	require.NoError(t, err)
	assert.Equal(t, []string{"10.0.0.0/14"}, c.PodCIDRs)
	var findings []Finding
	for _, f := range Check(m, WithCluster(c)) {
		if f.Container != "metrics" { // opts out of the proxy on purpose
			findings = append(findings, f)
		}
	}
	assert.Empty(t, findings)

	t.Run("a constraint the embedded library does not meet names both versions", func(t *testing.T) {
		chartYAML := filepath.Join(chart, "Chart.yaml")
		b, err := os.ReadFile(chartYAML)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(chartYAML, []byte(strings.Replace(string(b), "version: 0.6.0\n    repository", "version: ~0.1.0\n    repository", 1)), 0o644))
		_, err = RenderE(chart)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "~0.1.0")
		assert.Contains(t, err.Error(), "the embedded library is 0.6.0")
	})
}

// The library's message, where `helm template` says it: the chart's own template and line.
func TestRenderFailsWithTheLibraryMessage(t *testing.T) {
	_, err := RenderE(copyChart(t, "../examples/consumer-app"), Values(`cluster: {podCIDRs: [10.0.0.0/33]}`))
	require.Error(t, err)
	assert.Regexp(t, `^execution error at \(consumer-app/templates/[a-z-]+\.yaml:\d+:\d+\): proxykit: cluster\.podCIDRs: "10\.0\.0\.0/33" is not a valid CIDR`, err.Error())
}

// A dependency in Chart.yaml that charts/ lacks fails as `helm template` fails
// (proxykit alone is supplied by the embedded library).
func TestRenderFailsOnAMissingDependency(t *testing.T) {
	chart := copyChart(t, "../examples/consumer-app")
	chartYAML := filepath.Join(chart, "Chart.yaml")
	b, err := os.ReadFile(chartYAML)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(chartYAML, append(b, []byte("  - name: redis\n    version: 20.0.0\n    repository: oci://registry.example/charts\n    condition: redis.enabled\n")...), 0o644))
	_, err = RenderE(chart)
	assert.EqualError(t, err, "proxytest: consumer-app: found in Chart.yaml, but missing in charts/ directory: redis; run `helm dependency build`")
}

// A render without a container (a values typo that turns every workload off)
// fails AssertProxyReady unless the test says the chart has none.
func TestAssertProxyReadyNeedsAContainer(t *testing.T) {
	m, err := Parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n")
	require.NoError(t, err)
	rec := &recordingT{TB: t}
	AssertProxyReady(rec, m, WithCluster(testCluster))
	require.Len(t, rec.errors, 1)
	assert.Contains(t, rec.errors[0], "the render has no container")
	assert.Contains(t, rec.errors[0], "proxytest.NoWorkloads()")

	rec = &recordingT{TB: t}
	AssertProxyReady(rec, m, WithCluster(testCluster), NoWorkloads())
	assert.Empty(t, rec.errors)
}

// recordingT keeps what a test reported instead of failing.
type recordingT struct {
	testing.TB
	errors []string
}

func (r *recordingT) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recordingT) Helper() {}

var testCluster = Cluster{Domain: "cluster.local", PodCIDRs: []string{"10.244.0.0/16"}, ServiceCIDRs: []string{"10.96.0.0/12"}, APIServer: "10.96.0.1", Metadata: true}
