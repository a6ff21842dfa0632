//go:build integration

package distribution

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
)

// TestChartREADMEsAreUpToDate: each published chart's README.md is what
// helm-docs (built from its Go module by `make tools`) generates from its
// README.md.gotmpl and the `# --` comments in values.yaml. `make docs` refreshes them.
func TestChartREADMEsAreUpToDate(t *testing.T) {
	harness.Parallel(t)
	helmDocs := fixture.Path("bin", "helm-docs")
	_, err := os.Stat(helmDocs)
	require.NoError(t, err, "bin/helm-docs is missing: run `make tools`")
	for _, chart := range []string{"library/proxykit", "charts/chart-operator", "charts/cluster-proxy", "charts/proxy-policies", "charts/http-proxy", "charts/proxy-relay"} {
		t.Run(chart, func(t *testing.T) {
			cmd := exec.Command(helmDocs, "--chart-search-root", ".", "--skip-version-footer", "--dry-run", "-g", chart)
			cmd.Dir = fixture.Root
			want, err := cmd.Output()
			require.NoError(t, err)
			got, err := os.ReadFile(fixture.Path(chart, "README.md"))
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got), "%s is out of date: run `make docs`", filepath.Join(chart, "README.md"))
			if chart != "library/proxykit" {
				assert.Contains(t, string(got), "| cluster.podCIDRs |", "the values table lists the library's values")
			}
		})
	}
}
