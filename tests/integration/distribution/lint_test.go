//go:build integration

package distribution

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
)

// allCharts is every chart in the repository: the library, the ready charts,
// the examples and the test fixture.
func allCharts(t *testing.T) []string {
	charts := []string{fixture.Path("library", "proxykit")}
	charts = append(charts, fixture.ChartDirs()...)
	require.GreaterOrEqual(t, len(charts), 2)
	return charts
}

// TestHelmLintStrict lints every chart the way chart-testing does: once per
// ci/*-values.yaml when the chart has such files, else with its own values.
func TestHelmLintStrict(t *testing.T) {
	harness.Parallel(t)
	for _, dir := range allCharts(t) {
		rel, _ := filepath.Rel(fixture.Root, dir)
		valuesFiles, _ := filepath.Glob(filepath.Join(dir, "ci", "*-values.yaml"))
		if len(valuesFiles) == 0 {
			valuesFiles = []string{""}
		}
		for _, values := range valuesFiles {
			t.Run(filepath.Join(rel, filepath.Base(values)), func(t *testing.T) {
				args := []string{"--strict", dir}
				if values != "" {
					args = append(args, "-f", values)
				}
				out, err := fixture.HelmCommand(t, "lint", args...)
				assert.NoError(t, err, out)
				assert.Contains(t, out, "1 chart(s) linted, 0 chart(s) failed")
			})
		}
	}
}

func TestSchemasNameATypoBeforeTheTemplates(t *testing.T) {
	harness.Parallel(t)
	for _, chart := range []string{fixture.ChartOperator, fixture.ClusterProxy, fixture.ProxyPolicies} {
		for _, set := range []string{"cluster.podCIDR=10.0.0.0/8", "proxy.no_proxy=a", "global.proxy.htps=x", "cluster.proxy.trustedCa=x"} {
			t.Run(chart[strings.LastIndex(chart, "/")+1:]+"/"+set, func(t *testing.T) {
				key := set[strings.LastIndex(set[:strings.Index(set, "=")], ".")+1 : strings.Index(set, "=")]
				for _, cmd := range [][]string{{"lint", "--strict"}, {"template", "test"}} {
					args := append(cmd[1:], chart, "--set", "clusterName=wc1", "--set", set)
					out, err := fixture.HelmCommand(t, cmd[0], args...)
					require.Error(t, err, "helm %s accepted %s", cmd[0], set)
					assert.Contains(t, out, fmt.Sprintf("additional properties '%s' not allowed", key), "helm %s", cmd[0])
				}
			})
		}
	}
}
