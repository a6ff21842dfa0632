//go:build integration

package inject

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/inject"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// TestHelmUsersSeeWhatInjectDid: what inject says reaches a Helm user through
// the real Helm 3 (--post-renderer PATH) and Helm 4 (the plugin as the docs
// install it). Its notes ride on the objects they are about (the
// proxykit.io/inject-notes annotation), where `helm template` and `helm get
// manifest` show them: Helm 3 shows a post-renderer's standard error only when
// it fails, Helm 4 never. Its errors name the fix under both: Helm 3 prints the
// post-renderer's standard error, and under Helm 4 the plugin's error becomes
// Helm's own.
func TestHelmUsersSeeWhatInjectDid(t *testing.T) {
	harness.Parallel(t)
	bin := itest.ProxykitCLI(t)
	env4, env3 := helm4Plugin(t, bin), itest.NewHelmHome(t).Env
	chart := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(chart, "templates"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(chart, "Chart.yaml"), []byte("apiVersion: v2\nname: logs\nversion: 0.1.0\n"), 0o644))
	// a chart's own NO_PROXY with a public entry, and a call to name.namespace where the
	// namespace is a top-level domain
	require.NoError(t, os.WriteFile(filepath.Join(chart, "templates", "deployment.yaml"), []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: reader}
spec:
  selector: {matchLabels: {app: reader}}
  template:
    metadata: {labels: {app: reader}}
    spec:
      containers:
        - name: reader
          image: reader
          env:
            - {name: NO_PROXY, value: ".corp.example,.com"}
            - {name: LOGS_URL, value: "http://minio.storage:9000"}
`), 0o644))
	plain := itest.WriteTemp(t, itest.InjectValuesPlain)
	credentials := itest.WriteTemp(t, itest.InjectValuesCredentials)
	post3 := func(values string) []string {
		return []string{"--post-renderer", bin, "--post-renderer-args", "inject", "--post-renderer-args", "-f", "--post-renderer-args", values, "--post-renderer-args", "-n", "--post-renderer-args", "logs"}
	}
	post4 := func(values string) []string {
		return []string{"--post-renderer", "proxykit", "--post-renderer-args", "-f", "--post-renderer-args", values, "--post-renderer-args", "-n", "--post-renderer-args", "logs"}
	}
	for _, h := range []struct {
		binary string
		env    []string
		post   func(string) []string
	}{{"helm", env3, post3}, {"helm4", env4, post4}} {
		t.Run(h.binary, func(t *testing.T) {
			out := itest.RunHelm(t, h.env, h.binary, append([]string{"template", "logs", chart, "-n", "logs"}, h.post(plain)...)...)
			m, err := proxytest.Parse(out)
			require.NoError(t, err)
			reader := m.Find("Deployment", "reader")
			require.NotNil(t, reader)
			notes := reader.Annotation(inject.AnnotationNotes)
			assert.Contains(t, notes, "Deployment/reader container reader: its own NO_PROXY merged without entry .com, which would send public hosts around the proxy")
			assert.Contains(t, notes, "calls minio.storage:9000 (env LOGS_URL): left out of NO_PROXY, since .storage is a top-level domain")

			// credentials, and no release name to name their Secret after (no
			// app.kubernetes.io/instance label): the error says which argument to add
			cmd := exec.Command(fixture.Path("bin", h.binary), append([]string{"template", "logs", chart, "-n", "logs"}, h.post(credentials)...)...)
			cmd.Env = h.env
			output, err := cmd.CombinedOutput()
			require.Error(t, err, "%s", output)
			assert.Contains(t, string(output), "the release name is unknown")
			assert.Contains(t, string(output), "pass --release NAME (to helm: --post-renderer-args --release --post-renderer-args NAME)")
			assert.NotContains(t, string(output), fixture.Password)
			if h.binary == "helm4" {
				assert.Contains(t, string(output), "Error: YAML parse error on proxykit inject failed: ", "Helm 4's own error carries it")
			}
			assert.NotContains(t, strings.ToLower(string(output)), "apiversion", "no manifest is printed")
		})
	}
}
