package tests

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allCharts is every chart in the repository: the library, the ready charts,
// the examples and the test fixture.
func allCharts(t *testing.T) []string {
	charts := []string{repoPath("library", "proxykit")}
	charts = append(charts, chartsWithDependencies()...)
	require.GreaterOrEqual(t, len(charts), 2)
	return charts
}

// TestHelmLintStrict lints every chart the way chart-testing does: once per
// ci/*-values.yaml when the chart has such files, else with its own values.
func TestHelmLintStrict(t *testing.T) {
	for _, dir := range allCharts(t) {
		rel, _ := filepath.Rel(repoRoot, dir)
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
				out, err := helmCommand(t, "lint", args...)
				assert.NoError(t, err, out)
				assert.Contains(t, out, "1 chart(s) linted, 0 chart(s) failed")
			})
		}
	}
}
