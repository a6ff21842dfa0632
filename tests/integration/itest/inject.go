//go:build integration

package itest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/internal/testfs"
	"github.com/proxykit/proxykit/tests/fixture"
)

// UnownedChart is a chart this project does not write, from the Go module that
// ships it (located through the tools/<toolsDir> module that pins it), copied out
// of the read-only module cache. Dependencies the module does not carry (Kyverno's
// kyverno-api, openreports and reports-server CRD charts live in other
// repositories, and nothing but the package registries is reachable here) are
// dropped from Chart.yaml: `helm template` refuses a chart with one missing.
func UnownedChart(t testing.TB, module, toolsDir, path string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), filepath.Base(path))
	testfs.CopyTree(t, filepath.Join(moduleDir(t, module, toolsDir), path), dir)
	raw, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	require.NoError(t, err)
	var meta map[string]any
	require.NoError(t, yaml.Unmarshal(raw, &meta))
	if deps, ok := meta["dependencies"].([]any); ok {
		var kept []any
		for _, d := range deps {
			name, _ := d.(map[string]any)["name"].(string)
			if _, err := os.Stat(filepath.Join(dir, "charts", name)); err == nil {
				kept = append(kept, d)
			}
		}
		meta["dependencies"] = kept
		out, err := yaml.Marshal(meta)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "Chart.yaml"), out, 0o644))
		_ = os.Remove(filepath.Join(dir, "Chart.lock"))
	}
	return dir
}

func RunHelm(t testing.TB, env []string, binary string, args ...string) string {
	t.Helper()
	cmd := exec.Command(fixture.Path("bin", binary), args...)
	cmd.Env = env
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "%s %s:\n%s", binary, strings.Join(args, " "), stderr.String())
	return stdout.String()
}

const InjectValuesPlain = `proxy: {http: "http://proxy.corp.example:3128", https: "http://proxy.corp.example:3128"}
cluster: {podCIDRs: [10.244.0.0/16], serviceCIDRs: [10.96.0.0/12], apiServer: 10.96.0.1}
`

var InjectValuesCredentials = strings.ReplaceAll(InjectValuesPlain, "http://proxy", "http://svc-user:"+fixture.Password+"@proxy")

func WriteTemp(t testing.TB, text string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "manifests.yaml")
	require.NoError(t, os.WriteFile(f, []byte(text), 0o600))
	return f
}
