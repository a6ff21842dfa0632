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

func TestHelmLintStrict(t *testing.T) {
	for _, dir := range allCharts(t) {
		rel, _ := filepath.Rel(repoRoot, dir)
		t.Run(rel, func(t *testing.T) {
			out, err := helmCommand(t, "lint", "--strict", dir)
			assert.NoError(t, err, out)
			assert.Contains(t, out, "1 chart(s) linted, 0 chart(s) failed")
		})
	}
}
