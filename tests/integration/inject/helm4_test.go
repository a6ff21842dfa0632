//go:build integration

package inject

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// helmTemplate runs `<binary> template` and returns the objects by Kind/name.
func helmTemplate(t *testing.T, binary, chart, valuesFile string) map[string]any {
	t.Helper()
	args := []string{"template", fixture.Release, chart, "--namespace", fixture.Namespace}
	if valuesFile != "" {
		args = append(args, "-f", valuesFile)
	}
	out, err := exec.Command(binary, args...).CombinedOutput()
	require.NoError(t, err, "%s %v:\n%s", filepath.Base(binary), args, out)
	m, err := proxytest.Parse(string(out))
	require.NoError(t, err)
	return itest.ObjectsByName(t, m)
}

// TestHelm3AndHelm4RenderTheSame renders every chart and example with each of its
// values files under the Helm 3 CLI (go.mod) and the Helm 4 CLI (tools/helm4), and
// in process through proxytest, which the render tests use: all three give the
// same objects, so the fast render tests judge what users' helm renders.
func TestHelm3AndHelm4RenderTheSame(t *testing.T) {
	harness.Parallel(t)
	helm3, helm4 := fixture.Path("bin", "helm"), fixture.Path("bin", "helm4")
	_, err := os.Stat(helm4)
	require.NoError(t, err, "bin/helm4 is missing: run `make tools`")

	type render struct{ chart, values string }
	var renders []render
	for _, dir := range fixture.ChartDirs() {
		files, _ := filepath.Glob(filepath.Join(dir, "ci", "*-values.yaml"))
		if len(files) == 0 {
			files = []string{""}
		}
		for _, f := range files {
			renders = append(renders, render{dir, f})
		}
	}
	providerFiles, _ := filepath.Glob(fixture.Path("examples", "providers", "*.yaml"))
	require.NotEmpty(t, providerFiles)
	for _, f := range providerFiles {
		renders = append(renders, render{fixture.ConsumerApp, f})
	}
	for _, r := range renders {
		rel, _ := filepath.Rel(fixture.Root, r.chart)
		t.Run(rel+"/"+filepath.Base(r.values), func(t *testing.T) {
			v3 := helmTemplate(t, helm3, r.chart, r.values)
			v4 := helmTemplate(t, helm4, r.chart, r.values)
			assert.NotEmpty(t, v3)
			assert.Equal(t, v3, v4)
			values := ""
			if r.values != "" {
				b, err := os.ReadFile(r.values)
				require.NoError(t, err)
				values = string(b)
			}
			inProcess, err := fixture.RenderE(r.chart, proxytest.Values(values), proxytest.Release(fixture.Release, fixture.Namespace))
			require.NoError(t, err)
			assert.Equal(t, v3, itest.ObjectsByName(t, inProcess), "proxytest renders what helm renders")
		})
	}
}
